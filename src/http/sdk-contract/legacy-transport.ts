import type { IncomingHttpHeaders } from "node:http";
import {
  isInitializeRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../../json-rpc/index.js";
import { acceptsMediaType } from "../accept.js";
import { isJsonRpcMessage } from "./classification.js";

/*
 * What the SDK's stateless 2025 transport checks of a POST (in its order: `Accept` and `Content-Type`, a
 * batch's size, each message, then the protocol version), and which request it hands its server unchanged.
 */

/** What a 2025 client must accept, as the SDK's 2025 transport looks for it in `Accept`. */
export const BOTH_ACCEPTED = "application/json, text/event-stream";

/**
 * Assumption: the SDK's 2025 transport looks for `application/json` and `text/event-stream` in `Accept` as
 * written, and refuses (406) a client that writes them otherwise: in capitals, though media types are
 * case-insensitive (RFC 9110, 8.3.1), or as ranges (`*\/*`, what curl and most HTTP libraries send, or
 * `application/*, text/*`), though those accept both (RFC 9110, 12.5.1); and it serves a header that
 * names both with a weight of 0 on one (`application/json, text/event-stream;q=0`), which refuses it. The
 * route hands the SDK the two types the header accepts written out, and nothing of those it refuses: the
 * answer is the same as for the header written so, and a header that accepts neither or one
 * (`text/html`, `application/json`, `*\/*;q=0`) is refused.
 */
export function acceptAsTheSdkReadsIt(headers: IncomingHttpHeaders): void {
  const { accept } = headers;
  // What the SDK's client and most hosts send, on every request: read without a parse.
  if (accept === undefined || accept === BOTH_ACCEPTED) return;
  const read = ["application/json", "text/event-stream"]
    .filter((mediaType) => acceptsMediaType(accept, mediaType))
    .join(", ");
  if (read !== accept) headers.accept = read;
}

/** What the SDK's 2025 transport asks of a POST's headers: both kinds of answer accepted, JSON sent. */
export function acceptsBothAndSendsJson(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept ?? "";
  return (
    accept.includes("application/json") &&
    accept.includes("text/event-stream") &&
    isJsonContentType(headers["content-type"])
  );
}

/** The protocol versions the SDK's 2025 transport supports. */
export const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/** Whether the request names a protocol version the SDK's 2025 transport supports, or none. */
export function versionSupported(headers: IncomingHttpHeaders): boolean {
  const version = headers["mcp-protocol-version"];
  return version === undefined || (typeof version === "string" && LEGACY_VERSIONS.has(version));
}

/**
 * Assumption: the SDK's stateless 2025 transport refuses a batch of more messages than this (with 400 and
 * its own error), before it looks at any of them or at the protocol version; the endpoint leaves a larger
 * batch to it.
 */
export const MAX_BATCH_MESSAGES = 100;

/**
 * Whether the SDK's 2025 transport gets as far as looking at what `messages` ask: the client accepts and
 * sends what it asks, there are at most MAX_BATCH_MESSAGES, and each is a JSON-RPC message.
 */
export function legacyReadsMessages(headers: IncomingHttpHeaders, messages: readonly unknown[]): boolean {
  return (
    acceptsBothAndSendsJson(headers) &&
    messages.length <= MAX_BATCH_MESSAGES &&
    messages.every(isJsonRpcMessage)
  );
}

/**
 * Whether the SDK's 2025 transport gets as far as checking the protocol version of `body`: the client
 * accepts and sends what it asks (else 406 or 415 first), a batch holds at most MAX_BATCH_MESSAGES (else
 * its size is refused first), every message is one (else a parse error first), and none is the
 * handshake, which negotiates instead. The endpoint words the version's refusal otherwise, in the same
 * place: a client is refused first for what any server on the SDK would refuse it for first.
 */
export function legacyChecksVersion(headers: IncomingHttpHeaders, body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return legacyReadsMessages(headers, messages) && !messages.some((message) => isInitializeRequest(message));
}

/**
 * Assumption: the SDK's stateless 2025 transport hands one request to its server unchanged when the client
 * accepts both JSON and event streams, sends JSON, and (but for `initialize`) names a protocol version it
 * supports or none, and the message passes its JSON-RPC schema: those checks, in its order. Undefined for
 * anything else (a batch, a notification, a header it would refuse), which that transport answers itself.
 */
export function legacyRequestOf(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest | undefined {
  if (!isJsonObject(body) || !acceptsBothAndSendsJson(headers)) return undefined;
  let message: JSONRPCMessage;
  try {
    message = parseJSONRPCMessage(body);
  } catch {
    return undefined;
  }
  if (!("method" in message) || !("id" in message)) return undefined;
  const handshake = message.method === "initialize" && isInitializeRequest(message);
  return handshake || versionSupported(headers) ? message : undefined;
}
