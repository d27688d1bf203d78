import type { FastifyReply, FastifyRequest, FastifySchemaValidationError } from "fastify";
import { formatSize, type SelectorError } from "../catalog/index.js";
import { doubtsTheId, textProblemMessage } from "../json-rpc/index.js";
import { quoted } from "../shared/index.js";
import { JSON_RPC, type JsonRpcErrorBody, jsonRpcError, requestId, sendError } from "./json-rpc.js";
import {
  batchedHandshakeOf,
  invalidMessageProblem,
  MAX_BATCH_MESSAGES,
  modernMisfitOf,
  repeatedIdOf,
  type UnsupportedVersion,
  unsupportedVersionOf,
} from "./sdk-contract.js";

/** What a POST to `/mcp` carries besides its body, as its route declares it. */
export interface McpRequest {
  Headers: { "x-skill-pack"?: string };
  /** `?pack=` may be repeated: each is a selector or a comma list, as in the header. */
  Querystring: { pack?: string[] };
}

export type McpPost = FastifyRequest<McpRequest>;

/** An answer that refuses a request: its status, its JSON-RPC error, and the headers that go with them. */
export class Refusal {
  constructor(
    readonly status: number,
    readonly body: JsonRpcErrorBody,
    readonly headers: Readonly<Record<string, string | number>> = {},
  ) {}
}

export function refuse(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return sendError(reply.code(refusal.status).headers(refusal.headers), refusal.body);
}

/**
 * 405 naming POST, the one method `/mcp` takes, what to send in it, and why a GET (a 2025 client's event
 * stream) or a DELETE (its session's end) has nothing to answer.
 */
export const NOT_ALLOWED = new Refusal(
  405,
  jsonRpcError(
    JSON_RPC.invalidRequest,
    "Method not allowed: /mcp takes POST only; send each JSON-RPC message (or a 2025 batch of them) in a POST. This stateless server opens no event stream to GET and keeps no session to DELETE.",
  ),
  { allow: "POST" },
);

/**
 * 501 for a body in a transfer coding besides chunked (`Transfer-Encoding: gzip, chunked`), as RFC 9112,
 * section 6.1, asks of a coding the server does not understand: Node undoes the chunks and hands on the
 * rest as it is, so a gzip body was told it is not JSON. Closes the connection, whose body is left unread:
 * read to its end, a body of unknown length would be read for nothing. Codings that do not end in chunked
 * never get here: wellFormedRequest answers them 400 on every route.
 */
export function transferCodingRefusal(header: string | undefined): Refusal | undefined {
  // `chunked` alone, the common case of a body without a length, before a split.
  if (header === undefined || header.trim().toLowerCase() === "chunked") return undefined;
  const unknown = header
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding !== "" && coding.toLowerCase() !== "chunked");
  if (unknown.length === 0) return undefined;
  return new Refusal(
    501,
    jsonRpcError(
      JSON_RPC.invalidRequest,
      `Unsupported transfer coding ${unknown.map((coding) => quoted(coding.slice(0, 100))).join(", ")} in Transfer-Encoding ${quoted(header.slice(0, 200))}: this server takes only chunked; send the JSON-RPC message with Transfer-Encoding: chunked alone, or with a Content-Length.`,
    ),
    { connection: "close" },
  );
}

/** 415 for a body in a content coding (`identity` is none), which the route would read as if it were not. */
export function contentCodingRefusal(header: string | undefined): Refusal | undefined {
  const codings = codingsOf(header);
  if (codings.length === 0) return undefined;
  return new Refusal(
    415,
    jsonRpcError(
      JSON_RPC.invalidRequest,
      `Unsupported content encoding: ${codings.join(", ").slice(0, 100)}; send the JSON-RPC message uncompressed, without Content-Encoding.`,
    ),
    { "accept-encoding": "identity" },
  );
}

/**
 * 415 for a JSON body declared in a charset other than UTF-8 (`application/json; charset=utf-16`), which
 * was read as UTF-8 whatever it said: a body really in that charset was told it is not JSON, or, in
 * latin-1, served with its accented letters turned to U+FFFD. MCP's messages are UTF-8, as JSON between
 * systems is (RFC 8259, section 8.1); `utf-8` (and its common misspelling `utf8`) or no charset is served.
 * Another media type is left to the route, which names it.
 */
