import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** As sent, uncompressed when it came with `content-encoding: gzip`. */
  body: string;
}

/** How the receiver answers its nth request (from 1); a request left unanswered hangs. */
export type Answer = (n: number, request: Received, response: ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  answer: Answer;
  /** Resolves once `count` requests have arrived; rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export const ok: Answer = (_n, _request, response) => {
  response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
};

/** A real HTTP server on 127.0.0.1 and a random port that records what it is sent. */
export async function startReceiver(answer: Answer = ok): Promise<Receiver> {
  const sockets = new Set<import("node:net").Socket>();
  const receiver: Receiver = {
    url: "",
    port: 0,
    received: [],
    answer,
    async waitFor(count, ms = 3000) {
      const deadline = Date.now() + ms;
      while (receiver.received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} requests within ${ms} ms, got ${receiver.received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const received: Received = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: (request.headers["content-encoding"] === "gzip"
          ? gunzipSync(Buffer.concat(chunks))
          : Buffer.concat(chunks)
        ).toString("utf8"),
      };
      receiver.received.push(received);
      receiver.answer(receiver.received.length, received, response);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
