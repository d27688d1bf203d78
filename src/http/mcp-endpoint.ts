import type { IncomingMessage } from "node:http";
import {
  createMcpHandler,
  type InboundLadderRejection,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpHttpHandler,
  type ProtocolEra,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Scope } from "../catalog/index.js";
import {
  answersInParamsWords,
  inParamsWords,
  namingEnvelopeKey,
  namingEnvelopeVersion,
  namingMissingEnvelope,
  type ServerFactory,
  servedMethods,
} from "../mcp/index.js";
import { type Answer, AnswerCache, answerKeyOf } from "./answer-cache.js";
import { failureIn } from "./json-rpc.js";
import { RequestOrigins } from "./request-origins.js";
import type { CallerScope } from "./scope.js";
import {
  advisingHeaderRefusal,
  classify,
  countingBatch,
  isCancellation,
  legacyRequestOf,
  MAX_BATCH_MESSAGES,
  modernRequestOf,
  namingAccept,
  namingEnvelopeInBatch,
  namingMethods,
  namingNameEncoding,
  namingUnclaimedEnvelope,
  plainLegacyRequestOf,
  plainModernRequestOf,
  quotingHeaderMismatch,
  rejectionOf,
  ServerConnection,
  unclaimedEnvelopeRefusal,
} from "./sdk-contract.js";

/**
 * An answer, and whether it holds a JSON-RPC error or a tool result with isError: the metrics count those
 * as errors, and none of them is kept.
 */
interface Answered {
  readonly answer: Answer;
  readonly failed: boolean;
  /** What it told the client when it failed (see failureIn), for its log line. */
  readonly failure: string | undefined;
}

/**
 * How `POST /mcp` is answered once its scope is known, the first row that fits:
 *
 * | request                                                           | answered by                              |
 * |-------------------------------------------------------------------|------------------------------------------|
 * | the same as one answered before in its scope (see AnswerCache)     | the kept answer, under the request's id  |
 * | 2025 by the SDK's rule, holding 2026-07-28 envelope keys but not its version (see unclaimedEnvelopeRefusal) | refused, -32602 |
 * | 2025: one request the SDK's stateless transport takes as it is     | the scope's 2025 server                  |
 * | 2025: a batch of such requests, none of them the handshake         | each member by its kept answer or the scope's 2025 server |
 * | 2025: the handshake (`initialize`), which negotiates               | a new server, for this request only      |
 * | 2026-07-28: one request with the headers the SDK requires          | the scope's 2026-07-28 server            |
 * | 2025: anything else (another batch, a notification, a refused header) | a new server, through the SDK's stateless transport |
 * | what the SDK's classification refuses (a header the body belies, an envelope it finds wrong) | its refusal, as `createMcpHandler` gives it |
 * | anything else (2026-07-28 notifications, what a server refuses)    | a new server, through `createMcpHandler` |
 *
 * The era and which requests the SDK's entries would hand their server unchanged are the SDK's own
 * rules (see sdk-contract.ts), told without its schemas for a request that plainly speaks either era; a
 * request that a server refuses before any of its handlers runs (a method it does not serve, an envelope
 * it finds wrong) is answered again by the entry of its era, with that entry's HTTP status. Each
 * scope's two servers are made on its first request of their era and answer every request after it, many
 * at once: a new server and its connection for every request cost more than the search they answer.
 */
export class McpEndpoints {
  readonly #endpoints = new WeakMap<Scope, McpEndpoint>();
  readonly #answers: AnswerCache;
  readonly #origins: RequestOrigins;

  constructor(
    /** Makes what the servers of a scope share, once per scope; the factory it returns makes each. */
    private readonly factoryFor: (scope: Scope) => ServerFactory,
    /** Told what the SDK's entries refuse and what fails in them. */
    private readonly onerror: (error: Error) => void,
    options: {
      /** Bytes of kept answers over all scopes; the default suits production. */
      readonly answerCacheBytes?: number;
      /** Told which HTTP request each request its servers answer came in. */
      readonly origins?: RequestOrigins;
    } = {},
  ) {
    this.#answers = new AnswerCache(options.answerCacheBytes);
    this.#origins = options.origins ?? new RequestOrigins();
  }