export function charsetRefusal(header: string | undefined): Refusal | undefined {
  // A type without parameters names no charset: the common case, before a split that cost every POST
  // some 90 ns in process.
  if (header === undefined || !header.includes(";")) return undefined;
  const [mediaType = "", ...parameters] = header.split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") return undefined;
  for (const parameter of parameters) {
    const equals = parameter.indexOf("=");
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    const charset = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (UTF_8.has(charset.toLowerCase())) continue;
    return new Refusal(
      415,
      jsonRpcError(
        JSON_RPC.invalidRequest,
        `Unsupported charset ${quoted(charset)} in Content-Type ${quoted(header)}: MCP messages are UTF-8; send the JSON-RPC message encoded in UTF-8, as Content-Type: application/json (with charset=utf-8, or none).`,
      ),
    );
  }
  return undefined;
}

/** The charsets a JSON body is read in: UTF-8's name, and the misspelling clients send for it. */
const UTF_8: ReadonlySet<string> = new Set(["utf-8", "utf8"]);

/** The content codings a `Content-Encoding` header names but `identity` (no coding). */
function codingsOf(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

/**
 * The message checks of a POST to `/mcp`, in the order it is refused by them (docs/security.md, section 2,
 * lists each answer): each looks at the request whose body is read and whose batch is charged, before its
 * scope is resolved. A 2026-07-28 misfit comes before the shape of a batch's members, which it refuses
 * whatever they hold.
 */
const MESSAGE_CHECKS: readonly ((request: McpPost) => Refusal | undefined)[] = [
  unknownQueryParameter,
  textProblem,
  emptyBatch,
  modernMisfit,
  invalidMessage,
  handshakeInBatch,
  unsupportedVersion,
  repeatedRequestId,
  repeatedSkillPack,
];

/** Why `request` is refused by its message alone, by the first of the checks that refuses it. */
export function messageRefusal(request: McpPost): Refusal | undefined {
  for (const check of MESSAGE_CHECKS) {
    const refusal = check(request);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** 400, -32600 saying `message`, under the id of the request's body when it has one. */
function invalidRequest(message: string, body?: unknown): Refusal {
  return new Refusal(400, jsonRpcError(JSON_RPC.invalidRequest, message, requestId(body)));
}

/** A shape of ?pack= the client meant as a ceiling (?pack[]=a) must not go unread and show everything. */
function unknownQueryParameter({ query, body }: McpPost): Refusal | undefined {
  const unknown = Object.keys(query).find((name) => name !== "pack");
  if (unknown === undefined) return undefined;
  return invalidRequest(
    `Unknown query parameter ${quoted(unknown)}: /mcp takes only pack, repeated (?pack=a&pack=b) or as a comma list (?pack=a,b).`,
    body,
  );
}

/**
 * A body nested too deep for what reads it after, or holding a key twice in one object (a gateway that
 * reads the first copy and this server, which read the last, would disagree on what was asked), whichever
 * its text holds first. Under the message's id, unless the id is what repeats.
 */
function textProblem({ textProblem: problem, body }: McpPost): Refusal | undefined {
  if (problem === undefined) return undefined;
  return new Refusal(
    400,
    jsonRpcError(
      JSON_RPC.invalidRequest,
      textProblemMessage(problem),
      doubtsTheId(problem) ? null : requestId(body),
    ),
  );
}

function emptyBatch({ body }: McpPost): Refusal | undefined {
  if (!Array.isArray(body) || body.length > 0) return undefined;
  return invalidRequest(
    `Invalid Request: an empty batch; POST one JSON-RPC message (a JSON object), or a batch of 1 to ${MAX_BATCH_MESSAGES} (a JSON array of them; 2025 protocol versions only).`,
  );
}

function modernMisfit({ headers, body }: McpPost): Refusal | undefined {
  const misfit = modernMisfitOf(headers, body);
  return misfit === undefined ? undefined : invalidRequest(misfit);
}

function invalidMessage({ headers, body }: McpPost): Refusal | undefined {
  const problem = invalidMessageProblem(headers, body);
  return problem === undefined ? undefined : invalidRequest(`Invalid Request: ${problem}`, body);
}

/**
 * A 2025 batch holding `initialize`: told to send the handshake alone, where the SDK said "Only one
 * initialization request is allowed" of a batch holding one and a ping.
 */
function handshakeInBatch({ headers, body }: McpPost): Refusal | undefined {
  const messages = batchedHandshakeOf(headers, body);
  if (messages === undefined) return undefined;
  return invalidRequest(
    `Invalid Request: initialize must be sent alone, not in a batch (this one holds ${messages} messages); send it in a POST of its own, then the others.`,
  );
}

function unsupportedVersion({ headers, raw, body }: McpPost): Refusal | undefined {
  const unsupported = unsupportedVersionOf(headers, body);
  if (unsupported === undefined) return undefined;
  const { requested, supported } = unsupported;
  return new Refusal(
    400,
    jsonRpcError(
      JSON_RPC.unsupportedProtocolVersion,
      unsupportedVersionMessage(unsupported, copiesOf(raw, "mcp-protocol-version")),
      requestId(body),
      { supported, requested },
    ),
  );
}

/** A 2025 batch of two requests under one id, of which the SDK would answer one only. */
function repeatedRequestId({ headers, body }: McpPost): Refusal | undefined {
  const repeated = repeatedIdOf(headers, body);
  if (repeated === undefined) return undefined;
  const { id, first, again } = repeated;
  return invalidRequest(
    `Invalid Request: the batch's requests at index ${first} and ${again} (counting from 0) share the id ${typeof id === "string" ? quoted(id) : id}; give each request of a batch an id of its own, which its answer carries.`,
  );
}

/**
 * Node joins repeated headers with commas, which would read as a list: a ceiling that a proxy adds beside
 * the client's own header would widen to both.
 */
function repeatedSkillPack({ headers, raw, body }: McpPost): Refusal | undefined {
  const copies = headers["x-skill-pack"]?.includes(",") ? copiesOf(raw, "x-skill-pack") : 1;
  if (copies <= 1) return undefined;
  return invalidRequest(
    `X-Skill-Pack was sent ${copies} times: send it once, with a comma list for several selectors (X-Skill-Pack: a,b); a proxy that sets it must replace the client's header, not add one.`,
    body,
  );
}

/** 429: a batch of `messages` took the client past `perMinute` requests a minute. */
export function batchOverRateLimit(retryAfter: number, messages: number, perMinute: number): Refusal {
  return new Refusal(
    429,
    jsonRpcError(
      JSON_RPC.unavailable,
      `Rate limit exceeded, retry in ${retryAfter} seconds: each of the ${messages} messages of this batch counts against the limit of ${perMinute} a minute.`,
    ),
    { "retry-after": retryAfter },
  );
}

/** What a selector is, for a refusal of one. */
const SELECTOR = "a selector is a pack, a group or pack/group, and several go in a comma list";

/**
 * 400 for an X-Skill-Pack or `?pack=` past the limits the route's schema sets (`error`, Fastify's, whose
 * words name the schema's paths: "querystring/pack must NOT have more than 32 items"), under the id of the
 * request's body.
 */
export function selectorsOverLimits(
  error: Error & { validation: readonly FastifySchemaValidationError[]; validationContext: string },
  body: unknown,
): Refusal {
  const [fault] = error.validation;
  const limit = String(fault?.params.limit);
  const said =
    error.validationContext === "headers"
      ? `X-Skill-Pack is longer than ${limit} characters; ${SELECTOR}.`
      : fault?.keyword === "maxItems"
        ? `?pack= is given more than ${limit} times; give fewer, or one comma list (?pack=a,b).`
        : fault?.keyword === "maxLength"
          ? `a ?pack= is longer than ${limit} characters; ${SELECTOR}.`
          : error.message;
  return invalidRequest(`Invalid Request: ${said}`, body);
}

/** A selector of X-Skill-Pack or ?pack= that matches nothing: its message names the valid ones. */
export function unknownSelector(error: SelectorError, body: unknown): Refusal {
  return invalidRequest(error.message, body);
}

/** A batch that may read more bytes of files than one request may. */
export function tooMuchToRead(weight: number, limit: number): Refusal {
  return invalidRequest(
    `Invalid request: this batch may read ${formatSize(weight)} of files and skill entries, and one request may read at most ${formatSize(limit)}; send its reads in smaller batches.`,
  );
}

/** How many times the client sent header `name`, which Node joins into one value with ", ". */
function copiesOf(raw: McpPost["raw"], name: string): number {
  return raw.headersDistinct[name]?.length ?? 1;
}

/**
 * Node joins a header sent `copies` times with ", " (as the SDK's web Headers do), which names no version:
 * said as such, or a client sent "2025-11-25" twice read that 2025-11-25 is unsupported, and listed.
 */
function unsupportedVersionMessage({ requested, supported }: UnsupportedVersion, copies: number): string {
  const named =
    copies > 1
      ? `MCP-Protocol-Version was sent ${copies} times (${requested}); send it once, naming one version`
      : requested.trim() === ""
        ? "the MCP-Protocol-Version header is empty"
        : requested;
  return `Unsupported protocol version: ${named} (supported versions: ${supported.join(", ")})`;
}
