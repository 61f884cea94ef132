import { describe, expect, it } from "vitest";
import { browserSnippet, nodeSnippet, openFeatureServerSnippet, openFeatureWebSnippet } from "./snippets";

describe("SDK snippets", () => {
  it("give each SDK the service's address for its API and the token where it reads one", () => {
    const node = nodeSnippet("https://flags.example", 'de"fault:development.x');
    expect(node.code).toContain('url: "https://flags.example/api"');
    // The token is a string literal whatever it holds.
    expect(node.code).toContain('customHeaders: { Authorization: "de\\"fault:development.x" }');
    const browser = browserSnippet("https://flags.example", "default:development.y");
    expect(browser.code).toContain('url: "https://flags.example/api/frontend"');
    expect(browser.code).toContain('clientKey: "default:development.y"');
    for (const openFeature of [
      openFeatureWebSnippet("https://flags.example", "default:development.y"),
      openFeatureServerSnippet("https://flags.example", "default:development.y"),
    ]) {
      expect(openFeature.install).toMatch(/@openfeature\/ofrep-(web-)?provider/);
      // OFREP's paths start at the service's root.
      expect(openFeature.code).toContain('baseUrl: "https://flags.example"');
      expect(openFeature.code).toContain('headers: [["Authorization", "default:development.y"]]');
    }
  });
});
