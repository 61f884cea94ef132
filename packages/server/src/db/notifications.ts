import pg from "pg";

export interface Subscriber {
  /** A notification's payload. */
  message(payload: string): void;
  /**
   * The subscription is (again) in place. Notifications sent while it was down are lost,
   * so this is where a listener catches up on what it missed.
   */
  connected(): void;
  /** The connection failed; it is retried with backoff. */
  failed(error: Error): void;
}

export type Unsubscribe = () => Promise<void>;

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

/**
 * LISTENs on a PostgreSQL channel over a connection of its own (a pooled connection would be
 * handed to other queries), reconnecting with backoff for as long as it is wanted.
 */
export function subscribe(connectionString: string, channel: string, subscriber: Subscriber): Unsubscribe {
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  // A lost connection reports both `error` and `end`: only the first of them retries.
  const retry = (failed: pg.Client, error: Error) => {
    if (client !== failed) return;
    failed.removeAllListeners();
    void failed.end().catch(() => {});
    client = undefined;
    if (stopped) return;
    subscriber.failed(error);
    timer = setTimeout(open, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  const open = () => {
    const connecting = new pg.Client({ connectionString });
    client = connecting;
    connecting.on("notification", (notification) => subscriber.message(notification.payload ?? ""));
    connecting.on("error", (error) => retry(connecting, error));
    connecting.on("end", () => retry(connecting, new Error("the connection was closed")));
    connecting
      .connect()
      .then(() => connecting.query(`listen ${pg.escapeIdentifier(channel)}`))
      .then(() => {
        if (stopped) return;
        retryMs = RETRY_MIN_MS;
        subscriber.connected();
      })
      .catch((error: Error) => retry(connecting, error));
  };

  open();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const open = client;
    client = undefined;
    open?.removeAllListeners();
    await open?.end().catch(() => {});
  };
}
