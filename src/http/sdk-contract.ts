import type { IncomingHttpHeaders } from "node:http";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import {
  classifyInboundRequest,
  type InboundClassificationOutcome,
  type InboundLadderRejection,
  isInitializeRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  METHOD_NOT_FOUND,
  type MessageClassification,
  PerRequestHTTPServerTransport,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolEra,
  parseJSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isJsonObject, messageShapeProblem } from "../json-rpc/index.js";
import {
  ENVELOPE_KEYS,
  MODERN_REVISION,
  methodNotFoundMessage,
  unclaimedEnvelopeError,
  unclaimedEnvelopeKeys,
} from "../mcp/index.js";
import { listedWithAnd, quoted, quotedApart } from "../shared/index.js";
import { acceptsMediaType } from "./accept.js";
import { requestId } from "./json-rpc.js";
import { RequestOrigins } from "./request-origins.js";

/*
 * What the /mcp endpoint assumes of the SDK, each assumption in one place, named here and held by a test
 * of its own (test/http/sdk-contract.test.ts), so that a release of the SDK that changes one fails a test
 * rather than a client.
 */

/**
 * Assumption: the headers the SDK checks a request against are these: what the client accepts and sends
 * (the 2025 transport), the protocol version, and the method and name a 2026-07-28 request repeats. A
 * request that differs in one of them may be answered otherwise or refused, so a kept answer is keyed by
 * them, and the requests the endpoint hands its servers itself are told by them.
 */
export const CHECKED_HEADERS = [
  "accept",
  "content-type",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
] as const;

/**
 * Assumption: the SDK writes a response as `{"result":…,"jsonrpc":"2.0","id":<id>}`, the id last, so that
 * a kept answer is given another id by replacing its end (see AnswerCache).
 */
export function answerEnding(id: RequestId): string {
  return `"id":${JSON.stringify(id)}}`;
}

/** What a 2025 client must accept, as the SDK's 2025 transport looks for it in `Accept`. */
const BOTH_ACCEPTED = "application/json, text/event-stream";

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

/** How the SDK's 2025 transport refuses an `Accept` that does not take both (see namingAccept). */
const NOT_ACCEPTABLE = `Not Acceptable: Client must accept both application/json and text/event-stream`;

/**
 * `answer` (the SDK's 2025 transport's answer to `body`, as parsed) with its refusal of the `Accept` header
 * saying what was sent (`accept`, as the client wrote it; undefined when it sent none), the header to
 * send and why, under the request's id (null for a batch, a notification or a response); the answer itself
 * otherwise. The SDK said only that the client must accept both, under `"id": null` though the request had
 * an id, so a client could not tell which of its requests was refused or what of its header was wrong.
 *
 * Assumption: the SDK's 2025 transport refuses such a request with 406, -32000 and NOT_ACCEPTABLE, under
 * `"id": null`.
 */
export function namingAccept(answer: unknown, accept: string | undefined, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.message !== NOT_ACCEPTABLE)
    return answer;
  const sent = accept === undefined ? "no Accept header was sent" : `Accept was ${quoted(accept, 200)}`;
  const told = `Not Acceptable: ${sent}; send Accept: ${BOTH_ACCEPTED}. A client of the 2025 protocol versions must accept both, as Streamable HTTP may answer a POST with one JSON message or with a stream of events (ranges that take them, */* or application/*, text/*, do too).`;
  return { ...answer, error: { ...answer.error, message: told }, id: requestId(body) };
}

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

/** Which era a request speaks, or that it is refused, as the SDK's entry tells it from headers and body. */
export function classify(headers: IncomingHttpHeaders, body: unknown): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: single(headers["mcp-protocol-version"]),
    mcpMethodHeader: single(headers["mcp-method"]),
    mcpNameHeader: single(headers["mcp-name"]),
    body,
  });
}

/** What createMcpHandler answers a request its classification refuses, and tells its onerror of it. */
interface Rejection {
  readonly status: number;
  readonly message: {
    jsonrpc: "2.0";
    error: { code: number; message: string; data?: unknown };
    id: RequestId | null;
  };
  readonly reported: Error;
}

/**
 * The answer createMcpHandler gives a JSON request that `classify` refuses (`outcome`), which the endpoint
 * gives from its own classification rather than hand the request over to be classified and refused again.
 *
 * Assumption: createMcpHandler answers such a request with the rejection's HTTP status and a JSON-RPC
 * error of its code, message and data (when there is data), under the request's id when the request has
 * a method and a string or number id, else null, and tells its onerror "Rejected inbound request
 * (<cell>): <message>".
 */
