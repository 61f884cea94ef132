// OpenFeature's protocol (OFREP) on Signalbox, against what the Node SDK decides for the
// same context: every flag's value and variant from the bulk evaluation must be what the
// SDK's isEnabled and getVariant give, mapped as the protocol package documents (a boolean
// for a flag without variants, else the variant's payload as its declared type).
import { type FeatureDefinition, hasVariants } from "@signalbox/protocol";
import type { Context, Unleash } from "unleash-client";
import { evaluationRequest } from "./apply.js";
import type { GeneratedContext, WireContext } from "./contexts.js";
import { jsonDiff } from "./diff.js";

interface Answer {
  value?: unknown;
  variant?: string;
  errorCode?: string;
}

export interface OfrepDifference {
  kind: "ofrep";
  /** Which OFREP answered: the Signalbox service, or the proxy in front of the reference. */
  where: string;
  environment: string;
  flag: string;
  context: Record<string, unknown>;
  sdk: Answer;
  ofrep: Answer | "(not returned)";
}

export interface OfrepRun {
  comparisons: number;
  differences: OfrepDifference[];
}

/** A payload as OFREP types it; a PARSE_ERROR when it does not read as its declared type. */
function typed(payload: { type: string; value: string }): Answer {
  if (payload.type === "number") {
    const value = Number(payload.value);
    return payload.value.trim() === "" || Number.isNaN(value) ? { errorCode: "PARSE_ERROR" } : { value };
  }
  if (payload.type === "json") {
    try {
      return { value: JSON.parse(payload.value) };
    } catch {
      return { errorCode: "PARSE_ERROR" };
    }
  }
  return { value: payload.value };
}

/** What OFREP must answer, from the SDK's own decision. */
function expected(sdk: Unleash, flag: string, context: Context): Answer {
  const enabled = sdk.isEnabled(flag, context);
  const definition = sdk.getFeatureToggleDefinition(flag) as unknown as FeatureDefinition | undefined;
  if (!hasVariants(definition)) return { value: enabled };
  const variant = sdk.getVariant(flag, context);
  if (!variant.enabled) return {};
  if (!variant.payload) return { variant: variant.name };
  const answer = typed(variant.payload as { type: string; value: string });
  return answer.errorCode ? answer : { ...answer, variant: variant.name };
}

/**
 * The OFREP context of a generated one, and the same as the SDK reads it. Only contexts with
 * a user and a session are used: without them the service makes up a session, a draw the
 * SDK cannot share. Fields a frontend request fills in (address, app, environment) are
 * given, and `currentTime` is left out, so the server's clock and the SDK's agree.
 */
function contexts(context: WireContext, environment: string) {
  if (!context.userId || !context.sessionId) return undefined;
  const fields = {
    ...context.properties,
    userId: context.userId,
    sessionId: context.sessionId,
    remoteAddress: context.remoteAddress ?? "127.0.0.1",
    appName: context.appName ?? "differential",
    environment: context.environment ?? environment,
  };
  const { userId, sessionId, remoteAddress, appName, environment: env } = fields;
  return {
    ofrep: { ...fields, targetingKey: userId },
    sdk: {
      userId,
      sessionId,
      remoteAddress,
      appName,
      environment: env,
      properties: context.properties,
    } as Context,
  };
}

export async function compareOfrep(
  where: string,
  url: string,
  token: string,
  sdk: Unleash,
  environment: string,
  generated: GeneratedContext[],
  skip: Set<string>,
  random: Set<string>,
  concurrency = 8,
): Promise<OfrepRun> {
  const run: OfrepRun = { comparisons: 0, differences: [] };
  let next = 0;
  const worker = async () => {
    while (next < generated.length) {
      const { index, context } = generated[next++]!;
      const made = contexts(context, environment);
      if (!made) continue;
      const reply = await evaluationRequest(url, token, "POST", "/ofrep/v1/evaluate/flags", {
        context: made.ofrep,
      });
      if (reply.status !== 200)
        throw new Error(`${where} OFREP answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      const answers = new Map(
        (reply.body as { flags: (Answer & { key: string })[] }).flags.map(({ key, ...answer }) => [
          key,
          answer,
        ]),
      );
      for (const definition of sdk.getFeatureToggleDefinitions()) {
        const flag = definition.name;
        if (skip.has(flag) || random.has(`${index}:${flag}`)) continue;
        run.comparisons++;
        const want = expected(sdk, flag, made.sdk);
        const got = answers.get(flag);
        // What OFREP answers that the SDK can say, without the fields left out (JSON drops undefined).
        const shown: OfrepDifference["ofrep"] = got
          ? JSON.parse(JSON.stringify({ value: got.value, variant: got.variant, errorCode: got.errorCode }))
          : "(not returned)";
        if (jsonDiff(want, shown).length === 0) continue;
        run.differences.push({
          kind: "ofrep",
          where,
          environment,
          flag,
          context: made.ofrep,
          sdk: want,
          ofrep: shown,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return run;
}
