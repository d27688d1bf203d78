import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Catalog } from "../catalog/index.js";
import { TOOL_NAMES } from "../mcp/index.js";

/** Tool label values: the fixed tools, and "other" for every other method or an unknown tool. */
const TOOL_LABELS = [...TOOL_NAMES, "other"] as const;
export type ToolLabel = (typeof TOOL_LABELS)[number];
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

type Increment = { inc(): void };
type Observe = { observe(value: number): void };

/**
 * Prometheus metrics of one app, in their own registry. Label values come from fixed lists only, and
 * each series' child is looked up once here, so recording a request allocates nothing.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new Map<ToolLabel, Map<Outcome, Increment>>();
  readonly #durations = new Map<ToolLabel, Observe>();

  constructor(catalog: Catalog, version: string) {
    collectDefaultMetrics({ register: this.registry });
    const requests = new Counter({
      name: "skills_mcp_requests_total",
      help: "MCP requests on /mcp by tool (or other) and outcome (ok, error, rejected).",
      labelNames: ["tool", "outcome"],
      registers: [this.registry],
    });
    const durations = new Histogram({
      name: "skills_mcp_request_duration_seconds",
      help: "Time to answer an MCP request on /mcp, by tool (or other).",
      labelNames: ["tool"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    for (const tool of TOOL_LABELS) {
      this.#durations.set(tool, durations.labels(tool));
      this.#requests.set(tool, new Map(OUTCOMES.map((outcome) => [outcome, requests.labels(tool, outcome)])));
    }
    new Gauge({
      name: "skills_mcp_catalog_skills",
      help: "Skills loaded.",
      registers: [this.registry],
    }).set(catalog.everything.skills.length);
    new Gauge({
      name: "skills_mcp_catalog_packs",
      help: "Skill packs loaded.",
      registers: [this.registry],
    }).set(catalog.everything.packs.length);
    new Gauge({
      name: "skills_mcp_build_info",
      help: "Always 1; the version label says which build runs.",
      labelNames: ["version"],
      registers: [this.registry],
    })
      .labels(version)
      .set(1);
  }

  record(tool: ToolLabel, outcome: Outcome, seconds: number): void {
    this.#requests.get(tool)?.get(outcome)?.inc();
    this.#durations.get(tool)?.observe(seconds);
  }
}

/** `GET /metrics` in the Prometheus text format, on the service port. */
export async function metricsRoutes(app: FastifyInstance, options: { metrics: Metrics }): Promise<void> {
  const { registry } = options.metrics;
  app.get("/metrics", async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