export function rejectionOf(outcome: InboundLadderRejection, body: unknown): Rejection {
  const { code, message, data } = outcome;
  const error = data === undefined ? { code, message } : { code, message, data };
  const asked = isJsonObject(body) && typeof body.method === "string" ? body.id : undefined;
  const id = typeof asked === "string" || typeof asked === "number" ? asked : null;
  return {
    status: outcome.httpStatus,
    message: { jsonrpc: "2.0", error, id },
    reported: new Error(`Rejected inbound request (${outcome.cell}): ${message}`),
  };
}

/** Node joins a repeated header with ", ", as the web's Headers do. */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
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

/**
 * Assumption: the SDK's stateless 2025 transport refuses a batch of more messages than this (with 400 and
 * its own error), before it looks at any of them or at the protocol version; the endpoint leaves a larger
 * batch to it.
 */
export const MAX_BATCH_MESSAGES = 100;

/** How the SDK's 2025 transport refuses a batch of more than MAX_BATCH_MESSAGES (see countingBatch). */
const TOO_LARGE_BATCH = `Invalid Request: Batch must not exceed ${MAX_BATCH_MESSAGES} messages`;

/**
 * `answer` (the SDK's 2025 transport's answer to a batch, as parsed) with its refusal of a batch over
 * MAX_BATCH_MESSAGES saying how many `body` (the batch as the client sent it) holds and to send the rest
 * in another POST; the answer itself otherwise. The SDK said only the limit, so a client building its
 * batches could not tell how far over it was (stdio says so too). The endpoint hands the SDK a batch less
 * its `notifications/cancelled` (see withoutCancellations), which are then not counted: said so, or a
 * client that sent 103 messages was told its batch holds 101.
 *
 * Assumption: the SDK refuses such a batch with 400, -32600 and TOO_LARGE_BATCH.
 */
export function countingBatch(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.message !== TOO_LARGE_BATCH)
    return answer;
  if (!Array.isArray(body)) return answer;
  const cancellations = body.filter(isCancellation).length;
  const uncounted =
    cancellations === 0
      ? ""
      : `, of which ${cancellations} ${cancellations === 1 ? "is a notifications/cancelled, which is" : "are notifications/cancelled, which are"} not counted`;
  const told = `${TOO_LARGE_BATCH} (this one holds ${body.length}${uncounted}); send at most ${MAX_BATCH_MESSAGES} messages in a POST, and the rest in another.`;
  return { ...answer, error: { ...answer.error, message: told } };
}

/** How the SDK refuses a batch holding a message with a per-request envelope (see namingEnvelopeInBatch). */
const ENVELOPE_IN_BATCH = `Bad Request: JSON-RPC batches may not contain requests for protocol revision ${MODERN_REVISION} or later`;

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with its refusal of a batch holding a
 * message with a per-request envelope naming that message and what to send instead; the answer itself
 * otherwise. The SDK named neither, so a client that put a 2026-07-28 request in a 2025 batch (or sent a
 * batch without the 2026-07-28 header, which refuses a batch as such: see modernMisfitOf) could not tell
 * which of its messages was wrong or how to send it.
 *
 * Assumption: the SDK refuses a batch with 400, -32600 and ENVELOPE_IN_BATCH (cell
 * `batch-with-modern-element`) at its first member whose params' `_meta` holds the protocol-version key,
 * whatever its value, unless a member before it is no JSON-RPC message (see invalidMemberProblem).
 */
export function namingEnvelopeInBatch(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.message !== ENVELOPE_IN_BATCH)
    return answer;
  if (!Array.isArray(body)) return answer;
  const index = body.findIndex(carriesEnvelope);
  if (index < 0) return answer;
  const told = `${ENVELOPE_IN_BATCH}: the message at index ${index} (counting from 0) carries a per-request envelope (its params._meta holds ${PROTOCOL_VERSION_META_KEY}), as a ${MODERN_REVISION} request does, and that revision takes one request per POST. Send it in a POST of its own, with the headers MCP-Protocol-Version: ${MODERN_REVISION} and Mcp-Method; or, to send it in a 2025 batch, leave the envelope out.`;
  return { ...answer, error: { ...answer.error, message: told } };
}

/** Whether a message's params carry a per-request envelope, as the SDK tells one: its version key is there. */
function carriesEnvelope(message: unknown): boolean {
  const params = isJsonObject(message) ? message.params : undefined;
  const meta = isJsonObject(params) ? params._meta : undefined;
  return isJsonObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/** Whether a batch's member is a `notifications/cancelled`, which the endpoint leaves out of a batch. */
export function isCancellation(message: unknown): boolean {
  return (message as { method?: unknown } | null)?.method === "notifications/cancelled";
}

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
  return nameHeaderAsWritten(single(headers["mcp-name"]), request.params) ? request : undefined;
}

