import type { IncomingHttpHeaders } from "node:http";
import {
  isInitializeRequest,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isJsonObject, messageShapeProblem } from "../../json-rpc/index.js";
import { MODERN_REVISION } from "../../mcp/index.js";
import { classify, isJsonRpcMessage } from "./classification.js";
import { LEGACY_VERSIONS, legacyChecksVersion, legacyReadsMessages } from "./legacy-transport.js";

/*
 * Requests the SDK refuses, told before it is asked, so that the endpoint refuses each in the SDK's place
 * and order (see legacyChecksVersion), in words that say what to send.
 */

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
 * SDK's refusal of an envelope lists 2026-07-28 alone, the one revision an envelope may name). One before
 * it routes the request to the 2025 era, whose transport refuses it (but for `initialize`, which
 * negotiates) with `-32000` and `"id": null`, though the request has an id; MCP 2025-11-25 asks only for a
 * 400 there, so the endpoint answers as for the later versions, under the request's id, listing every
 * version it speaks.
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
