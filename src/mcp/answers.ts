import { findTool } from "./server.js";
import type { AnswerKeeping } from "./tool.js";

export type { AnswerKeeping } from "./tool.js";

/**
 * Methods whose answer depends only on the caller's scope and the request: the catalog they read does not
 * change while it is served.
 */
const SAME_EVERY_TIME: ReadonlySet<string> = new Set([
  "tools/list",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "skills/list",
  "skills/get",
  "resources/directory/read",
]);

/**
 * Whether the answer to a request may be kept and given again to the same request in the same scope, as
 * each tool declares it for its calls; undefined for what must be answered afresh every time (the
 * handshake, ping, an unknown tool or method).
 */
export function answerKeeping(method: string, params: unknown): AnswerKeeping | undefined {
  if (SAME_EVERY_TIME.has(method)) return "always";
  if (method !== "tools/call" || params === null || typeof params !== "object") return undefined;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  const tool = findTool(name);
  if (tool === undefined) return undefined;
  const given = args !== null && typeof args === "object" && !Array.isArray(args) ? args : {};
  return tool.keeping(given as Readonly<Record<string, unknown>>);
}