/** A protocol version a request names that this server does not speak, and those it does, newest first. */
export interface UnsupportedVersion {
  readonly requested: string;
  readonly supported: readonly string[];
}

/** Every protocol version this server speaks, newest first. */
const SERVED_VERSIONS: readonly string[] = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * The protocol version a request names in its `MCP-Protocol-Version` header when the SDK would refuse the
 * request for it, and the versions to name instead; undefined for anything else.
 *
 * Assumption: the SDK reads a version it does not know by where it sorts. One after 2026-07-28 (or not a
 * date) on a request without a per-request envelope it refuses as a request missing its envelope
 * (`-32602`, cell `modern-header-without-claim`), while the same version named in an envelope, or on a
 * notification, is refused as an unsupported version (`-32022`, listing the supported revisions), as MCP
 * asks of a server that does not implement the requested version: the endpoint answers the request as the
 * latter, listing every version it speaks, since a request without an envelope may be a 2025 client's (the
 * SDK's refusal of an envelope lists 2026-07-28 alone, the one revision an envelope may name). One before it routes the request to the 2025 era, whose transport refuses it (but for
 * `initialize`, which negotiates) with `-32000` and `"id": null`, though the request has an id; MCP
 * 2025-11-25 asks only for a 400 there, so the endpoint answers as for the later versions, under the
 * request's id, listing every version it speaks.
 */
export function unsupportedVersionOf(
  headers: IncomingHttpHeaders,
  body: unknown,
): UnsupportedVersion | undefined {
  const version = headers["mcp-protocol-version"];
  if (typeof version !== "string" || version === MODERN_REVISION || LEGACY_VERSIONS.has(version))
    return undefined;
  const outcome = classify(headers, body);
  if (outcome.kind === "reject" && outcome.cell === "modern-header-without-claim")
    return { requested: version, supported: SERVED_VERSIONS };
  if (outcome.kind === "legacy" && legacyChecksVersion(headers, body))
    return { requested: version, supported: SERVED_VERSIONS };
  return undefined;
}

/**
 * Whether the SDK's 2025 transport gets as far as checking the protocol version of `body`: the client
 * accepts and sends what it asks (else 406 or 415 first), a batch holds at most MAX_BATCH_MESSAGES (else
 * its size is refused first), every message is one (else a parse error first), and none is the
 * handshake, which negotiates instead. The endpoint words the version's refusal otherwise, in the same
 * place: a client is refused first for what any server on the SDK would refuse it for first.
 */
function legacyChecksVersion(headers: IncomingHttpHeaders, body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return legacyReadsMessages(headers, messages) && !messages.some((message) => isInitializeRequest(message));
}

/**
 * Whether the SDK's 2025 transport gets as far as looking at what `messages` ask: the client accepts and
 * sends what it asks, there are at most MAX_BATCH_MESSAGES, and each is a JSON-RPC message.
 */
function legacyReadsMessages(headers: IncomingHttpHeaders, messages: readonly unknown[]): boolean {
  return (
    acceptsBothAndSendsJson(headers) &&
    messages.length <= MAX_BATCH_MESSAGES &&
    messages.every(isJsonRpcMessage)
  );
}

/**
 * How many messages a 2025 batch holds when the SDK refuses it for holding the handshake; undefined for
 * anything else.
 *
 * Assumption: the SDK's 2025 transport refuses a batch of more than one message that holds an
 * `initialize` request with 400, -32600 and "Only one initialization request is allowed", which a batch
 * of one `initialize` and a `ping` reads as breaking nothing; after it checks `Accept`, the batch's size
 * and its messages, and before the protocol version (see legacyChecksVersion). MCP has the handshake sent
 * alone; the endpoint says so, in the same place.
 */
export function batchedHandshakeOf(headers: IncomingHttpHeaders, body: unknown): number | undefined {
  if (!Array.isArray(body) || body.length < 2 || !legacyReadsMessages(headers, body)) return undefined;
  if (!body.some((message) => isInitializeRequest(message))) return undefined;
  return classify(headers, body).kind === "legacy" ? body.length : undefined;
}

/** Two requests of a batch that share an id: their indices, the first and the next. */
interface RepeatedId {
  readonly id: RequestId;
  readonly first: number;
  readonly again: number;
}

