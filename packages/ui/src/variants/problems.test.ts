import { describe, expect, it } from "vitest";
import { payloadProblem, variantsProblem } from "./problems";
import { fromStored, type Variant } from "./variant";

const variant = (name: string, extra: Partial<Variant> = {}): Variant => ({
  name,
  weight: 0,
  weightType: "variable",
  stickiness: "default",
  ...extra,
});

describe("payloadProblem", () => {
  it("accepts no payload and any text", () => {
    expect(payloadProblem(undefined)).toBeUndefined();
    expect(payloadProblem({ type: "string", value: "" })).toBeUndefined();
    expect(payloadProblem({ type: "csv", value: "a,b" })).toBeUndefined();
  });

  it("wants JSON to parse and numbers to be numbers, as the service checks them", () => {
    expect(payloadProblem({ type: "json", value: '{"a":1}' })).toBeUndefined();
    expect(payloadProblem({ type: "json", value: "{a:1}" })).toMatch(/^Not valid JSON: /);
    expect(payloadProblem({ type: "number", value: "-1.5" })).toBeUndefined();
    expect(payloadProblem({ type: "number", value: "12abc" })).toMatch(/^Not a number/);
    expect(payloadProblem({ type: "number", value: " " })).toMatch(/^Not a number/);
  });
});

describe("variantsProblem", () => {
  it("has nothing against a list the service takes, or no list", () => {
    expect(variantsProblem([])).toBeUndefined();
    expect(variantsProblem([variant("a", { weightType: "fix", weight: 400 }), variant("b")])).toBeUndefined();
  });

  it("names what the service would refuse", () => {
    expect(
      variantsProblem([
        variant("a", { weightType: "fix", weight: 600 }),
        variant("b", { weightType: "fix", weight: 500 }),
        variant("c"),
      ]),
    ).toBe(
      "Fixed weights add up to 110 %, more than 100 %. Lower them to leave room for the variable variants.",
    );
    expect(variantsProblem([variant("a", { weightType: "fix", weight: 1000 })])).toBeUndefined();
    expect(variantsProblem([variant("a", { weightType: "fix", weight: 900 })])).toBe(
      "Fixed weights add up to 90 %: without a variable variant they must make 100 %.",
    );
    expect(variantsProblem([variant("a"), variant("")])).toBe("Variant 2 — A name is required.");
    expect(variantsProblem([variant("a"), variant("a")])).toBe(
      "Variant 2: a — Another variant is already called a.",
    );
    expect(variantsProblem([variant("a", { payload: { type: "number", value: "x" } })])).toMatch(
      /^Variant 1: a — Not a number/,
    );
    expect(variantsProblem([variant("a", { overrides: [{ contextName: "", values: ["x"] }] })])).toBe(
      "Variant 1: a — Choose a context field.",
    );
  });
});

describe("fromStored", () => {
  it("reads a missing weight type as variable and a missing stickiness as default, as the service does", () => {
    expect(
      fromStored([
        { name: "a", weight: 500, payload: { type: "json", value: "{}" } },
        { name: "b", weight: 500, weightType: "fix", stickiness: "userId", overrides: [] },
      ]),
    ).toEqual([
      {
        name: "a",
        weight: 500,
        weightType: "variable",
        stickiness: "default",
        payload: { type: "json", value: "{}" },
      },
      { name: "b", weight: 500, weightType: "fix", stickiness: "userId", overrides: [] },
    ]);
  });
});
