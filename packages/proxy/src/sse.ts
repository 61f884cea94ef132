import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/** Bytes a stream may leave unread before it is dropped: its client reconnects and catches up. */
const BACKLOG_LIMIT = 8 * 1024 * 1024;

/** Starts a server-sent event stream, with the headers its route set so far (CORS above all). */
export function openEventStream(response: ServerResponse, headers: OutgoingHttpHeaders = {}): void {
  response.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    // Proxies such as nginx would otherwise hold events back to fill a buffer.
    "x-accel-buffering": "no",
  });
}

/**
 * Writes to an open stream. A client that stopped reading is dropped rather than buffered
 * for without end; returns false then, and the caller forgets the stream.
 */
export function writeEvent(response: ServerResponse, bytes: string): boolean {
  if (response.writableEnded || response.destroyed) return true;
  if (response.writableLength > BACKLOG_LIMIT) {
    response.destroy();
    return false;
  }
  response.write(bytes);
  return true;
}
