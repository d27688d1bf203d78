import type { FastifyInstance } from "fastify";
import type { Catalog } from "../catalog/index.js";
import type { Readiness } from "./readiness.js";

export interface HealthRouteOptions {
  readonly catalog: Catalog;
  readonly version: string;
  readonly readiness: Readiness;
}

const healthSchema = {
  type: "object",
  required: ["status", "version", "packs", "skills"],
  properties: {
    status: { type: "string" },
    version: { type: "string" },
    packs: { type: "array", items: { type: "string" } },
    skills: { type: "integer" },
    sources: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "ref"],
        properties: { name: { type: "string" }, ref: { type: "string" } },
      },
    },
  },
} as const;

/**
 * `GET /health`: what this replica serves, for probes and operators; not narrowed by any ceiling.
 * Once shutdown begins it answers 503 with status "draining", so readiness fails before the server
 * stops accepting requests.
 */
export async function healthRoutes(app: FastifyInstance, options: HealthRouteOptions): Promise<void> {
  const { everything, sources } = options.catalog;
  const body = {
    status: "ok",
    version: options.version,
    packs: everything.packs.map((pack) => pack.name),
    skills: everything.skills.length,
    ...(sources.length > 0 ? { sources } : {}),
  };
  const draining = { ...body, status: "draining" };
  const { readiness } = options;
  app.get(
    "/health",
    { schema: { response: { 200: healthSchema, 503: healthSchema } } },
    async (_request, reply) => {
      if (!readiness.draining) return body;
      reply.code(503);
      return draining;
    },
  );
}
