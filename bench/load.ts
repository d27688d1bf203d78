/** Load generation over real HTTP on 127.0.0.1: autocannon for throughput, one keep-alive socket for latency. */
import http from "node:http";
import autocannon from "autocannon";

export interface HttpPost {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Under load, each `[<id>]` in the body becomes a new id for every request (autocannon's idReplacement). */
  readonly body: string;
}

/**
 * The protocol era a request speaks: `2025` as a client that has initialized sends it, `2026-07-28` with
 * its per-request envelope and the headers that repeat its method and name.
 */
export type Era = "2025" | "2026-07-28";
export const ERAS: readonly Era[] = ["2025", "2026-07-28"];

const COMMON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The per-request envelope of a 2026-07-28 request, in `params._meta`. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "skills-mcp-bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * A request of `era`, with a new id for every request sent under load (counted up by autocannon, as a
 * client counts its ids): `[<id>]` in the body is replaced each time.
 */
export function mcpPost(method: string, params?: Record<string, unknown>, era: Era = "2025"): HttpPost {
  const path = "/mcp";
  if (era === "2025") {
    return {
      path,
      headers: { ...COMMON_HEADERS, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "[<id>]", method, ...(params ? { params } : {}) }),
    };
  }
  const headers: Record<string, string> = {
    ...COMMON_HEADERS,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (typeof params?.name === "string") headers["mcp-name"] = params.name;
  return {
    path,
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: "[<id>]", method, params: { ...params, _meta: MODERN_META } }),
  };
}

export function toolCall(name: string, args: Record<string, string> = {}, era: Era = "2025"): HttpPost {
  return mcpPost("tools/call", { name, arguments: args }, era);
}

export interface LoadResult {
  readonly connections: number;
  readonly seconds: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Connection errors and timeouts. */
  readonly errors: number;
  readonly non2xx: number;
  /** CPU time the answering process spent per request, in µs, when it was measured. */
  readonly cpuMicrosPerRequest?: number;
}

/** One run's raw figures, to be combined with other runs of the same load. */
export interface LoadRun {
  readonly connections: number;
  readonly seconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly non2xx: number;
  /** Every response's latency in ms, with sub-millisecond precision (autocannon's histogram rounds). */
  readonly latencies: readonly number[];
  /** CPU time of the answering process during the run, in ms, when it was measured. */
  readonly cpuMs?: number;
}

/** Keeps `connections` connections busy for `seconds`, cycling through `requests`. */
export async function runLoad(
  url: string,
  requests: readonly HttpPost[],
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  return summarize([await loadRun(url, requests, connections, seconds)]);
}

export async function loadRun(
  url: string,
  requests: readonly HttpPost[],
  connections: number,
  seconds: number,
  target?: { cpuMs(): number },
): Promise<LoadRun> {
  const latencies: number[] = [];
  const cpuBefore = target?.cpuMs();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        timeout: 10,
        idReplacement: true,
        requests: requests.map((request) => ({
          method: "POST" as const,
          path: request.path,
          headers: { ...request.headers },
          body: request.body,
        })),
      },
      (error: unknown, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  });
  return {
    connections,
    seconds: result.duration,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    latencies,
    ...(target && cpuBefore !== undefined ? { cpuMs: target.cpuMs() - cpuBefore } : {}),
  };
}

/** Several runs of one load as one: requests over the time they all took, quantiles over all responses. */
export function summarize(runs: readonly LoadRun[]): LoadResult {
  const total = (pick: (run: LoadRun) => number) => runs.reduce((sum, run) => sum + pick(run), 0);
  const latencies = runs.flatMap((run) => run.latencies);
  const seconds = total((run) => run.seconds);
  const measured = runs.every((run) => run.cpuMs !== undefined);
  return {
    connections: runs[0]?.connections ?? 0,
    seconds,
    requests: total((run) => run.requests),
    requestsPerSecond: total((run) => run.requests) / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    errors: total((run) => run.errors),
    non2xx: total((run) => run.non2xx),
    ...(measured
      ? { cpuMicrosPerRequest: (total((run) => run.cpuMs ?? 0) * 1000) / total((run) => run.requests) }
      : {}),
  };
}

export interface LatencySample {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/**
 * Sends `requests` one after another on one keep-alive connection and times each end to end (request
 * written to answer read). Throws on any answer that is not 200.
 */
export async function timeOneByOne(url: string, requests: readonly HttpPost[]): Promise<LatencySample> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (const request of requests) {
      const started = performance.now();
      const answer = await post(url, request, agent);
      times.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`${request.body} answered ${answer.status}: ${answer.text}`);
    }
  } finally {
    agent.destroy();
  }
  return {
    count: times.length,
    p50Ms: quantile(times, 0.5),
    p99Ms: quantile(times, 0.99),
    maxMs: Math.max(...times),
  };
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Buffer;
  readonly text: string;
}

export function post(url: string, request: HttpPost, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${url}${request.path}`,
      { method: "POST", headers: request.headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const bytes = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers["content-type"] ?? "",
            bytes,
            text: bytes.toString("utf8"),
          });
        });
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

/** Nearest-rank quantile of `values` (NaN when empty). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}
