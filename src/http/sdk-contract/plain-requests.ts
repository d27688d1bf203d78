import type { IncomingHttpHeaders } from "node:http";
import {
  isJsonContentType,
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../../json-rpc/index.js";
import { ENVELOPE_KEYS, MODERN_REVISION } from "../../mcp/index.js";
import { joinedHeader } from "./classification.js";
import { acceptsBothAndSendsJson, versionSupported } from "./legacy-transport.js";
import { nameHeaderAsWritten } from "./modern-handler.js";

/*
 * The endpoint's fast path: a request that plainly speaks one era, told by a few type checks, is one the
 * SDK's entry of that era would hand its server unchanged, so it goes to the scope's server unclassified.
 */

/** The members the SDK's JSON-RPC request schema allows, and no other (it is strict). */
const REQUEST_MEMBERS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * A JSON-RPC request told by its members, without the SDK's schemas: a schema check that fails costs
 * microseconds (zod builds each issue and its message), and the SDK's classification fails two (is it a
 * response? an error?) before it finds a request, more than the rest of it together. One request but
 * `initialize`, of the schema's members only, an id that is a string or a safe integer, and params that
 * are an object or none; undefined for anything else.
 */
function plainRequestOf(body: unknown): PlainRequest | undefined {
  if (!isJsonObject(body) || !Object.keys(body).every((member) => REQUEST_MEMBERS.has(member)))
    return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== "2.0" || typeof method !== "string" || method === "initialize") return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (params !== undefined && !isJsonObject(params)) return undefined;
  return body as PlainRequest;
}

type PlainRequest = JSONRPCRequest & { readonly params?: Record<string, unknown> };

/**
 * Assumption: a request that plainly speaks 2025 is one the SDK classifies as 2025 and its stateless
 * transport hands its server unchanged (see legacyRequestOf): a plain request (see plainRequestOf) whose
 * params hold no `_meta` (where a 2026-07-28 envelope would be), with the headers legacyRequestOf asks for
 * and a supported version or none. Undefined for anything else, which `classify` and legacyRequestOf tell.
 */
export function plainLegacyRequestOf(
  headers: IncomingHttpHeaders,
  body: unknown,
): JSONRPCRequest | undefined {
  const request = plainRequestOf(body);
  if (request === undefined || (request.params !== undefined && "_meta" in request.params)) return undefined;
  return versionSupported(headers) && acceptsBothAndSendsJson(headers) ? request : undefined;
}

/**
 * Assumption: a request that plainly speaks 2026-07-28 is either one the SDK classifies as a request of
 * the revision the endpoint serves and modernRequestOf hands over unchanged, or one whose envelope the
 * server refuses while it is delivered (its own check of the envelope, the same schema), which the
 * endpoint then hands createMcpHandler as it hands every refusal. A plain request (see plainRequestOf)
 * whose `_meta` holds envelope keys only and names the revision, sent as JSON with the revision and the
 * method in their headers, byte for byte, and `Mcp-Name` as modernRequestOf asks. Undefined for anything
 * else, which `classify` and modernRequestOf tell.
 */
export function plainModernRequestOf(
  headers: IncomingHttpHeaders,
  body: unknown,
): JSONRPCRequest | undefined {
  const request = plainRequestOf(body);
  const meta = request?.params?._meta;
  if (request === undefined || !isJsonObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION)
    return undefined;
  if (!Object.keys(meta).every((key) => ENVELOPE_KEYS.has(key))) return undefined;
  if (headers["mcp-protocol-version"] !== MODERN_REVISION || headers["mcp-method"] !== request.method)
    return undefined;
  if (!isJsonContentType(headers["content-type"])) return undefined;
  return nameHeaderAsWritten(joinedHeader(headers["mcp-name"]), request.params) ? request : undefined;
}
