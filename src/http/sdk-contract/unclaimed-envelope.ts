import type { IncomingHttpHeaders } from "node:http";
import { type JSONRPCRequest, PROTOCOL_VERSION_META_KEY, type RequestId } from "@modelcontextprotocol/server";
import { isJsonObject } from "../../json-rpc/index.js";
import { MODERN_REVISION, unclaimedEnvelopeError, unclaimedEnvelopeKeys } from "../../mcp/index.js";
import { listedWithAnd } from "../../shared/index.js";
import { headerNeedsEncoding, SPELLED_HEADER_CHARACTERS } from "./header-refusals.js";

/*
 * A request that holds keys of a 2026-07-28 envelope but not its protocol version, which the SDK reads as a
 * 2025 request: refused when it would be served, and told so when the SDK refuses it for its `Accept`.
 */

/**
 * `answer` (the SDK's 2025 transport's refusal of `body`'s `Accept`, worded by namingAccept) saying, when
 * `body` carries keys of a 2026-07-28 envelope but not the protocol version (see unclaimedKeysSent),
 * that it was read as a 2025 request for that, and what makes it one of 2026-07-28, which this server
 * serves with an `Accept` of JSON alone (though the specification asks a client to list both types, so
 * the message says so); the answer itself otherwise. A 2026-07-28 client that left the version out was told
 * only what a 2025 client must accept.
 */
export function namingUnclaimedEnvelope(
  answer: unknown,
  body: unknown,
  headers: IncomingHttpHeaders,
): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error)) return answer;
  const { message } = answer.error;
  if (typeof message !== "string" || !message.startsWith("Not Acceptable: ")) return answer;
  const held = unclaimedKeysSent(headers, body);
  if (held === undefined || !isJsonObject(body)) return answer;
  const told = `${message} This request is read as a 2025 one: its params._meta holds ${listedWithAnd(held)} but not ${PROTOCOL_VERSION_META_KEY}, and no MCP-Protocol-Version header was sent. To speak ${MODERN_REVISION}, where this server takes Accept: application/json alone (the specification asks clients to list text/event-stream too), ${speakingModern(body.method)}.`;
  return { ...answer, error: { ...answer.error, message: told } };
}

/** The JSON-RPC error refusing a request, under its id. */
interface RefusalMessage {
  readonly jsonrpc: "2.0";
  readonly id: RequestId;
  readonly error: { readonly code: number; readonly message: string; readonly data: unknown };
}

/**
 * The refusal of `request`, one the SDK's 2025 transport would hand its server (see legacyRequestOf), when
 * it carries keys of a 2026-07-28 envelope but not the protocol version, and `headers` name none either
 * (see unclaimedEnvelopeError); undefined for anything else. The SDK served it as a 2025 request without a
 * word, so a 2026-07-28 client that left the version out got 2025's answers (`server/discover` not found,
 * results without `resultType`).
 *
 * Assumption: the SDK reads a request as 2026-07-28 by its envelope's protocol version alone (see
 * classify): without it, the other keys of an envelope are a 2025 request's `_meta`.
 */
export function unclaimedEnvelopeRefusal(
  headers: IncomingHttpHeaders,
  request: JSONRPCRequest,
): RefusalMessage | undefined {
  const held = unclaimedKeysSent(headers, request);
  if (held === undefined) return undefined;
  const lacks = ", and no MCP-Protocol-Version header was sent";
  const error = unclaimedEnvelopeError(held, lacks, speakingModern(request.method));
  return { jsonrpc: "2.0", id: request.id, error };
}

/** The keys of unclaimedEnvelopeKeys, when `headers` name no protocol version either. */
function unclaimedKeysSent(headers: IncomingHttpHeaders, body: unknown): string[] | undefined {
  return headers["mcp-protocol-version"] === undefined ? unclaimedEnvelopeKeys(body) : undefined;
}

/** What a request of `method` adds to speak 2026-07-28: the version in its envelope, and two headers. */
function speakingModern(method: unknown): string {
  const named = typeof method === "string" ? method : "";
  const methodHeader =
    named !== "" && !headerNeedsEncoding(named) && named.length <= SPELLED_HEADER_CHARACTERS
      ? `Mcp-Method: ${named}`
      : "Mcp-Method, repeating the method";
  return `add "${PROTOCOL_VERSION_META_KEY}": "${MODERN_REVISION}" to params._meta and send the headers MCP-Protocol-Version: ${MODERN_REVISION} and ${methodHeader}`;
}
