/*
 * What the MCP layer tells the transport of a request's answer before it is made: whether it may be kept
 * and given again (see http/answer-cache.ts), and how many bytes of files it may hold.
 */
import { MAX_FILE_BYTES, type Scope } from "../catalog/index.js";
import { findTool, type McpDeps } from "./server.js";
import type { AnswerKeeping } from "./tool.js";

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

/**
 * The most bytes of files the answer to one message in `scope` may hold: for `resources/read`, its file's
 * (whole, or what is shown of a file too large to carry); for a prompt or a tool that reads a file, the
 * most of a text that is shown (MAX_FILE_BYTES); for `skills/list`, its page's entries, whose manifests
 * may be large; 0 for everything else, whose answers are lists of small pages. Told before the message is
 * answered, so that the transport can bound what answers hold at once.
 */
export function fileBytesOf(deps: McpDeps, scope: Scope, method: string, params: unknown): number {
  const { name, uri, cursor } = (params ?? {}) as { name?: unknown; uri?: unknown; cursor?: unknown };
  if (method === "skills/list")
    return deps.resources.bytesToList(scope, typeof cursor === "string" ? cursor : undefined);
  if (method === "resources/read")
    return typeof uri === "string" ? deps.resources.bytesToRead(scope, uri) : 0;
  if (method === "prompts/get") return MAX_FILE_BYTES;
  if (method === "tools/call") return findTool(name)?.readsFiles ? MAX_FILE_BYTES : 0;
  return 0;
}
