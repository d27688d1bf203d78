import type { ProtocolEra, ServerCapabilities } from "@modelcontextprotocol/server";
import {
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/server/ext/skills";

/**
 * The request methods a server of `era` with `capabilities` serves, as MCP ties them to its capabilities.
 *
 * Assumption (held by test/http/http.test.ts, which asks each one): the SDK's server answers each of them,
 * with a handler of its own or one registered for the capability, and those of its era: `initialize` and
 * `ping` in 2025, `server/discover` and `subscriptions/listen` in 2026-07-28 (which has no `ping`); the
 * Skills extension's, as its capability declares them.
 */
export function servedMethods(capabilities: ServerCapabilities, era: ProtocolEra): string[] {
  const methods = era === "legacy" ? ["initialize", "ping"] : ["server/discover", "subscriptions/listen"];
  if (capabilities.tools) methods.push("tools/list", "tools/call");
  if (capabilities.prompts) methods.push("prompts/list", "prompts/get");
  if (capabilities.resources) {
    methods.push("resources/list", "resources/templates/list", "resources/read");
    if (capabilities.resources.subscribe) methods.push("resources/subscribe", "resources/unsubscribe");
  }
  if (capabilities.completions) methods.push("completion/complete");
  if (capabilities.logging) methods.push("logging/setLevel");
  const skills = capabilities.extensions?.[SKILLS_EXTENSION_ID];
  if (skills) {
    methods.push(SKILLS_LIST_METHOD, SKILLS_GET_METHOD);
    const { directoryRead } = skills as { directoryRead?: unknown };
    if (directoryRead === true) methods.push(RESOURCES_DIRECTORY_READ_METHOD);
  }
  return methods;
}

/**
 * What "Method not found" says, over HTTP and stdio alike: the method asked, so that a client that mistyped
 * one sees which, and those `served`, so that it need not guess. The SDK says only "Method not found".
 */
export function methodNotFoundMessage(method: string, served: readonly string[]): string {
  return `Method not found: ${JSON.stringify(method.slice(0, 100))}; this server serves ${served.join(", ")}.`;
}