/**
 * The first two requests of a 2025 batch that share an id, when the SDK's transport would read the batch's
 * messages (see legacyReadsMessages); undefined for anything else.
 *
 * Assumption: the SDK's 2025 transport answers a batch by its requests' ids, so that of two requests under
 * one id only one is answered (a ping and an unknown method under id 1 got the refusal alone); it refuses
 * nothing for it. MCP has each request of a client carry an id of its own; the endpoint refuses such a
 * batch, where the SDK would read its messages, rather than lose an answer.
 */
export function repeatedIdOf(headers: IncomingHttpHeaders, body: unknown): RepeatedId | undefined {
  if (!Array.isArray(body) || body.length < 2) return undefined;
  const seen = new Map<unknown, number>();
  for (const [index, message] of body.entries()) {
    if (!isJsonObject(message) || !("method" in message) || !("id" in message)) continue;
    const { id } = message;
    const first = seen.get(id);
    if (first === undefined) {
      seen.set(id, index);
      continue;
    }
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    return legacyReadsMessages(headers, body) && classify(headers, body).kind === "legacy"
      ? { id, first, again: index }
      : undefined;
  }
  return undefined;
}

const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Why a POST that names 2026-07-28 in its `MCP-Protocol-Version` header cannot be served, when its body is
 * a batch or a response, which that revision does not take from clients; undefined for anything else. A
 * batch is refused as one whatever its members hold: fixing a member would not get it served.
 *
 * Assumption: the SDK routes such a body to the 2025 era (it names no envelope), whose transport refuses
 * the header as "Unsupported protocol version: 2026-07-28", a revision this server does speak; a batch
 * with a member that is no message it refuses for that member.
 */
export function modernMisfitOf(headers: IncomingHttpHeaders, body: unknown): string | undefined {
  if (headers["mcp-protocol-version"] !== MODERN_REVISION) return undefined;
  if (Array.isArray(body)) {
    return `Bad Request: MCP ${MODERN_REVISION} takes one JSON-RPC request or notification per POST, not a batch; send each in a POST of its own (batches are served to 2025 clients only).`;
  }
  if (!(isJsonObject(body) && ("result" in body || "error" in body))) return undefined;
  const outcome = classify(headers, body);
  if (outcome.kind === "legacy" && outcome.reason === "response") {
    return `Bad Request: MCP ${MODERN_REVISION} takes no JSON-RPC responses from clients; POST a request or a notification.`;
  }
  return undefined;
}

/**
 * What makes a single message no JSON-RPC request or notification (see messageShapeProblem), when the SDK
 * refuses it as such; undefined for anything the SDK reads otherwise.
 *
 * Assumption: the SDK refuses a body that is no JSON-RPC message with 400, -32600 and one message for
 * every fault, "the request body is not a valid JSON-RPC message" (cell `invalid-json-rpc-body`), which
 * does not say what to change; the endpoint answers the same status and code, saying it. The problem is
 * looked for first, so that a valid request costs no classification.
 */
export function invalidMessageProblem(headers: IncomingHttpHeaders, body: unknown): string | undefined {
  if (Array.isArray(body)) return invalidMemberProblem(headers, body);
  const problem = messageShapeProblem(body, "the body");
  if (problem === undefined) return undefined;
  const outcome = classify(headers, body);
  return outcome.kind === "reject" && outcome.cell === "invalid-json-rpc-body" ? problem : undefined;
}

/**
 * Which member of a batch is no JSON-RPC message, and what is wrong with it, when the SDK refuses the
 * batch for it; undefined for anything the SDK reads otherwise.
 *
 * Assumption: the SDK refuses a batch that holds a member which is no JSON-RPC request, notification or
 * response (as its exported guards tell them) with 400, -32600 and "JSON-RPC batch contains an invalid
 * message" (cell `batch-with-invalid-element`), naming neither the member nor its fault; the endpoint
 * answers the same status and code, naming the first such member, which the SDK stops at. A batch whose
 * members show no problem (see messageShapeProblem) is not classified, so a valid batch costs a few type
 * checks per member.
 */
function invalidMemberProblem(headers: IncomingHttpHeaders, batch: readonly unknown[]): string | undefined {
  if (batch.every((member) => messageShapeProblem(member) === undefined)) return undefined;
  const outcome = classify(headers, batch);
  if (outcome.kind !== "reject" || outcome.cell !== "batch-with-invalid-element") return undefined;
  const index = batch.findIndex((member) => !isJsonRpcMessage(member));
  if (index < 0) return undefined;
  const problem =
    messageShapeProblem(batch[index], "it") ?? "it is no JSON-RPC request, notification or response.";
  return `the batch's message at index ${index} (counting from 0) is invalid: ${problem}`;
}

