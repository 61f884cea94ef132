import { createServer } from "node:net";

/** A start-up failure an operator can fix: its message is one line naming what to change. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** What a failed listen means for the operator, in one line naming PORT or HOST. */
export function listenProblem(error: NodeJS.ErrnoException, port: number, host: string): StartupError {
  switch (error.code) {
    case "EADDRINUSE":
      return new StartupError(
        `port ${port} on ${host} is already in use by another process: stop it, or set PORT to a free port`,
      );
    case "EACCES":
      return new StartupError(
        `port ${port} on ${host} needs privileges this process does not have: set PORT to 1024 or above`,
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAFNOSUPPORT":
      return new StartupError(
        `HOST ${host} is not an address of this machine (${error.code}): set HOST to one, 0.0.0.0 or ::`,
      );
  }
  return new StartupError(
    `cannot listen on ${host}:${port} (${error.code ?? error.message}): check PORT and HOST`,
  );
}

/**
 * Fails before anything else happens when the address is taken: no backup folder made, no
 * upstream called, for a process that cannot serve.
 */
export function ensurePortFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => reject(listenProblem(error, port, host)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
