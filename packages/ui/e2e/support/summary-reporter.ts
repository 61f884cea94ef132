import type { Reporter, TestCase } from "@playwright/test/reporter";

// CI reads a closing `N passed, N failed` line, as the Vitest run prints one.
export default class SummaryReporter implements Reporter {
  private readonly tests: TestCase[] = [];

  onTestEnd(test: TestCase): void {
    if (!this.tests.includes(test)) this.tests.push(test);
  }

  onEnd(): void {
    const outcomes = this.tests.map((test) => test.outcome());
    const passed = outcomes.filter((outcome) => outcome === "expected" || outcome === "flaky").length;
    const failed = outcomes.filter((outcome) => outcome === "unexpected").length;
    const skipped = outcomes.filter((outcome) => outcome === "skipped").length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
  }
}
