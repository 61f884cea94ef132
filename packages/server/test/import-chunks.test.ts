import { describe, expect, it } from "vitest";
import { ChunkTooLarge, type ImportBody, importChunks } from "../src/import-chunks.js";

// How `signalbox import` cuts a file into requests under the service's body limit.

const file = (count: number): ImportBody => {
  const names = Array.from({ length: count }, (_, i) => `flag-${i}`);
  return {
    project: "default",
    environment: "development",
    data: {
      features: names.map((name) => ({ name, description: "x".repeat(100) })),
      featureStrategies: names.map((name) => ({ name: "default", featureName: name })),
      featureEnvironments: names.map((name) => ({ name, enabled: true })),
      featureTags: names.map((name) => ({ featureName: name, tagType: "team", tagValue: "web" })),
      tagTypes: [{ name: "team" }],
      segments: [{ id: 1, name: "beta" }],
      // The last flag is every other's parent.
      dependencies: names
        .slice(0, -1)
        .map((name) => ({ feature: name, dependencies: [{ feature: names.at(-1) }] })),
    },
  };
};
const size = (body: ImportBody) => Buffer.byteLength(JSON.stringify(body));

describe("import chunks", () => {
  it("sends a file that fits as it is", () => {
    const body = file(3);
    expect(importChunks(body, 100 * 1024)).toEqual([{ body, flags: ["flag-0", "flag-1", "flag-2"] }]);
  });

  it("cuts a larger file by flags, each whole, parents first, what they share in every request", () => {
    const body = file(300);
    const chunks = importChunks(body, 20 * 1024);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]!.flags[0]).toBe("flag-299");
    for (const { body: part, flags } of chunks) {
      expect(size(part)).toBeLessThanOrEqual(20 * 1024);
      expect(part.data.tagTypes).toEqual([{ name: "team" }]);
      expect(part.data.segments).toEqual([{ id: 1, name: "beta" }]);
      for (const list of ["featureStrategies", "featureTags"] as const) {
        const named = (part.data[list] as { featureName: string }[]).map((entry) => entry.featureName);
        expect(named).toEqual(flags);
      }
      expect((part.data.featureEnvironments as { name: string }[]).map((entry) => entry.name)).toEqual(flags);
    }
    const sent = chunks.flatMap((chunk) => chunk.flags);
    expect(sent.sort()).toEqual(body.data.features.map((feature) => feature.name as string).sort());
  });

  it("names a flag that alone is over the limit", () => {
    const body = file(2);
    body.data.features[1]!.description = "x".repeat(30 * 1024);
    expect(() => importChunks(body, 20 * 1024)).toThrow(ChunkTooLarge);
    expect(() => importChunks(body, 20 * 1024)).toThrow(/flag flag-1/);
  });
});
