/**
 * Which build the bench starts first. The throughput part drew it with a coin for each run, so that two
 * runs could both start this build first, and the scale and hostile parts of `--compare` started this
 * build first in every case: the server started first cost more in 5 of 6 throughput runs.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLES_DIR } from "../../bench/catalogs.js";
import { type HostileRow, hostileTable, type Measured } from "../../bench/hostile.js";
import type { LoadResult } from "../../bench/load.js";
import { formatMarkdown } from "../../bench/report.js";
import type { SavedIndexStart, ScaleRow } from "../../bench/scale.js";
import { type START_ORDER_PLANS, startOrderOf, thisBuildFirst } from "../../bench/start-order.js";
import { buildsOf, measureThroughput, rowGroups } from "../../bench/throughput.js";
import { TEST_MACHINE } from "./machine.js";

describe("the start order planned for a part's rows", () => {
  it("starts this build first in every other row under alternate, and in none or all under the others", () => {
    const firsts = (plan: (typeof START_ORDER_PLANS)[number]) =>
      Array.from({ length: 6 }, (_, row) => thisBuildFirst(plan, row));
    expect(firsts("alternate")).toEqual([true, false, true, false, true, false]);
    expect(firsts("this-first")).toEqual(Array(6).fill(true));
    expect(firsts("other-first")).toEqual(Array(6).fill(false));
  });

  it("reverses every build's place, so that the compared build and the control each start first too", () => {
    const builds = buildsOf({ control: true, baseline: "1234abc" });
    expect(startOrderOf(builds, "alternate", 0)).toEqual(["server", "control", "baseline"]);
    expect(startOrderOf(builds, "alternate", 1)).toEqual(["baseline", "control", "server"]);
    expect(startOrderOf(builds, "other-first", 0)).toEqual(["baseline", "control", "server"]);
  });

  // A run of one request (`--requests list-skills-new-query`) is still measured in both orders.
  it("groups the throughput rows by request and connection count, each request's eras together", () => {
    const scenarios = [
      { id: "tools-list-2025", era: "2025" },
      { id: "read-skill-2025", era: "2025" },
      { id: "tools-list-2026-07-28", era: "2026-07-28" },
    ] as const;
    const groups = rowGroups(scenarios, [16, 64]).map(({ scenarios: group, connections }) => ({
      ids: group.map(({ id }) => id),
      connections,
    }));
    expect(groups).toEqual([
      { ids: ["read-skill-2025"], connections: 16 },
      { ids: ["read-skill-2025"], connections: 64 },
      { ids: ["tools-list-2025", "tools-list-2026-07-28"], connections: 16 },
      { ids: ["tools-list-2025", "tools-list-2026-07-28"], connections: 64 },
    ]);
  });
});

describe("npm run bench -- --only throughput --control --requests tools-list", () => {
  it("starts the servers anew in the other order for the next connection count, and records each row's order", async () => {
    const workDir = await mkdtemp(path.join(tmpdir(), "skills-mcp-start-order-"));
    const progress: string[] = [];
    try {
      const report = await measureThroughput({
        skillsDir: EXAMPLES_DIR,
        connections: [1, 2],
        // Short: what is checked is the order, not the figures.
        seconds: 0.3,
        rounds: 1,
        warmUpSeconds: 0.3,
        workDir,
        progress: (line) => progress.push(line),
        control: true,
        startOrder: "alternate",
        requests: ["tools-list"],
      });
      expect(progress.filter((line) => line.includes("servers started"))).toEqual([
        "  servers started: server, control",
        "  servers started: control, server",
      ]);
      expect(report.rows.map(({ era, connections, startOrder }) => [era, connections, startOrder])).toEqual([
        ["2025", 1, ["server", "control"]],
        ["2025", 2, ["control", "server"]],
        ["2026-07-28", 1, ["server", "control"]],
        ["2026-07-28", 2, ["control", "server"]],
      ]);
      expect(report.startOrderPlan).toBe("alternate");
      // The shape scripts read: the order the servers first started in.
      expect(report.startOrder).toEqual(["server", "control"]);
      const printed = formatMarkdown({
        machine: TEST_MACHINE,
        seconds: 1,
        throughput: { ...report, catalog: "examples/skills" },
      });
      expect(printed).toContain(
        "Servers started anew for each request at each connection count, in the order server, control for 2 rows; control, server for 2 rows.",
      );
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    // Four servers and the ceiling start, on a machine that may be busy with other work.
  }, 180_000);
});

function started(readyMs: number): SavedIndexStart {
  return {
    saveMs: 900,
    saveInspectionMs: 100,
    bytes: 2 ** 20,
    readyMs,
    residentAfterStartBytes: 2 ** 26,
    firstToolsListMs: 5,
  };
}

function load(): LoadResult {
  return {
    connections: 16,
    seconds: 3,
    requests: 300,
    requestsPerSecond: 100,
    p50Ms: 1,
    p99Ms: 2,
    errors: 0,
    non2xx: 0,
  };
}

function scaleRow(skills: number, savedIndexStartOrder: readonly string[]): ScaleRow {
  return {
    skills,
    packs: 10,
    readyMs: 1000,
    residentAfterStartBytes: 2 ** 26,
    residentAfterLoadBytes: 2 ** 26,
    firstCalls: { toolsListMs: 3, listPacksMs: 4 },
    query: { count: 200, p50Ms: 1, p99Ms: 2, maxMs: 3 },
    mixedLoad: load(),
    toolsListBytes: 2048,
    toolsListTokens: 500,
    listPacksBytes: 1024,
    listPacksTokens: 250,
    savedIndex: started(800),
    savedIndexBaseline: { ...started(700), build: "1234abc" },
    savedIndexStartOrder,
  };
}

describe("npm run bench -- --only scale,hostile --compare <ref>", () => {
  it("says of each size's saved-index starts which build started first", () => {
    const printed = formatMarkdown({
      machine: TEST_MACHINE,
      seconds: 1,
      scale: [scaleRow(1000, ["server", "1234abc"]), scaleRow(10000, ["1234abc", "server"])],
    });
    const savedIndexTable = printed.slice(printed.indexOf("**On a saved index**"));
    const started = savedIndexTable
      .split("\n")
      .filter((line) => /^\| \d/.test(line))
      .map((line) => [line.split(" | ")[0], line.split(" | ").at(-1)]);
    expect(started).toEqual([
      ["| 1000", "1st |"],
      ["| 1000, 1234abc", "2nd |"],
      ["| 10000", "2nd |"],
      ["| 10000, 1234abc", "1st |"],
    ]);
  });

  it("says of each hostile step which build started first", () => {
    const ready: Measured = { outcome: "ready", ms: 500, peakRssBytes: 2 ** 26 };
    const row = (size: string, startOrder: readonly string[]): HostileRow => ({
      kind: "base64, one line",
      size,
      bytes: 2 ** 20,
      start: ready,
      audit: { outcome: "exited", ms: 300, peakRssBytes: 2 ** 26, exitCode: 0 },
      baselineStart: ready,
      startOrder,
    });
    const table = hostileTable(
      [row("1 MiB", ["server", "1234abc"]), row("2 MiB", ["1234abc", "server"])],
      30,
      "1234abc",
    );
    const firsts = table
      .split("\n")
      .filter((line) => line.startsWith("| base64"))
      .map((line) => line.split(" | ").at(-1));
    expect(firsts).toEqual(["this build |", "1234abc |"]);
  });
});
