import type { Context } from "./context.js";

// The flags of one evaluation call share work that depends on the context alone, such as the
// result of a segment that many flags name: it is done once per call, not once per flag.

let call = 0;

/**
 * Starts an evaluation call: what was remembered during earlier calls is forgotten, since
 * their context may have been changed in place since.
 */
export function startEvaluation(): void {
  call++;
}

/** `compute`, remembered for the current evaluation call and the context it was given. */
export function perEvaluation<T>(compute: (context: Context) => T): (context: Context) => T {
  let rememberedCall = -1;
  let rememberedContext: Context | undefined;
  let value: T;
  return (context) => {
    // A custom strategy may evaluate another context in the middle of a call: the context
    // is compared too, so that neither call sees the other's answer.
    if (rememberedCall !== call || rememberedContext !== context) {
      value = compute(context);
      rememberedCall = call;
      rememberedContext = context;
    }
    return value;
  };
}
