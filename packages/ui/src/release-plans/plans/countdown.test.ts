import { describe, expect, it } from "vitest";
import { countdown, minutesText, timeLeft } from "./countdown";

const now = new Date("2026-03-01T12:00:00.000Z");
const after = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe("timeLeft", () => {
  it("says the two largest units that matter, in whole seconds rounded up", () => {
    expect(timeLeft(after(45), now)).toBe("45 s");
    expect(timeLeft(after(44.2), now)).toBe("45 s");
    expect(timeLeft(after(180), now)).toBe("3 min");
    expect(timeLeft(after(200), now)).toBe("3 min 20 s");
    expect(timeLeft(after(3900), now)).toBe("1 h 5 min");
    expect(timeLeft(after(7200), now)).toBe("2 h");
    expect(timeLeft(after(93_600), now)).toBe("1 d 2 h");
  });

  it("is now once due, however late the hand-over is", () => {
    expect(timeLeft(after(0), now)).toBe("now");
    expect(timeLeft(after(-30), now)).toBe("now");
  });
});

describe("countdown", () => {
  it("counts down to the next milestone, then says it is starting", () => {
    expect(countdown(after(200), now)).toBe("Next milestone in 3 min 20 s");
    expect(countdown(after(-1), now)).toBe("Next milestone starting now");
  });
});

describe("minutesText", () => {
  it("says a transition condition's wait as a person would", () => {
    expect(minutesText(1)).toBe("1 minute");
    expect(minutesText(30)).toBe("30 minutes");
    expect(minutesText(60)).toBe("1 hour");
    expect(minutesText(90)).toBe("1 hour 30 minutes");
    expect(minutesText(1440 + 120)).toBe("1 day 2 hours");
  });
});
