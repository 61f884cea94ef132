import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/** An HTTP proxy that tunnels CONNECT requests and remembers where they went. */
export class ForwardProxy {
  readonly tunnels: string[] = [];
  private readonly sockets = new Set<Socket>();
  url = "";

  private constructor(private readonly server: Server) {
    server.on("connect", (request, client: Socket, head: Buffer) => {
      const target = request.url ?? "";
      this.tunnels.push(target);
      const [host, port] = target.split(":");
      const remote = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        remote.write(head);
        remote.pipe(client);
        client.pipe(remote);
      });
      for (const socket of [client, remote]) {
        this.sockets.add(socket);
        socket.on("error", () => socket.destroy());
        socket.on("close", () => this.sockets.delete(socket));
      }
    });
  }

  static async start(): Promise<ForwardProxy> {
    const proxy = new ForwardProxy(createServer((_, response) => response.writeHead(405).end()));
    proxy.server.listen(0, "127.0.0.1");
    await once(proxy.server, "listening");
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    return proxy;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