/**
 * Whether `value` is a JSON-RPC request, notification or response. Assumption: the SDK's schema of a
 * message is the union of those its four exported guards check (isJSONRPCRequest, isJSONRPCNotification,
 * isJSONRPCResultResponse, isJSONRPCErrorResponse), which its classification asks one by one: one parse
 * says what the four say.
 */
export function isJsonRpcMessage(value: unknown): boolean {
  return JSONRPCMessageSchema.safeParse(value).success;
}

/** Whether the request names a protocol version the SDK's 2025 transport supports, or none. */
function versionSupported(headers: IncomingHttpHeaders): boolean {
  const version = headers["mcp-protocol-version"];
  return (
    version === undefined || (typeof version === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  );
}

/** What the SDK's 2025 transport asks of a POST's headers: both kinds of answer accepted, JSON sent. */
function acceptsBothAndSendsJson(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept ?? "";
  return (
    accept.includes("application/json") &&
    accept.includes("text/event-stream") &&
    isJsonContentType(headers["content-type"])
  );
}

/**
 * Assumption: `createMcpHandler` hands a 2026-07-28 request to its server unchanged when the SDK classifies
 * it as one of the revision the endpoint serves, its body is JSON, and it carries the standard headers as
 * the SDK's own client writes them: the protocol version and the method (which the classification has
 * found equal to the body's), and `Mcp-Name` as the body's `name` or `uri`, verbatim, or none when the body
 * has neither. Undefined for anything else, which `createMcpHandler` answers itself: a header it would
 * decode (`=?base64?…?=`) or refuse, a notification, another revision.
 */
export function modernRequestOf(
  headers: IncomingHttpHeaders,
  outcome: InboundClassificationOutcome,
): JSONRPCRequest | undefined {
  if (outcome.kind !== "modern" || outcome.messageKind !== "request") return undefined;
  if (outcome.classification.revision !== MODERN_REVISION) return undefined;
  if (!isJsonContentType(headers["content-type"])) return undefined;
  if (headers["mcp-protocol-version"] === undefined || headers["mcp-method"] === undefined) return undefined;
  return nameHeaderAsWritten(single(headers["mcp-name"]), outcome.message.params)
    ? outcome.message
    : undefined;
}

function nameHeaderAsWritten(header: string | undefined, params: unknown): boolean {
  const { name, uri } = (params ?? {}) as { name?: unknown; uri?: unknown };
  const named = [name, uri].filter((value) => typeof value === "string");
  if (header === undefined) return named.length === 0;
  return named.length > 0 && named.every((value) => value === header) && !header.startsWith("=?");
}

/** The classification a connection's requests carry, by era: the SDK checks it against its server's. */
const CLASSIFICATION: Readonly<Record<ProtocolEra, MessageClassification>> = {
  legacy: { era: "legacy" },
  modern: { era: "modern", revision: MODERN_REVISION },
};

/** The server's answer to a request, and whether it refused it before any of its handlers ran. */
interface Exchanged {
  readonly message: JSONRPCMessage;
  readonly refused: boolean;
}

/**
 * A connection to one server of the SDK that carries any number of requests at once, each under an id of
 * its own: clients number their requests each from 1, and the server tells the requests in flight apart by
 * their ids. The ids come from the endpoint's RequestOrigins, which tells the handler's call by the id
 * (`ctx.mcpReq.id`, the id the request was delivered under). Notifications on the way, which a JSON
 * answer has no room for, are dropped.
 *
 * Assumption: the SDK binds a server to the protocol revision of the `PerRequestHTTPServerTransport` it
 * connects it to, when the server lists that revision among those it supports (its documented way; the
 * only one its public exports offer outside its own entries). So this connection is one, made with its
 * era's classification; it never uses that class's exchange of one Response.
 *
 * Assumption: a server answers each request from its handlers and the request alone: what one request did
 * leaves nothing that changes the answer to the next, but the 2025 handshake (`initialize` negotiates a
 * version and keeps the client's capabilities), which a connection shared between requests must not carry.
 *
 * Assumption: a server refuses a request it has no handler for, that belongs to another era, or whose
 * 2026-07-28 envelope it finds wrong, while the message is being delivered, and runs a handler only after
 * that (the SDK defers handlers to a microtask): so an answer sent during the delivery is a refusal, whose
 * HTTP status the SDK's entry sets itself.
 */
export class ServerConnection extends PerRequestHTTPServerTransport {
  readonly #classification: MessageClassification;
  readonly #waiting = new Map<number, (answered: Exchanged) => void>();
  readonly #origins: RequestOrigins;
  #delivering: number | undefined;

  private constructor(era: ProtocolEra, origins: RequestOrigins) {
    const classification = CLASSIFICATION[era];
    super({ classification });
    this.#classification = classification;
    this.#origins = origins;
  }

  /** `server`, connected to a new connection of `era`, delivering under ids from `origins`. */
  static async open(
    server: McpServer,
    era: ProtocolEra,
    origins = new RequestOrigins(),
  ): Promise<ServerConnection> {
    const connection = new ServerConnection(era, origins);
    await server.connect(connection);
    return connection;
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || "method" in message || typeof message.id !== "number") return;
    const answered = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    this.#origins.answered(message.id);
    answered?.({ message, refused: message.id === this.#delivering });
  }

  /** The server's answer to `request`, under the request's own id; `reqId` is its HTTP request's. */
  exchange(request: JSONRPCRequest, reqId?: string): Promise<Exchanged> {
    const id = this.#origins.deliver(reqId);
    return new Promise((resolve) => {
      this.#waiting.set(id, ({ message, refused }) =>
        resolve({ message: { ...message, id: request.id }, refused }),
      );
      this.#delivering = id;
      try {
        this.onmessage?.({ ...request, id }, { classification: this.#classification });
      } catch (error) {
        // Rejects the exchange; nothing will answer it.
        this.#waiting.delete(id);
        this.#origins.answered(id);
        throw error;
      } finally {
        this.#delivering = undefined;
      }
    });
  }
}

/**
 * `answer` (a JSON-RPC error or a batch of answers, from the SDK's entry, as parsed) with each "Method not
 * found" naming the method asked, from `body`, and those `served`; the codes are kept. The answer itself
 * when none is.
 *
 * Assumption: the SDK answers a method its server has no handler for with -32601 and "Method not found",
 * under the request's id, naming neither.
 */
export function namingMethods(answer: unknown, body: unknown, served: readonly string[]): unknown {
  const asked = new Map<unknown, unknown>();
  for (const message of Array.isArray(body) ? body : [body])
    if (isJsonObject(message) && "id" in message) asked.set(message.id, message.method);
  const named = (message: unknown) => {
    if (!isJsonObject(message)) return message;
    const { error } = message;
    const method = asked.get(message.id);
    if (!isJsonObject(error) || error.code !== METHOD_NOT_FOUND || typeof method !== "string") return message;
    return { ...message, error: { ...error, message: methodNotFoundMessage(method, served) } };
  };
  if (!Array.isArray(answer)) return named(answer);
  const messages = answer.map(named);
  return messages.some((message, index) => message !== answer[index]) ? messages : answer;
}

/** MCP 2026-07-28's code for headers that disagree with the body, which the SDK exports no name for. */
const HEADER_MISMATCH = -32020;
const BASE64_SENTINEL = "=?base64?";
/** The longest header value a refusal spells out for the client to send; past it, only the rule is said. */
const SPELLED_HEADER_CHARACTERS = 200;

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with its refusal of an `Mcp-Name` header
 * told how that header is written, when the name or URI it mirrors cannot go in a header as it is; the
 * answer itself otherwise. A client that sent `Mcp-Name: liste_é` as it is was told only that the header
 * names "liste_Ã©" (its bytes, one character each), and one that left it out, not how to write it.
 *
 * Assumption: the SDK refuses a 2026-07-28 request whose `Mcp-Name` header is missing or differs from the
 * body's name (or URI) with -32020, its message naming `Mcp-Name`, and reads a header `=?base64?…?=` as the
 * base64 of the value's UTF-8 bytes, as MCP has a value outside printable ASCII (or with blanks at either
 * end, or one that begins as that form does) sent.
 */
export function namingNameEncoding(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.code !== HEADER_MISMATCH)
    return answer;
  const { message } = answer.error;
  if (typeof message !== "string" || !message.includes("Mcp-Name")) return answer;
  const params = isJsonObject(body) && isJsonObject(body.params) ? body.params : undefined;
  const value = typeof params?.name === "string" ? params.name : params?.uri;
  if (typeof value !== "string" || !headerNeedsEncoding(value)) return answer;
  const header = `${BASE64_SENTINEL}${Buffer.from(value, "utf8").toString("base64")}?=`;
  const spelled = header.length > SPELLED_HEADER_CHARACTERS ? "" : `: here, Mcp-Name: ${header}`;
  const told = `${message}. A value outside printable ASCII, with blanks at either end or beginning "${BASE64_SENTINEL}" goes in the header as ${BASE64_SENTINEL}<its UTF-8 bytes in base64>?=${spelled}`;
  return { ...answer, error: { ...answer.error, message: told } };
}

/** How the SDK begins each refusal of headers that disagree with the body. */
const DISAGREE = "Bad Request: the request headers and body disagree: ";

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with its refusal of an `Mcp-Method`,
 * `MCP-Protocol-Version` or `Mcp-Name` header that differs from what the body names (its method, its
 * envelope's version, its name or URI) quoting both, so that a blank or a control character shows, and
 * shown from where they part when that is past the quote's cut (see quotedApart): a body naming
 * "tools/list " was told that it "names method tools/list  but the Mcp-Method header names tools/list",
 * and two methods of 120 characters differing in their last were quoted as the same 100. Its refusal of
 * such a header left out says which to send (`send Mcp-Method: tools/list`), where it said only that the
 * header is absent. A notification's method or envelope version is quoted so too, where the SDK wrote
 * both bare and said nothing of what to send. The same words in `data.mismatch.body`, where the SDK
 * repeats its own; code, status and the rest of data are kept. The answer itself otherwise.
 *
 * Assumption: the SDK refuses such a request with -32020, `data.mismatch.header` holding the header
 * (`(missing)` when there is none), and the message `Bad Request: the request headers and body disagree: `
 * followed by `data.mismatch.body`: `the body names method <method> but the Mcp-Method header names
 * <header>`, `the body envelope names protocol version <version> but the MCP-Protocol-Version header
 * names <header>`, both as they are, or `the body carries params.name="<name>" but the Mcp-Name header
 * names "<decoded header>"` (or `params.uri`), in bare quotes; or, of a header left out, the same up to
 * `but the required <header> header is absent`; of a notification, `the notification body names method …`
 * and `the notification envelope names protocol version …`, both as they are.
 */
export function quotingHeaderMismatch(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.code !== HEADER_MISMATCH)
    return answer;
  const { message, data } = answer.error;
  if (typeof message !== "string" || !isJsonObject(data) || !isJsonObject(data.mismatch)) return answer;
  const told = mismatchIn(message.slice(DISAGREE.length), data.mismatch.header, body);
  if (!message.startsWith(DISAGREE) || told === undefined) return answer;
  const { named, sent, header, names } = told;
  let said: string;
  let advice: string;
  if (sent === undefined) {
    said = `${names}${quoted(named)} but the required ${header} header is absent`;
    const spelled = !headerNeedsEncoding(named) && named.length <= SPELLED_HEADER_CHARACTERS;
    advice = spelled ? `send ${header}: ${named}` : `send ${header}, repeating what the body names`;
  } else {
    const { first, second, differsAt } = quotedApart(named, sent);
    const apart = differsAt === undefined ? "" : ` (they differ at character ${differsAt})`;
    said = `${names}${first} but the ${header} header names ${second}${apart}`;
    const copies = copiesIn(sent, named);
    advice =
      copies > 1
        ? `${header} holds what the body names ${copies} times, as HTTP joins a header sent more than once into one value; send it once`
        : `${header} repeats what the body names, character for character`;
  }
  return {
    ...answer,
    error: {
      ...answer.error,
      message: `${DISAGREE}${said}; ${advice}`,
      data: { ...data, mismatch: { ...data.mismatch, body: said } },
    },
  };
}

/** How the SDK words its refusal of `initialize` sent with a 2026-07-28 (or later) MCP-Protocol-Version. */
const HANDSHAKE_WITH_MODERN_HEADER =
  "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header";
/** How the SDK words its refusal of an `Mcp-Name` that begins as base64 does but is none. */
const INVALID_NAME_SENTINEL = "the Mcp-Name header carries an invalid Base64 sentinel value";

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with two of its refusals of headers that
 * said what was wrong but not what to send, saying it: `initialize` sent with MCP-Protocol-Version naming
 * 2026-07-28 (a client that sets the header on every request), told to send the handshake without it or
 * to skip the handshake, as 2026-07-28 has none; and an `Mcp-Name` of the form `=?base64?…?=` whose inside
 * is no base64, told the form and the header to send for the body's name or URI. The same words in
 * `data.mismatch.body`, as quotingHeaderMismatch has them; code, status and the rest of data are kept.
 * The answer itself otherwise.
 *
 * Assumption: the SDK refuses both with -32020, DISAGREE followed by HANDSHAKE_WITH_MODERN_HEADER or
 * INVALID_NAME_SENTINEL, the same words in `data.mismatch.body`, and the header in `data.mismatch.header`.
 */
export function advisingHeaderRefusal(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.code !== HEADER_MISMATCH)
    return answer;
  const { message, data } = answer.error;
  if (!isJsonObject(data) || !isJsonObject(data.mismatch) || typeof data.mismatch.header !== "string")
    return answer;
  const { header } = data.mismatch;
  let said: string;
  let advice: string;
  if (message === `${DISAGREE}${HANDSHAKE_WITH_MODERN_HEADER}`) {
    said = `an initialize request (the 2025 handshake) was sent with MCP-Protocol-Version: ${quoted(header)}, a revision without a handshake`;
    advice = `send initialize without MCP-Protocol-Version (its params.protocolVersion negotiates the version); or, to speak ${MODERN_REVISION}, send no initialize: each request carries its params._meta envelope, and server/discover tells what this server serves`;
  } else if (message === `${DISAGREE}${INVALID_NAME_SENTINEL}`) {
    const params = isJsonObject(body) && isJsonObject(body.params) ? body.params : undefined;
    const value = typeof params?.name === "string" ? params.name : params?.uri;
    said = `the Mcp-Name header ${quoted(header)} begins as a base64-encoded value does, but what follows ${BASE64_SENTINEL} is not base64 ended by ?=`;
    // A name that must be encoded is told its header by namingNameEncoding, which follows.
    const plain = typeof value === "string" && !headerNeedsEncoding(value) ? value : undefined;
    advice =
      plain === undefined
        ? ""
        : plain.length > SPELLED_HEADER_CHARACTERS
          ? "send the body's name or URI in Mcp-Name as it is: it needs no encoding"
          : `send Mcp-Name: ${plain}, as it is: only a value outside printable ASCII, with blanks at either end or beginning ${BASE64_SENTINEL}, goes in the header as ${BASE64_SENTINEL}<its UTF-8 bytes in base64>?=`;
  } else return answer;
  return {
    ...answer,
    error: {
      ...answer.error,
      message: advice === "" ? `${DISAGREE}${said}` : `${DISAGREE}${said}; ${advice}`,
      data: { ...data, mismatch: { ...data.mismatch, body: said } },
    },
  };
}