  /**
   * One POST whose body Fastify has parsed, read whole: the answer kept for it when it was asked before
   * in the caller's scope (under its own id), else the way to answer it, which keeps the answer when it
   * may be. `reqId` is the POST's own, for what the answer's work logs.
   */
  request(caller: CallerScope, raw: IncomingMessage, body: unknown, reqId?: string): McpRequest {
    const requests = plainLegacyBatchOf(raw, body);
    if (requests !== undefined)
      return { kept: undefined, answer: () => this.#answerBatch(caller, raw, body, requests, reqId) };
    const key = answerKeyOf(caller.key, raw.headers, body);
    const kept = key === undefined ? undefined : this.#answers.answer(key);
    return {
      kept,
      answer: async () => {
        const answered = await this.#endpointOf(caller.scope).answer(raw, body, reqId);
        if (key !== undefined) this.#answers.keep(key, answered.answer, !answered.failed);
        return answered;
      },
    };
  }

  /**
   * A 2025 batch of plain requests, each member answered as it would be alone: its kept answer, else the
   * scope's server, keeping what may be kept. Answered whole by the SDK's transport instead, a batch of a
   * hundred lists cost a hundred answers made afresh on a new server, and a few clients sending them
   * stalled everyone else's requests for seconds. Should the server refuse a member (a method it does not
   * serve), the whole batch goes to the SDK's transport, which answers refusals with its own status.
   */
  async #answerBatch(
    caller: CallerScope,
    raw: IncomingMessage,
    body: unknown,
    requests: readonly JSONRPCRequest[],
    reqId: string | undefined,
  ): Promise<Answered> {
    const endpoint = this.#endpointOf(caller.scope);
    const parts: Buffer[] = [];
    let failed = false;
    let failure: string | undefined;
    // One member after another, so that a member repeated in the batch is answered from the one before.
    for (const request of requests) {
      const key = answerKeyOf(caller.key, raw.headers, request);
      const kept = key === undefined ? undefined : this.#answers.answer(key);
      // Its bytes as they are now: the next member with the same key but another id reframes the kept answer.
      let answer = kept?.body;
      if (answer === undefined) {
        const answered = await endpoint.exchangeLegacy(request, reqId);
        if (answered === undefined) return endpoint.answerRefused(raw, body, reqId);
        if (key !== undefined) this.#answers.keep(key, answered.answer, !answered.failed);
        answer = answered.answer.body;
        failed ||= answered.failed;
        failure ??= answered.failure;
      }
      parts.push(parts.length === 0 ? OPEN_BRACKET : COMMA, answer);
    }
    parts.push(CLOSE_BRACKET);
    return {
      answer: { status: 200, contentType: "application/json", body: Buffer.concat(parts) },
      failed,
      failure,
    };
  }

  #endpointOf(scope: Scope): McpEndpoint {
    let endpoint = this.#endpoints.get(scope);
    if (endpoint === undefined) {
      endpoint = new McpEndpoint(this.factoryFor(scope), this.onerror, this.#origins);
      this.#endpoints.set(scope, endpoint);
    }
    return endpoint;
  }
}

/** A request to the endpoints: its kept answer, if there is one, or the way to make one. */
interface McpRequest {
  readonly kept: Answer | undefined;
  answer(): Promise<Answered>;
}

/** The rows of {@link McpEndpoints} past the kept answers, for one scope. */
export class McpEndpoint {
  readonly #servers: Partial<Record<ProtocolEra, Promise<ServerConnection>>> = {};
  readonly #modernEntry: McpHttpHandler;
  /** The methods a server of each era serves, told on the first method it does not. */
  readonly #served: Partial<Record<ProtocolEra, string[]>> = {};

  constructor(
    private readonly newServer: ServerFactory,
    private readonly onerror: (error: Error) => void,
    /** Told which HTTP request each request its servers answer came in. */
    private readonly origins = new RequestOrigins(),
  ) {
    this.#modernEntry = createMcpHandler(newServer, { legacy: "reject", onerror });
  }

