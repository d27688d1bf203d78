import { METHOD_NOT_FOUND, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { isJsonObject } from "../../json-rpc/index.js";
import { MODERN_REVISION, methodNotFoundMessage } from "../../mcp/index.js";
import { quoted } from "../../shared/index.js";
import { requestId } from "../json-rpc.js";
import { BOTH_ACCEPTED, MAX_BATCH_MESSAGES } from "./legacy-transport.js";

/*
 * The SDK's answers that refuse without saying what to send, reworded: each rewrite finds the SDK's own
 * words (an assumption of its own) and leaves any other answer as it is.
 */

/** A JSON-RPC error answer, as parsed. */
type ErrorAnswer = Record<string, unknown> & { error: Record<string, unknown> };

/** Whether `answer` is an error answer in the SDK's own `words`, which each rewrite below looks for. */
function refusesWith(answer: unknown, words: string): answer is ErrorAnswer {
  return isJsonObject(answer) && isJsonObject(answer.error) && answer.error.message === words;
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
  if (!refusesWith(answer, NOT_ACCEPTABLE)) return answer;
  const sent = accept === undefined ? "no Accept header was sent" : `Accept was ${quoted(accept, 200)}`;
  const told = `Not Acceptable: ${sent}; send Accept: ${BOTH_ACCEPTED}. A client of the 2025 protocol versions must accept both, as Streamable HTTP may answer a POST with one JSON message or with a stream of events (ranges that take them, */* or application/*, text/*, do too).`;
  return { ...answer, error: { ...answer.error, message: told }, id: requestId(body) };
}

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
  if (!refusesWith(answer, TOO_LARGE_BATCH)) return answer;
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
  if (!refusesWith(answer, ENVELOPE_IN_BATCH)) return answer;
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