/**
 * What the SDK's words `said` of a header that differs from `body` or is left out (see
 * quotingHeaderMismatch) compare: the value the body names, the header's (decoded; undefined when left
 * out), the header's name, and the SDK's words before the value (`the notification body names method `).
 */
function mismatchIn(
  said: string,
  header: unknown,
  body: unknown,
): { named: string; sent: string | undefined; header: string; names: string } | undefined {
  if (!isJsonObject(body) || typeof header !== "string") return undefined;
  const params = isJsonObject(body.params) ? body.params : undefined;
  const meta = params?._meta;
  const version = isJsonObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  for (const [named, names, name] of [
    [body.method, "the body names method ", "Mcp-Method"],
    [version, "the body envelope names protocol version ", "MCP-Protocol-Version"],
    [body.method, "the notification body names method ", "Mcp-Method"],
    [version, "the notification envelope names protocol version ", "MCP-Protocol-Version"],
  ] as const) {
    if (typeof named !== "string") continue;
    if (said === `${names}${named} but the ${name} header names ${header}`)
      return { named, sent: header, header: name, names };
    if (header === MISSING && said === `${names}${named} but the required ${name} header is absent`)
      return { named, sent: undefined, header: name, names };
  }
  for (const field of ["name", "uri"]) {
    const named = params?.[field];
    if (typeof named !== "string") continue;
    const names = `the body carries params.${field}=`;
    const opening = `${names}"${named}" but the Mcp-Name header names "`;
    if (said.startsWith(opening) && said.endsWith('"'))
      return { named, sent: said.slice(opening.length, -1), header: "Mcp-Name", names };
    if (header === MISSING && said === `${names}"${named}" but the required Mcp-Name header is absent`)
      return { named, sent: undefined, header: "Mcp-Name", names };
  }
  return undefined;
}

/**
 * How many times `sent` holds `named`, joined with ", " as HTTP joins the copies of a header sent more than
 * once (a proxy that adds Mcp-Name beside the client's own); 1 when it is not so made. Read in linear time.
 */
function copiesIn(sent: string, named: string): number {
  const copies = (sent.length + 2) / (named.length + 2);
  if (!Number.isInteger(copies) || copies < 2) return 1;
  return sent === Array.from({ length: copies }, () => named).join(", ") ? copies : 1;
}

/** What the SDK puts in `data.mismatch.header` for a header left out. */
const MISSING = "(missing)";

function headerNeedsEncoding(value: string): boolean {
  return /[^\x20-\x7e]/.test(value) || value !== value.trim() || value.startsWith(BASE64_SENTINEL);
}
