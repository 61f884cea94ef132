import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/**
 * An HTTP forward proxy: relays absolute-form requests, tunnels CONNECT requests, and
 * remembers both.
 */
export class ForwardProxy {
  readonly tunnels: string[] = [];
  readonly forwarded: string[] = [];
  /** The Proxy-Authorization header of every request, tunnel or forward, in order. */
  readonly credentials: Array<string | undefined> = [];
  private readonly sockets = new Set<Socket>();
  url = "";

  private constructor(private readonly server: Server) {
    server.on("connect", (request, client: Socket, head: Buffer) => {
      const target = request.url ?? "";
      this.tunnels.push(target);
      this.credentials.push(request.headers["proxy-authorization"]);
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
    const proxy: ForwardProxy = new ForwardProxy(
      createServer((incoming, outgoing) => proxy.relay(incoming, outgoing)),
    );
    proxy.server.listen(0, "127.0.0.1");
    await once(proxy.server, "listening");
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    return proxy;
  }

  private relay(incoming: IncomingMessage, outgoing: ServerResponse): void {
    const target = incoming.url ?? "";
    if (!target.startsWith("http://")) {
      outgoing.writeHead(400).end();
      return;
    }
    this.forwarded.push(target);
    this.credentials.push(incoming.headers["proxy-authorization"]);
    const onward = request(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    onward.on("error", () => outgoing.writeHead(502).end());
    incoming.pipe(onward);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