  /** The answer to one POST; `reqId` is its own, for what the answer's work logs. */
  async answer(raw: IncomingMessage, body: unknown, reqId?: string): Promise<Answered> {
    const plainLegacy = plainLegacyRequestOf(raw.headers, body);
    if (plainLegacy !== undefined) return this.#answerLegacy(raw, body, plainLegacy, reqId);
    const plainModern = plainModernRequestOf(raw.headers, body);
    if (plainModern !== undefined) return this.#answerModern(raw, body, plainModern, reqId);
    const outcome = classify(raw.headers, body);
    if (outcome.kind === "legacy") {
      const request = legacyRequestOf(raw.headers, body);
      const unclaimed = request === undefined ? undefined : unclaimedEnvelopeRefusal(raw.headers, request);
      if (unclaimed !== undefined) return refusedWith(unclaimed);
      return this.#answerLegacy(raw, body, request, reqId);
    }
    if (outcome.kind === "reject" && isJsonContentType(raw.headers["content-type"]))
      return this.#refused(outcome, body);
    return this.#answerModern(raw, body, modernRequestOf(raw.headers, outcome), reqId);
  }

  /**
   * A request the SDK's classification refuses, answered from the classification already made, as
   * createMcpHandler answers it (see rejectionOf), which would classify it again to refuse it.
   */
  #refused(outcome: InboundLadderRejection, body: unknown): Answered {
    const { status, message, reported } = rejectionOf(outcome, body);
    this.onerror(reported);
    return wordedAnswer(status, "application/json", message, undefined, body, this.#servedIn("modern"));
  }

  /** A 2026-07-28 POST, and its request when createMcpHandler would hand it to a server unchanged. */
  async #answerModern(
    raw: IncomingMessage,
    body: unknown,
    request: JSONRPCRequest | undefined,
    reqId: string | undefined,
  ): Promise<Answered> {
    if (request !== undefined) {
      const exchanged = await this.#exchange("modern", request, reqId);
      if (!exchanged.refused) return answeredWith(exchanged.message, request);
    }
    // A refusal is made again by the entry for its HTTP status: the SDK keeps its code-to-status map
    // (httpStatusForErrorCode) unexported, from every entry of @modelcontextprotocol/server and core in 2.4.0.
    return this.#answerModernEntry(raw, body, reqId);
  }

  async #answerModernEntry(raw: IncomingMessage, body: unknown, reqId: string | undefined) {
    const forwarded = webRequestOf(raw);
    this.origins.forward(forwarded, reqId);
    const answer = await this.#modernEntry.fetch(forwarded, { parsedBody: body });
    return answeredFrom(answer, body, this.#servedIn("modern"));
  }

  /** A 2025-era POST, and its request when the SDK's transport would hand it to a server unchanged. */
  async #answerLegacy(
    raw: IncomingMessage,
    body: unknown,
    request: JSONRPCRequest | undefined,
    reqId: string | undefined,
  ): Promise<Answered> {
    if (request !== undefined) {
      const exchanged =
        request.method === "initialize"
          ? await (await ServerConnection.open(this.newServer(), "legacy", this.origins)).exchange(
              request,
              reqId,
            )
          : await this.#exchange("legacy", request, reqId);
      if (!exchanged.refused) return answeredWith(exchanged.message, request);
      return this.answerRefused(raw, body, reqId);
    }
    return this.#legacyEntry(raw, body, reqId);
  }

  /**
   * A 2025 POST that the scope's server refused, or a member of which it refused, answered by the SDK's
   * transport (which names each method it does not serve, as every answer of the SDK's entries does).
   */
  async answerRefused(raw: IncomingMessage, body: unknown, reqId?: string): Promise<Answered> {
    return this.#legacyEntry(raw, body, reqId);
  }

  /** The methods a server of `era` serves, worked out on the first refusal of that era. */
  #servedIn(era: ProtocolEra): readonly string[] {
    this.#served[era] ??= servedMethods(this.newServer({ era }).server.getCapabilities(), era);
    return this.#served[era];
  }

  /** A 2025 request but the handshake, answered by the scope's server; undefined when it refuses it. */
  async exchangeLegacy(request: JSONRPCRequest, reqId?: string): Promise<Answered | undefined> {
    const exchanged = await this.#exchange("legacy", request, reqId);
    return exchanged.refused ? undefined : answeredWith(exchanged.message, request);
  }

  /** `request` answered by the scope's server of `era`, made on the first request of that era. */
  async #exchange(era: ProtocolEra, request: JSONRPCRequest, reqId: string | undefined) {
    if (this.#servers[era] === undefined) {
      const server = this.newServer({ era });
      // What fails in it (an answer it could not encode or send) is told, as the SDK's entries tell theirs.
      server.server.onerror = this.onerror;
      this.#servers[era] = ServerConnection.open(server, era, this.origins);
    }
    return (await this.#servers[era]).exchange(request, reqId);
  }

  /** The SDK's stateless transport, answering JSON (its own 2025 leg would answer an event stream). */
  async #legacyEntry(raw: IncomingMessage, parsed: unknown, reqId: string | undefined): Promise<Answered> {
    const body = withoutCancellations(parsed);
    if (Array.isArray(body) && body.length === 0)
      return {
        answer: { status: 202, contentType: "", body: Buffer.alloc(0) },
        failed: false,
        failure: undefined,
      };
    const server = this.newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const forwarded = webRequestOf(raw);
    this.origins.forward(forwarded, reqId);
    try {
      // Worded by the batch as sent: the cancellations left out hold no request to answer, and a refusal
      // of its size counts the messages the client sent (see countingBatch).
      const answered = await answeredFrom(
        await transport.handleRequest(forwarded, { parsedBody: body }),
        parsed,
        this.#servedIn("legacy"),
      );
      if (answered.answer.status === NOT_ACCEPTABLE) return notAcceptable(answered, raw, body);
      return Array.isArray(body) ? asBatchAnswer(answered) : answered;
    } finally {
      // Stateless: the pair serves this one request.
      await Promise.all([transport.close(), server.close()]);
    }
  }
}

