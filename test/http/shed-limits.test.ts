import { describe, expect, it } from "vitest";
import { limitsPassed, shedRssWarning } from "../../src/http/mcp-guards.js";
import { httpSettings } from "../helpers/server.js";

const MIB = 1024 * 1024;

describe("the limits a shed request passed", () => {
  it("names each setting passed, its limit and what was measured, and none within its limit", () => {
    const settings = httpSettings({
      SHED_EVENT_LOOP_DELAY_MS: "100",
      SHED_EVENT_LOOP_UTILIZATION: "0.9",
      SHED_RSS_MB: "200",
    });
    const busy = { eventLoopDelay: 250.4, eventLoopUtilized: 0.987, rssBytes: 300 * MIB + 1 };
    expect(limitsPassed(busy, settings)).toEqual([
      { setting: "SHED_EVENT_LOOP_DELAY_MS", limit: 100, measured: 250 },
      { setting: "SHED_RSS_MB", limit: 200, measured: 300 },
      { setting: "SHED_EVENT_LOOP_UTILIZATION", limit: 0.9, measured: 0.99 },
    ]);
    expect(
      limitsPassed({ eventLoopDelay: 50, eventLoopUtilized: 0.5, rssBytes: 100 * MIB }, settings),
    ).toEqual([]);
  });

  it("passes no limit that is off", () => {
    const off = httpSettings({ SHED_EVENT_LOOP_DELAY_MS: "0" });
    expect(limitsPassed({ eventLoopDelay: 5000, eventLoopUtilized: 1, rssBytes: 4096 * MIB }, off)).toEqual(
      [],
    );
  });
});

describe("SHED_RSS_MB at startup", () => {
  it("is warned of when below what the server holds, and not when above it or off", () => {
    expect(shedRssWarning(httpSettings({ SHED_RSS_MB: "100" }), 120.5 * MIB)).toBe(
      "SHED_RSS_MB 100 is below the 121 MiB the server holds once ready: /mcp answers every request 503 " +
        "until it is raised; set it well above 121, and below the container's memory limit",
    );
    expect(shedRssWarning(httpSettings({ SHED_RSS_MB: "200" }), 120 * MIB)).toBeUndefined();
    expect(shedRssWarning(httpSettings({}), 120 * MIB)).toBeUndefined();
  });
});
