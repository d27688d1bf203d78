/**
 * Labelled series kept in plain numbers and written out in the Prometheus text format at scrape. prom-client
 * validates and hashes a series' labels at every record; these are found once, by the caller, and a record
 * only adds (docs/performance.md, *Counting every answer*).
 */

/** One counter series. `labels` is its label set as written: `tool="read_skill",outcome="ok"`. */
export class CountSeries {
  value = 0;
  constructor(readonly labels: string) {}

  inc(): void {
    this.value++;
  }
}

/** One histogram series: observations by bucket, not yet cumulative, and their count and sum. */
export class DurationSeries {
  count = 0;
  sum = 0;
  readonly #perBucket: Float64Array;

  constructor(
    readonly labels: string,
    readonly bounds: readonly number[],
  ) {
    this.#perBucket = new Float64Array(bounds.length);
  }

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    // A loop, not findIndex: no closure on every answer. Past the last bound, only the count holds it.
    for (let bucket = 0; bucket < this.bounds.length; bucket++) {
      if (seconds <= (this.bounds[bucket] ?? Number.POSITIVE_INFINITY)) {
        this.#perBucket[bucket] = (this.#perBucket[bucket] ?? 0) + 1;
        return;
      }
    }
  }

  /** Observations at or under each bound, in the bounds' order. */
  cumulative(): number[] {
    let total = 0;
    return Array.from(this.#perBucket, (inBucket) => (total += inBucket));
  }
}

interface Family<Series> {
  name: string;
  help: string;
  series: Iterable<Series>;
}

/**
 * A counter family as prom-client writes one, with only the series counted at least once; or, `withZeros`,
 * every series, for labels known in advance: a series that appears at its first count is not seen to grow
 * by rate() or increase(), so a replica's first error went unalerted.
 */
export function counterText({ name, help, series }: Family<CountSeries>, withZeros = false): string {
  const lines = header(name, help, "counter");
  for (const { labels, value } of series) {
    if (value > 0 || withZeros) lines.push(`${name}{${labels}} ${value}`);
  }
  return lines.join("\n");
}

/** A histogram family as prom-client writes one, with only the series observed at least once. */
export function histogramText({ name, help, series }: Family<DurationSeries>): string {
  const lines = header(name, help, "histogram");
  for (const timing of series) {
    if (timing.count === 0) continue;
    const { labels, bounds, count, sum } = timing;
    timing.cumulative().forEach((atOrUnder, index) => {
      lines.push(`${name}_bucket{le="${bounds[index]}",${labels}} ${atOrUnder}`);
    });
    lines.push(`${name}_bucket{le="+Inf",${labels}} ${count}`, `${name}_sum{${labels}} ${sum}`);
    lines.push(`${name}_count{${labels}} ${count}`);
  }
  return lines.join("\n");
}

function header(name: string, help: string, type: string): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
}