const NOT_ACCEPTABLE = 406;

/**
 * The SDK's 406 to `body` worded by namingAccept with the `Accept` the client sent: as it wrote it, from
 * the raw headers, since acceptAsTheSdkReadsIt may have rewritten the one the SDK read.
 */
function notAcceptable(answered: Answered, raw: IncomingMessage, body: unknown): Answered {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answered.answer.body.toString("utf8"));
  } catch {
    return answered;
  }
  const accept = raw.headersDistinct.accept?.join(", ");
  const named = namingUnclaimedEnvelope(namingAccept(parsed, accept, body), body, raw.headers);
  if (named === parsed) return answered;
  return { answer: { ...answered.answer, body: Buffer.from(JSON.stringify(named)) }, ...outcomeOf(named) };
}

/**
 * A batch's answer as JSON-RPC asks: an array, even of one response. The SDK's transport sends a batch
 * that holds one request (beside notifications, or once its cancellations are left out) a bare object,
 * which a client matching a batch to its answer refuses.
 */
function asBatchAnswer(answered: Answered): Answered {
  const { answer } = answered;
  if (answer.status !== 200 || answer.body[0] !== OPEN_BRACE) return answered;
  const body = Buffer.concat([Buffer.from("["), answer.body, Buffer.from("]")]);
  return { ...answered, answer: { ...answer, body } };
}
const OPEN_BRACE = "{".charCodeAt(0);
const OPEN_BRACKET = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE_BRACKET = Buffer.from("]");

/**
 * The members of a 2025 batch that holds requests only, each one the SDK's stateless transport would hand
 * its server unchanged (see plainLegacyRequestOf; the handshake is never one), and no more of them than
 * that transport takes; undefined for anything else.
 */
function plainLegacyBatchOf(raw: IncomingMessage, body: unknown): JSONRPCRequest[] | undefined {
  if (!Array.isArray(body) || body.length === 0 || body.length > MAX_BATCH_MESSAGES) return undefined;
  const requests: JSONRPCRequest[] = [];
  for (const member of body) {
    const request = plainLegacyRequestOf(raw.headers, member);
    if (request === undefined) return undefined;
    requests.push(request);
  }
  return requests;
}

/** The server's answer to `request`; a refusal of its params said in one line (see inParamsWords). */
function answeredWith(message: JSONRPCMessage, request: JSONRPCRequest): Answered {
  const worded = inParamsWords(message, request);
  const answer = { status: 200, contentType: "application/json", body: Buffer.from(JSON.stringify(worded)) };
  return { answer, ...outcomeOf(worded) };
}

