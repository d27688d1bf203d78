import type { FastifyInstance } from "fastify";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { Catalog } from "../catalog/index.js";
import { TOOL_NAMES } from "../mcp/index.js";
import { CountSeries, counterText, DurationSeries, histogramText } from "./series.js";

/** Tool label values: the fixed tools, and "other" for every other method or an unknown tool. */
const TOOL_LABELS = [...TOOL_NAMES, "other"] as const;
type ToolLabel = (typeof TOOL_LABELS)[number];
const OUTCOMES = ["ok", "error", "rejected"] as const;
/**
 * ok: answered; error: a JSON-RPC error, a tool result with isError, or a server fault;
 * rejected: refused at the HTTP edge (origin, host, key, rate limit, load, bad request).
 */
export type Outcome = (typeof OUTCOMES)[number];

const KNOWN_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);

export function toolLabel(tool: string | undefined): ToolLabel {
  return tool !== undefined && KNOWN_TOOLS.has(tool) ? (tool as ToolLabel) : "other";
}

/** Route label values: the server's routes, and "other" for any other path, however a client spells it. */
const ROUTES = ["/mcp", "/health", "/metrics"] as const;
type RouteLabel = (typeof ROUTES)[number] | "other";
const KNOWN_ROUTES: ReadonlySet<string> = new Set(ROUTES);
/** Method label values: what browsers, agents and probes send, and "other" for the rest HTTP allows. */
const METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The route of a request target: its path without the query and one trailing slash (the router takes
 * `/mcp/` for `/mcp`), when it is one of the server's routes, else "other", so that a scan of made-up
 * paths adds no series.
 */
function routeLabel(target: string | undefined): RouteLabel {
  if (target === undefined) return "other";
  const query = target.indexOf("?");
  let route = query === -1 ? target : target.slice(0, query);
  if (route.length > 1 && route.endsWith("/")) route = route.slice(0, -1);
  return KNOWN_ROUTES.has(route) ? (route as RouteLabel) : "other";
}

function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : "other";
}

const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const REQUESTS = {
  name: "skills_mcp_requests_total",
  help: "MCP requests on /mcp by tool (or other) and outcome (ok, error, rejected).",
};
const DURATIONS = {
  name: "skills_mcp_request_duration_seconds",
  help: "Time to answer an MCP request on /mcp, by tool (or other).",
};
// Every answer of the server, not only POST /mcp's: a 405 to GET /mcp, /health, a refusal before the MCP
// layer (400, 413, 429), a 404. The metrics above keep their labels, which dashboards query.
const HTTP_REQUESTS = {
  name: "skills_mcp_http_requests_total",
  help: "HTTP answers by route (/mcp, /health, /metrics, or other), method and status.",
};
const HTTP_DURATIONS = {
  name: "skills_mcp_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by route, method and status.",
};

interface HttpSeries {
  count: CountSeries;
  time: DurationSeries;
}

/**
 * Prometheus metrics of one app. The per-answer series are plain numbers (./series.ts), found by their
 * labels without building a key; the catalog, the build and the process are prom-client's, in their own
 * registry. Label values come from fixed lists only, so no client adds a series.
 */
export class Metrics {
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly #registry = new Registry();
  readonly #requests = new Map<ToolLabel, Map<Outcome, CountSeries>>();
  readonly #durations = new Map<ToolLabel, DurationSeries>();
  readonly #httpSeries = new Map<RouteLabel, Map<string, Map<number, HttpSeries>>>();

  constructor(catalog: Catalog, version: string) {
    collectDefaultMetrics({ register: this.#registry });
    for (const tool of TOOL_LABELS) {
      this.#durations.set(tool, new DurationSeries(`tool="${tool}"`, DURATION_BUCKETS));
      const byOutcome = OUTCOMES.map(
        (outcome) => [outcome, new CountSeries(`tool="${tool}",outcome="${outcome}"`)] as const,
      );
      this.#requests.set(tool, new Map(byOutcome));
    }
    new Gauge({
      name: "skills_mcp_catalog_skills",
      help: "Skills loaded.",
      registers: [this.#registry],
    }).set(catalog.everything.skills.length);
    new Gauge({
      name: "skills_mcp_catalog_packs",
      help: "Skill packs loaded.",
      registers: [this.#registry],
    }).set(catalog.everything.packs.length);
    new Gauge({
      name: "skills_mcp_build_info",
      help: "Always 1; the version label says which build runs.",
      labelNames: ["version"],
      registers: [this.#registry],
    })
      .labels(version)
      .set(1);
  }

  record(tool: ToolLabel, outcome: Outcome, seconds: number): void {
    this.#requests.get(tool)?.get(outcome)?.inc();
    this.#durations.get(tool)?.observe(seconds);
  }

  /**
   * One HTTP answer, by the request's method and target (either unknown for bytes Node could not read as a
   * request); `seconds` undefined for an answer Node gave before the server had the request, counted only.
   */
  recordHttp(method: string | undefined, target: string | undefined, status: number, seconds?: number): void {
    const route = routeLabel(target);
    const verb = methodLabel(method);
    let byMethod = this.#httpSeries.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#httpSeries.set(route, byMethod);
    }
    let byStatus = byMethod.get(verb);
    if (byStatus === undefined) {
      byStatus = new Map();
      byMethod.set(verb, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      const labels = `route="${route}",method="${verb}",status="${status}"`;
      series = { count: new CountSeries(labels), time: new DurationSeries(labels, DURATION_BUCKETS) };
      byStatus.set(status, series);
    }
    series.count.inc();
    if (seconds !== undefined) series.time.observe(seconds);
  }

  /** Every metric in the Prometheus text format. */
  async text(): Promise<string> {
    const http = [...this.#httpSeries.values()].flatMap((byMethod) =>
      [...byMethod.values()].flatMap((byStatus) => [...byStatus.values()]),
    );
    const requests = [...this.#requests.values()].flatMap((byOutcome) => [...byOutcome.values()]);
    const families = [
      // Five tools by three outcomes, from the start: an alert on the rate of errors sees the first one.
      counterText({ ...REQUESTS, series: requests }, true),
      histogramText({ ...DURATIONS, series: this.#durations.values() }),
      counterText({ ...HTTP_REQUESTS, series: http.map(({ count }) => count) }),
      histogramText({ ...HTTP_DURATIONS, series: http.map(({ time }) => time) }),
    ];
    return `${await this.#registry.metrics()}\n${families.join("\n\n")}\n`;
  }
}

/** `GET /metrics` in the Prometheus text format, on the service port. */
export async function metricsRoutes(app: FastifyInstance, options: { metrics: Metrics }): Promise<void> {
  const { metrics } = options;
  app.get("/metrics", async (_request, reply) => {
    reply.type(metrics.contentType);
    return metrics.text();
  });
}
