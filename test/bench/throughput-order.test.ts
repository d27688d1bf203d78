import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load.js";
import { type BenchResults, cpuSpread, formatMarkdown, type Spread } from "../../bench/report.js";
import { type Side, type ThroughputRow, turnOrder } from "../../bench/throughput.js";
import { TEST_MACHINE } from "./machine.js";

const SIDES: readonly Side[] = ["ceiling", "baseline", "control", "server"];

/** The turns a run of `turns` turns plans, each the sides in the order measured. */
function plannedTurns(turns: number): Side[][] {
  return Array.from({ length: turns }, (_, turn) => turnOrder(SIDES, turn));
}

/** Whether `a` is measured before `b` in `order`. */
const before = (order: readonly Side[], a: Side, b: Side) => order.indexOf(a) < order.indexOf(b);

// The current build was measured after the ceiling and the compared build in every turn, and came out
// 5-20% dearer, run after run: whatever going last costs fell on it alone.
describe("the throughput bench's turns", () => {
  it("measure every side in every turn, each pair of sides in the other order from one turn to the next", () => {
    const turns = plannedTurns(6);
    for (const order of turns) expect([...order].sort()).toEqual([...SIDES].sort());
    for (const [a, b] of [
      ["server", "baseline"],
      ["server", "control"],
      ["server", "ceiling"],
      ["control", "baseline"],
    ] as const) {
      const firsts = turns.map((order) => before(order, a, b));
      expect(firsts.slice(1).every((first, turn) => first !== firsts[turn])).toBe(true);
      // Over an even count of turns, each goes first in half of them.
      expect(firsts.filter(Boolean)).toHaveLength(3);
    }
  });
});

function load(requestsPerSecond: number, cpuMicrosPerRequest: number): LoadResult {
  return {
    connections: 16,
    seconds: 3,
    requests: requestsPerSecond * 3,
    requestsPerSecond,
    p50Ms: 1,
    p99Ms: 2,
    errors: 0,
    non2xx: 0,
    cpuMicrosPerRequest,
  };
}

/** A row where this build cost `server` µs a request, its second copy `control` and the older build `baseline`. */
function row(server: number, control: number, baseline: number): ThroughputRow {
  return {
    scenario: "tools-list-2025",
    label: "tools/list",
    era: "2025",
    connections: 16,
    responseBytes: 2048,
    server: load(1000, server),
    ceiling: load(4000, 20),
    ratio: 0.25,
    baseline: { ...load(1100, baseline), ratio: 0.275 },
    control: { ...load(990, control), ratio: 0.2475 },
  };
}

describe("npm run bench -- --only throughput --compare <ref> --control", () => {
  const rows = [row(100, 104, 90), row(200, 190, 180), row(100, 101, 85)];
  const results: BenchResults = {
    machine: TEST_MACHINE,
    seconds: 60,
    throughput: {
      skillsDir: "examples/skills",
      catalog: "examples/skills",
      baseline: "1234abc",
      startOrder: ["1234abc", "control", "server"],
      rows,
      serverResidentBytes: { afterStart: 2 ** 27, afterLoad: 2 ** 27 },
    },
  };

  it("tells how far the control and the compared build are from this build, row by row", () => {
    const rounded = (spread: Spread | undefined) =>
      spread &&
      Object.fromEntries(Object.entries(spread).map(([key, value]) => [key, Math.round(value * 100)]));
    expect(rounded(cpuSpread(rows, (each) => each.control))).toEqual({ least: -5, median: 1, most: 4 });
    expect(rounded(cpuSpread(rows, (each) => each.baseline))).toEqual({ least: -15, median: -10, most: -10 });
    expect(cpuSpread(rows, () => undefined)).toBeUndefined();
  });

  it("prints the control's columns after the compared build's, and its spread next to the comparison", () => {
    const printed = formatMarkdown(results);
    const [header = "", , first = ""] = printed.split("\n").filter((line) => line.startsWith("|"));
    const columns = header.split(" | ");
    expect(columns.slice(0, 3)).toEqual(["| era", "request", "answer"]);
    expect(columns.slice(-7)).toEqual([
      "1234abc req/s",
      "1234abc ratio",
      "1234abc p50 / p99 ms",
      "1234abc CPU µs/req",
      "control req/s",
      "control ratio",
      "control CPU µs/req |",
    ]);
    expect(first.endsWith("| 1100 | 28% | 1.00 / 2.00 | 90 | 990 | 25% | 104 |")).toBe(true);
    expect(printed).toContain(
      "CPU µs/req over this build's, row by row: the control −5% to +4% (median +1%); 1234abc −15% to −10% (median −10%).",
    );
    expect(printed).toContain("Servers started in this order: 1234abc, control, server.");
    expect(printed).toContain("in the order ceiling, 1234abc, control, server in the run's even turns");
  });
});
