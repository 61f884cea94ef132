import { describe, expect, it } from "vitest";
import { loadConfig, PASSWORD_HASH_COST } from "../src/config.js";
import { hashPassword, setPasswordHashCost, verifyPassword } from "../src/domains/users/passwords.js";

describe("the password hashing cost", () => {
  it("is OWASP's setting unless raised, and lower only when asked for by name", () => {
    expect(loadConfig({}).passwordHashCost).toBe(14);
    expect(loadConfig({ PASSWORD_HASH_COST: "16" }).passwordHashCost).toBe(16);
    expect(loadConfig({ PASSWORD_HASH_COST: "test" }).passwordHashCost).toBe(PASSWORD_HASH_COST.test);
    for (const raw of ["13", "1", "18", "low"]) {
      expect(() => loadConfig({ PASSWORD_HASH_COST: raw })).toThrow(
        /PASSWORD_HASH_COST must be .* from 14 to 17/,
      );
    }
  });

  it("is kept in each hash, so a password still matches after the setting changes", async () => {
    setPasswordHashCost(PASSWORD_HASH_COST.default);
    const strong = await hashPassword("correct horse");
    setPasswordHashCost(PASSWORD_HASH_COST.test);
    const quick = await hashPassword("correct horse");
    expect(strong).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$/);
    expect(quick).toMatch(/^\$scrypt\$ln=1,r=8,p=5\$/);
    for (const stored of [strong, quick]) {
      expect(await verifyPassword("correct horse", stored)).toBe(true);
      expect(await verifyPassword("correct horsE", stored)).toBe(false);
    }
  });
});
