import { describe, expect, it } from "vitest";
import { inputFromParams, paramsFromInput, requestFromInput } from "./playground-query";

describe("the playground's address", () => {
  it("holds environments, projects and the context, and gives them back", () => {
    const params = new URLSearchParams(
      "environment=development&environment=production&project=shop&context.userId=alice,bob&context.tier=pro&context.region=eu",
    );
    const input = inputFromParams(params);
    expect(input).toEqual({
      environments: ["development", "production"],
      projects: ["shop"],
      context: { appName: "", userId: "alice,bob", sessionId: "", remoteAddress: "", currentTime: "" },
      properties: [
        { name: "tier", value: "pro" },
        { name: "region", value: "eu" },
      ],
    });
    expect(paramsFromInput(input).toString()).toBe(params.toString());
  });

  it("asks for every project when none is chosen, for a named application, custom fields as properties", () => {
    const input = inputFromParams(
      new URLSearchParams(
        "environment=production&context.userId=alice&context.tier=pro&context.currentTime=2030-01-01T00:00:00.000Z",
      ),
    );
    expect(requestFromInput(input)).toEqual({
      environments: ["production"],
      projects: "*",
      context: {
        appName: "playground",
        userId: "alice",
        currentTime: "2030-01-01T00:00:00.000Z",
        properties: { tier: "pro" },
      },
    });
  });

  it("sends each comma-separated value without the spaces around it, and drops empty ones", () => {
    const input = inputFromParams(
      new URLSearchParams("environment=production&context.userId= alice , bob,,&context.zone=eu-0, eu-2"),
    );
    expect(requestFromInput(input)?.context).toEqual({
      appName: "playground",
      userId: "alice,bob",
      properties: { zone: "eu-0,eu-2" },
    });
  });

  it("asks nothing without an environment", () => {
    expect(requestFromInput(inputFromParams(new URLSearchParams("context.userId=alice")))).toBeNull();
  });
});
