import { describe, expect, it } from "vitest";
import { plural } from "./plural";

describe("plural", () => {
  it("says one thing in the singular, and none or several in the plural", () => {
    expect(plural(1, "flag")).toBe("1 flag");
    expect(plural(0, "flag")).toBe("0 flags");
    expect(plural(2, "error")).toBe("2 errors");
  });

  it("takes the plural where an s is not it", () => {
    expect(plural(1, "strategy", "strategies")).toBe("1 strategy");
    expect(plural(3, "strategy", "strategies")).toBe("3 strategies");
  });

  it("writes large counts as the reader's locale groups them", () => {
    expect(plural(12_500, "evaluation")).toBe(`${new Intl.NumberFormat().format(12_500)} evaluations`);
  });
});
