import {
  PROTOCOL_VERSION_META_KEY,
  type ProtocolEra,
  type ServerCapabilities,
} from "@modelcontextprotocol/server";
import {
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/server/ext/skills";
import { isJsonObject } from "../json-rpc/index.js";
import { quoted } from "../shared/index.js";

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

/** Of `initialize` or `ping` sent on a stdio connection that opened in 2026-07-28. */
const HANDSHAKE_ON_MODERN_CONNECTION =
  "is a method of the 2025 handshake, and this connection speaks 2026-07-28, as its first request did " +
  "(a stdio connection keeps the era it opens with): ask server/discover instead, with the envelope, or " +
  "open a new connection whose first request is initialize";

/**
 * The methods of one protocol era only, what a request of the other era must change to reach them, and a
 * method that only the other era serves (so a served list holding it is that era's). A person trying
 * server/discover with curl, as docs/protocol.md names it, sends no envelope and is answered as a 2025 client.
 * Over stdio the era is the connection's, settled by its first message: a request that speaks the era
 * the method needs is refused there for the connection's (`onConnection`).
 */
const OF_ONE_ERA: readonly {
  readonly methods: readonly string[];
  readonly otherEraServes: string;
  /** Whether a request that speaks the era of `methods` carries the 2026-07-28 envelope. */
  readonly enveloped: boolean;
  readonly how: string;
  readonly onConnection: string;
}[] = [
  {
    methods: ["server/discover", "subscriptions/listen"],
    otherEraServes: "initialize",
    enveloped: true,
    how:
      "is a method of protocol revision 2026-07-28, and this request speaks the 2025 handshake: send it with " +
      "params._meta holding io.modelcontextprotocol/protocolVersion 2026-07-28 and " +
      "io.modelcontextprotocol/clientCapabilities (over HTTP, with the headers MCP-Protocol-Version and " +
      "Mcp-Method too)",
    onConnection:
      "is a method of protocol revision 2026-07-28, and this connection speaks the 2025 handshake, as its " +
      "first message did (a stdio connection keeps the era it opens with): go on in 2025 (initialize answers " +
      "what server/discover would), or open a new connection whose first request carries the envelope",
  },
  {
    methods: ["initialize", "ping"],
    otherEraServes: "server/discover",
    enveloped: false,
    how:
      "is a method of the 2025 handshake, and this request speaks 2026-07-28 (its params._meta envelope): " +
      "send it without the envelope, or ask server/discover instead",
    onConnection: HANDSHAKE_ON_MODERN_CONNECTION,
  },
];

/**
 * What "Method not found" says, over HTTP and stdio alike: the method asked, so that a client that mistyped
 * one sees which, and those `served`, so that it need not guess; for a method of the other protocol era,
 * how to speak that era, told by `request` (the request refused) whether it spoke that era already. The
 * SDK says only "Method not found".
 */
export function methodNotFoundMessage(method: string, served: readonly string[], request?: unknown): string {
  const said = `Method not found: ${quoted(method)}; this server serves ${served.join(", ")}.`;
  // A notification sent with an id is a request, which no server serves: the id is what is wrong.
  if (method.startsWith("notifications/"))
    return `${said} A notification is sent without an "id", and gets no answer.`;
  const otherEra = OF_ONE_ERA.find(
    (era) => era.methods.includes(method) && served.includes(era.otherEraServes),
  );
  if (otherEra === undefined) return said;
  const spokeIt = request !== undefined && carriesEnvelope(request) === otherEra.enveloped;
  return `${said} ${method} ${spokeIt ? otherEra.onConnection : otherEra.how}.`;
}

/**
 * What the SDK's refusal of `initialize` on a stdio connection that speaks 2026-07-28 says instead of
 * "Unsupported protocol version: 2025-11-25", which this server does speak (on a connection that opens with
 * the handshake): that this connection speaks the other era, as "Method not found" says of `ping` there.
 */
export function handshakeOnModernConnection(requested: unknown): string {
  const asked = typeof requested === "string" ? `${quoted(requested)} ` : "";
  return `Unsupported protocol version ${asked}on this connection: initialize ${HANDSHAKE_ON_MODERN_CONNECTION}.`;
}

/** Whether `request` carries a 2026-07-28 envelope: a protocol version in its `params._meta`. */
function carriesEnvelope(request: unknown): boolean {
  return (
    isJsonObject(request) &&
    isJsonObject(request.params) &&
    isJsonObject(request.params._meta) &&
    PROTOCOL_VERSION_META_KEY in request.params._meta
  );
}