/** 400 with `message`, a refusal the endpoint words itself. */
function refusedWith(message: unknown): Answered {
  const answer = { status: 400, contentType: "application/json", body: Buffer.from(JSON.stringify(message)) };
  return { answer, ...outcomeOf(message) };
}

/**
 * The answer of an SDK's entry to `body`, parsed once: worded as answeredWith words one, with each "Method
 * not found" naming the method asked and those `served`, a refusal of `Mcp-Name` saying how to write a
 * name outside ASCII (see namingNameEncoding), and whether it failed (holds a JSON-RPC error or
 * a tool result with isError, or is no JSON). Its bytes as they are when nothing changed.
 */
async function answeredFrom(response: Response, body: unknown, served: readonly string[]): Promise<Answered> {
  const contentType = response.headers.get("content-type") ?? "";
  const bytes = Buffer.from(await response.arrayBuffer());
  const answer = { status: response.status, contentType, body: bytes };
  if (bytes.length === 0) return { answer, failed: false, failure: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { answer, failed: true, failure: undefined };
  }
  if (!contentType.startsWith("application/json")) return { answer, ...outcomeOf(parsed) };
  return wordedAnswer(answer.status, contentType, parsed, bytes, body, served);
}

/**
 * An answer to `body`, `parsed` from its JSON `bytes` (none yet for one made here), worded and named as
 * answeredFrom says; its bytes written only when a message changed, or when there were none.
 */
function wordedAnswer(
  status: number,
  contentType: string,
  parsed: unknown,
  bytes: Buffer | undefined,
  body: unknown,
  served: readonly string[],
): Answered {
  // In this order: each rewords one kind of the SDK's refusals and hands any other answer on as it is.
  const rewordings: readonly ((answer: unknown) => unknown)[] = [
    (answer) => answersInParamsWords(answer, body),
    (answer) => namingMethods(answer, body, served),
    (answer) => quotingHeaderMismatch(answer, body),
    (answer) => advisingHeaderRefusal(answer, body),
    (answer) => countingBatch(answer, body),
    (answer) => namingEnvelopeInBatch(answer, body),
    (answer) => namingNameEncoding(answer, body),
    (answer) => namingEnvelopeVersion(answer, body),
    namingMissingEnvelope,
    namingEnvelopeKey,
  ];
  const named = rewordings.reduce((answer, reword) => reword(answer), parsed);
  const json = named === parsed && bytes !== undefined ? bytes : Buffer.from(JSON.stringify(named));
  return { answer: { status, contentType, body: json }, ...outcomeOf(named) };
}

/**
 * The request as the SDK's entries take it: its method, URL and headers. Fastify has read and parsed the
 * body, which goes to the SDK as `parsedBody`, so the Request carries none (making one with the body
 * again cost a tenth of a new search).
 */
function webRequestOf(raw: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (value !== undefined) for (const item of value) headers.append(name, item);
  }
  return new Request(`http://${raw.headers.host ?? "localhost"}${raw.url ?? "/mcp"}`, {
    method: "POST",
    headers,
  });
}

/**
 * Whether a parsed answer failed (see allSucceeded), and what it told the client then, for its log line:
 * an answer that succeeded told no failure, so it is not read for one.
 */
function outcomeOf(parsed: unknown): Pick<Answered, "failed" | "failure"> {
  const failed = !allSucceeded(parsed);
  return { failed, failure: failed ? failureIn(parsed) : undefined };
}

/** Whether a parsed answer (one message or a batch's) holds no JSON-RPC error and no tool result with isError. */
function allSucceeded(parsed: unknown): boolean {
  return (Array.isArray(parsed) ? parsed : [parsed]).every(isSuccess);
}

function isSuccess(message: unknown): boolean {
  if (message === null || typeof message !== "object" || "error" in message) return false;
  const { result } = message as { result?: { isError?: unknown } };
  return result === undefined || result.isError !== true;
}

/**
 * A batch less its cancellations. Stateless, a POST can only cancel a request of its own batch, and the
 * SDK's transport then never answers that POST: it would hang until the client gives up. Its requests are
 * answered instead.
 */
function withoutCancellations(body: unknown): unknown {
  if (!Array.isArray(body)) return body;
  return body.filter((message) => !isCancellation(message));
}
