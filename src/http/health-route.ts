import type { FastifyInstance } from "fastify";
import type { Catalog } from "../catalog/index.js";
import type { Readiness } from "./readiness.js";

interface HealthRouteOptions {
  readonly catalog: Catalog;
  readonly version: string;
  readonly readiness: Readiness;
  /** How many of the catalog's skills the MCP Skills extension carries. */
  readonly extensionSkills: number;
  /** Skills a high finding of the audit makes unsafe: left out, or served as UNSAFE_SKILLS=serve asked. */
  readonly unsafeSkills: { readonly leftOut: number; readonly served: number };
}

const healthSchema = {
  type: "object",
  required: ["status", "version", "packs", "skills", "skillsExtension", "unsafeSkills", "invocationFlags"],
  properties: {
    status: { type: "string" },
    version: { type: "string" },
    packs: { type: "array", items: { type: "string" } },
    skills: { type: "integer" },
    skillsExtension: {
      type: "object",
      required: ["skills", "leftOut"],
      properties: { skills: { type: "integer" }, leftOut: { type: "integer" } },
    },
    unsafeSkills: {
      type: "object",
      required: ["leftOut", "served"],
      properties: { leftOut: { type: "integer" }, served: { type: "integer" } },
    },
    invocationFlags: {
      type: "object",
      required: ["disableModelInvocation", "notUserInvocable"],
      properties: { disableModelInvocation: { type: "integer" }, notUserInvocable: { type: "integer" } },
    },
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
 * `GET /health`: what this replica serves, for probes and operators; not narrowed by any caller's scope.
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
    // Skills the extension cannot carry (a name against the naming rule, too many files) are still
    // served by the tools; the log at startup says why each is left out.
    skillsExtension: {
      skills: options.extensionSkills,
      leftOut: everything.skills.length - options.extensionSkills,
    },
    unsafeSkills: options.unsafeSkills,
    // Skills no listing shows a model (served by exact name), and skills that are no prompt.
    invocationFlags: {
      disableModelInvocation: everything.skills.filter((skill) => !skill.modelInvocable).length,
      notUserInvocable: everything.skills.filter((skill) => !skill.userInvocable).length,
    },
    ...(sources.length > 0 ? { sources: sources.map(({ name, ref }) => ({ name, ref })) } : {}),
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
