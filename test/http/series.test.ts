import { describe, expect, it } from "vitest";
import { CountSeries, counterText, DurationSeries, histogramText } from "../../src/http/series.js";

describe("series written out at scrape", () => {
  it("writes a histogram's buckets cumulative, with +Inf, the sum and the count, as Prometheus reads them", () => {
    const fast = new DurationSeries('tool="read_skill"', [0.001, 0.01, 1]);
    for (const seconds of [0.0004, 0.001, 0.004, 0.5, 3]) fast.observe(seconds);
    const idle = new DurationSeries('tool="list_packs"', [0.001, 0.01, 1]);
    const text = histogramText({ name: "d_seconds", help: "Time.", series: [fast, idle] });
    expect(text.split("\n")).toEqual([
      "# HELP d_seconds Time.",
      "# TYPE d_seconds histogram",
      'd_seconds_bucket{le="0.001",tool="read_skill"} 2',
      'd_seconds_bucket{le="0.01",tool="read_skill"} 3',
      'd_seconds_bucket{le="1",tool="read_skill"} 4',
      'd_seconds_bucket{le="+Inf",tool="read_skill"} 5',
      'd_seconds_sum{tool="read_skill"} 3.5054',
      'd_seconds_count{tool="read_skill"} 5',
    ]);
  });

  it("writes the counters counted at least once, each with its labels", () => {
    const ok = new CountSeries('tool="read_skill",outcome="ok"');
    const error = new CountSeries('tool="read_skill",outcome="error"');
    ok.inc();
    ok.inc();
    expect(counterText({ name: "r_total", help: "Requests.", series: [ok, error] }).split("\n")).toEqual([
      "# HELP r_total Requests.",
      "# TYPE r_total counter",
      'r_total{tool="read_skill",outcome="ok"} 2',
    ]);
  });
});
