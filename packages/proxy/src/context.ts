import type { Context } from "@signalbox/engine";
import { frontendContext } from "@signalbox/protocol";
import type { ContextEnricher } from "./config.js";

export interface ContextSettings {
  /** Stands in for a missing `appName`, as the reference's SDK static context does. */
  appName: string;
  /** When set, the environment of every context, whatever the caller sent. */
  environment: string | undefined;
}

/**
 * Turns what a caller sent (query parameters or the body's `context`) into an evaluation
 * context with the protocol's frontend rules, as the reference proxy applies them: a
 * `currentTime` sent is used when it parses, the caller's address is IPv4 without its
 * IPv6 mapping, and a configured environment cannot be overridden. A missing `sessionId`
 * stays missing: rules on sessions must not see one the caller never sent (the
 * evaluation supplies anonymous callers' stickiness instead).
 */
export function createContext(
  input: Record<string, unknown> | undefined,
  clientAddress: () => string,
  settings: ContextSettings,
): Context {
  return frontendContext(input, clientAddress, {
    appName: settings.appName,
    environment: settings.environment,
    plainIpv4: true,
    refuseNonScalars: false,
  });
}

/** Runs the enrichers in order, each on the context the previous one returned. */
export async function enrichContext(
  context: Context,
  enrichers: readonly ContextEnricher[],
): Promise<Context> {
  let enriched = context;
  for (const enrich of enrichers) enriched = await enrich(enriched);
  return enriched;
}
