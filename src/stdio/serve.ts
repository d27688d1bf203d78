import { pipeline } from "node:stream";
import {
  INVALID_REQUEST,
  type JSONRPCErrorResponse,
  PARSE_ERROR,
  ProtocolError,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio as serveSdkStdio } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { ByteBudget } from "../budget/index.js";
import { SHUTDOWN_GRACE_MS } from "../config/index.js";
import {
  bytesAt,
  doubtsTheId,
  isJsonObject,
  messageShapeProblem,
  type TextProblem,
  textProblemIn,
  textProblemMessage,
} from "../json-rpc/index.js";
import { fileBytesOf, MAX_READ_BYTES, type McpDeps, servedMethods, serverFactoryFor } from "../mcp/index.js";
import { excerpt, isSaidSparingly, visible } from "../shared/index.js";
import { BudgetedTransport } from "./budgeted-transport.js";
import { EnvelopeCheck } from "./envelope-check.js";
import { InputLines, type NotJsonWhy } from "./input-lines.js";
import { MessageCheck, type MessageProblem } from "./message-check.js";
import { MethodNaming } from "./method-naming.js";

/** The longest line (one JSON-RPC message) read from stdin: the SDK's own limit. */
const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;
const MAX_LINE_MIB = MAX_LINE_BYTES / (1024 * 1024);
/** What an answer without files counts for in the budget of answers waiting for stdout. */
const ANSWER_BYTES = MAX_READ_BYTES / 8;

interface StdioDeps {
  readonly mcp: McpDeps;
  readonly logger: Logger;
  /** Resolves on SIGTERM or SIGINT: the server stops as when the client hangs up. */
  readonly stopped: Promise<NodeJS.Signals>;
}

/**
 * Serves the same server over stdin/stdout for a local agent, in either protocol era (the SDK's entry
 * tells them apart by the first message). There is no header here, so the caller sees the whole loaded
 * catalog (still narrowed by SKILL_PACKS). Resolves when the client hangs up, or on a stop signal.
 */
export async function serveStdio(deps: StdioDeps): Promise<void> {
  const closed = sessionEnd(deps);
  const scope = deps.mcp.catalog.everything;
  // A line over the limit is dropped as it streams in, said to the client and in the log; the rest of the
  // input is read on. A line that is not JSON, which the SDK skips without a word, is said likewise.
  // (An error of stdin reaches the SDK's transport as an error of `input`.)
  const warnNotJson = warnSparingly(
    deps.logger,
    "stdio: a line from the client is not JSON (one JSON-RPC message per line, in UTF-8); skipped",
  );
  const warnNotUtf8 = warnSparingly(
    deps.logger,
    "stdio: a line from the client is not UTF-8 (MCP messages are UTF-8); skipped",
  );
  const input = new InputLines(MAX_LINE_BYTES, {
    tooLong: () => {
      deps.logger.warn(`stdio: a line from the client is over ${MAX_LINE_MIB} MiB; skipped unread`);
      transport.answer(tooLong, ANSWER_BYTES);
    },
    unfinished: (bytes) =>
      deps.logger.warn(
        { bytes },
        "stdio: stdin ended in the middle of a line, which was dropped: end each message with a newline",
      ),
    notJson: (why) => {
      warnNotJson();
      // A request on it would go unanswered, and its client wait out its own timeout.
      transport.answer(notJsonAnswer(why), ANSWER_BYTES);
    },
    notUtf8: (line, at) => {
      warnNotUtf8({ at });
      transport.answer(notUtf8Answer(line, at), ANSWER_BYTES);
    },
  });
  pipeline(process.stdin, input, () => {});
  // A message, though refused before the SDK hears of it: its line was JSON.
  const refuseParsed = (refusal: JSONRPCErrorResponse) => {
    input.parsed();
    transport.answer(refusal, ANSWER_BYTES);
  };
  const warnTooDeep = warnSparingly(
    deps.logger,
    "stdio: a notification or response from the client is nested too deep to read; skipped",
  );
  const warnRepeatedKey = warnSparingly(
    deps.logger,
    "stdio: a notification or response from the client holds a key twice in one object; skipped",
  );
  // Answers holding files are made and queued for stdout 8 MiB of files at a time, as over HTTP. Any other
  // answer counts as 1 MiB, so that at most 8 wait for a client that does not read them: answered at once,
  // 20,000 tools/list of 60 bytes took 460 MB. (A subscription's request stays open while it lasts.)
  const transport = new BudgetedTransport(
    new MethodNaming(
      new EnvelopeCheck(
        new MessageCheck(
          // Its buffer holds at most a line under the limit and one chunk of stdin: its own limit, which
          // ends the connection, is never reached.
          new StdioServerTransport(input, process.stdout, { maxBufferSize: Number.POSITIVE_INFINITY }),
          // Found in the line the message was read from, which alone still holds both copies of a key.
          () => lineProblem(input.current),
          refuseParsed,
          ({ text }) => {
            input.parsed();
            if (text.kind === "too deep") warnTooDeep();
            else warnRepeatedKey();
          },
        ),
        refuseParsed,
      ),
      () => served,
      (method) => withoutId({ method: excerpt(visible(method), 100) }),
    ),
    new ByteBudget(MAX_READ_BYTES),
    (method, params) =>
      method === "subscriptions/listen"
        ? 0
        : Math.max(fileBytesOf(deps.mcp, scope, method, params), ANSWER_BYTES),
    input,
  );
  // A request sent without its id is a notification, which nothing answers: its client waits for nothing.
  const withoutId = warnSparingly(
    deps.logger,
    'stdio: a message without an "id" names a request\'s method, so it is a notification, which nothing answers; send a request with an id',
  );
  // The methods the server now answering serves: the SDK makes one for the era the client opens with
  // (and another, should a client that probed with server/discover go on in 2025).
  let served: readonly string[] | undefined;
  const newServer = serverFactoryFor(deps.mcp, scope);
  const handle = serveSdkStdio(
    (made) => {
      const server = newServer(made);
      served = servedMethods(server.server.getCapabilities(), made?.era ?? "legacy");
      return server;
    },
    {
      transport,
      onerror: sdkErrorHandler(deps.logger, input, (answer) => transport.answer(answer, ANSWER_BYTES)),
    },
  );
  await closed;
  await handle.close();
  await writtenOut(process.stdout, SHUTDOWN_GRACE_MS);
}

/**
 * Resolves when the session ends: the client closes stdin or stops reading stdout, or a stop signal comes;
 * said once in the log, for whichever comes first (a host's log showed no reason for the most common end).
 */
function sessionEnd({ logger, stopped }: Pick<StdioDeps, "logger" | "stopped">): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (say?: () => void) => {
      if (stopping) return;
      stopping = true;
      say?.();
      resolve();
    };
    const hungUp = () => stop(() => logger.info("stdio: the client closed stdin; stopping"));
    process.stdin.once("end", hungUp);
    process.stdin.once("close", hungUp);
    // Stdout broken (the client stopped reading): the SDK's transport closes, and nothing can be answered.
    // (sdkErrorHandler says so.)
    process.stdout.once("error", () => stop());
    stopped.then((signal) => stop(() => logger.info({ signal }, "stdio: stopping")));
  });
}

/**
 * What is done with each error the SDK's stdio entry tells of: the client's mistakes answered or said
 * sparingly, the client going away said once, and only the server's own faults logged as errors.
 */
function sdkErrorHandler(
  logger: Logger,
  input: InputLines,
  answer: (refusal: JSONRPCErrorResponse) => void,
): (error: Error) => void {
  const warnNotMessage = warnSparingly(
    logger,
    "stdio: a line from the client is not a JSON-RPC message; skipped",
  );
  const warnDiscarded = warnSparingly(
    logger,
    "stdio: a message from the client was discarded by the SDK, and nothing answers it",
  );
  let outputClosed = false;
  return (error) => {
    // What the SDK tells of while reading a line comes after the line parsed as JSON (it skips one that
    // does not without a word).
    input.parsed();
    // The client went away (it exited, or closed its end of the pipe): the normal end of a session, which
    // was logged as an error of ours with the write's whole stack.
    if (isClosedPipe(error)) {
      if (!outputClosed) logger.info("stdio: the client closed stdout; stopping");
      outputClosed = true;
      return;
    }
    // JSON that is no JSON-RPC message at all (a batch, which 2025-06-18 dropped, or a message missing
    // its members) is the client's mistake, which the SDK skips as it skips a line that is not JSON:
    // said in one line, not logged as a fault of ours with every issue of the SDK's schema.
    if (error instanceof ZodError && error.issues.every((issue) => issue.path.length === 0)) {
      const json = jsonOf(input.current);
      const refusals = refusalsOf(json);
      // What is wrong, and whether the client is told: a notification is answered by nothing, so the
      // log line is all that says why it did nothing.
      warnNotMessage({ ...whyNoMessage(json), answered: refusals.length > 0 });
      for (const refusal of refusals) answer(refusal);
      return;
    }
    // A response or notification the SDK discards is the client's mistake, which nothing answers: said
    // sparingly, with the SDK's words, not logged as a fault of ours with a stack.
    if (DISCARDED_CLIENT_MESSAGE.test(error.message)) {
      warnDiscarded({ reason: error.message });
      return;
    }
    // A request the SDK refuses (a protocol revision it does not speak) is answered to the client: its
    // mistake, logged at debug as /mcp logs it.
    const refusal = error instanceof ProtocolError || error.message.startsWith("Rejected");
    logger[refusal ? "debug" : "error"]({ err: error }, "stdio");
  };
}

/**
 * Resolves once what was written to `output` has left, or after `ms` (for a client that never reads it): the
 * answers still to be made are dropped, but exiting at once cut the one being written in the middle of its
 * line, and the client read a last line that was no JSON.
 */
function writtenOut(output: NodeJS.WriteStream, ms: number): Promise<void> {
  if (output.writableLength === 0 || output.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    // Called once the writes before it are done, or have failed (the client closed stdout).
    output.write("", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Whether `error` is a write to a pipe whose reader closed it (a socket, as Node's parent process makes). */
function isClosedPipe(error: Error): boolean {
  const { code } = error as NodeJS.ErrnoException;
  return code === "EPIPE" || code === "ECONNRESET";
}

/**
 * A warning about the client's input, said sparingly (see {@link isSaidSparingly}) with the count so far:
 * said each time, it filled the log 40 times as fast as a client that sent nothing else wrote.
 */
function warnSparingly(
  logger: Logger,
  message: string,
): (fields?: Readonly<Record<string, unknown>>) => void {
  let count = 0;
  return (fields) => {
    count++;
    if (!isSaidSparingly(count)) return;
    logger.warn({ skipped: count, ...fields }, message);
  };
}

/**
 * Why `json` (a line the SDK parsed and refused as a message) is no JSON-RPC message, in the words its
 * answer uses, and the method it names, if any: `{"method":"notifications/initialized","params":5}` was
 * warned of only as "not a JSON-RPC message", and nothing answers a notification.
 */
function whyNoMessage(json: unknown): { readonly reason: string; readonly method?: string } {
  if (Array.isArray(json))
    return { reason: json.length === 0 ? "an empty batch" : "a batch, which stdio does not serve" };
  const reason = messageShapeProblem(json, "the line") ?? "no JSON-RPC request, notification or response";
  const { method } = isJsonObject(json) ? json : {};
  // As a log line shows what a client sent: cut, and every character no reader sees written out.
  return typeof method === "string" ? { reason, method: excerpt(visible(method), 100) } : { reason };
}

/**
 * How the SDK's stdio transport tells of a client's message it discards unanswered: a response before the
 * protocol revision was settled, a notification with a malformed or unsupported envelope. (It tells of
 * its own trouble as "Discarded the …".) The SDK gives these, and "Rejected …" below, no class or code of
 * their own, only their words: the tests of stdio's log pin them, so that an SDK rewording them fails there.
 */
const DISCARDED_CLIENT_MESSAGE = /^Discarded a (JSON-RPC response|notification) /;

/** The JSON on `line` (which the SDK parsed, and refused as a message). */
function jsonOf(line: Buffer | undefined): unknown {
  try {
    return line === undefined ? undefined : JSON.parse(line.toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The answers to JSON the SDK refused as no message: -32600 with its id to a request of the wrong shape,
 * which would otherwise go unanswered while its client waits out its own timeout, and so to each request
 * of a batch. An empty batch gets one -32600 without an id: it went unanswered; so does a batch of more
 * than MAX_BATCH messages, as /mcp refuses one whole (answering the 220,000 of a line of 9.5 MiB one by
 * one took 100 MiB more, and answering only the first of them left the others' clients waiting). A
 * request whose id MCP does not allow (1.5, 2^53 + 1, null, true) is answered without an id, as a line
 * that is not JSON is: it went unanswered, where /mcp says what is wrong with its id. JSON that is neither
 * a request, a response nor a notification (`5`, `null`, `{}`, a method that is no string) is answered
 * -32600 without an id too, as JSON-RPC answers it (with `"id": null`, which the SDK's client refuses) and
 * /mcp does: it was only warned about, and its client never told. A response or notification of the
 * wrong shape gets nothing: JSON-RPC answers neither, and answering responses could have two peers trade
 * errors without end.
 */
function refusalsOf(json: unknown): JSONRPCErrorResponse[] {
  if (!Array.isArray(json)) {
    if (isRequestShaped(json)) return [invalidRequest(requestIdOf(json), notMessage(json))];
    if (isResponseShaped(json) || isNotificationShaped(json)) return [];
    return [invalidRequest(undefined, notMessage(json))];
  }
  // JSON-RPC answers an empty batch with one Invalid Request, as /mcp does;
  // without an id, as no member has one.
  if (json.length === 0) return [invalidRequest(undefined, EMPTY_BATCH)];
  if (json.length > MAX_BATCH) return [invalidRequest(undefined, tooLargeBatch(json.length))];
  return json.flatMap((member) => {
    const id = requestIdOf(member);
    return id === undefined ? [] : [invalidRequest(id, NO_BATCH)];
  });
}

/** What is wrong with a request of the wrong shape, in the words `/mcp` uses, or what a message is. */
function notMessage(request: unknown): string {
  const problem = messageShapeProblem(request, "the line");
  return problem === undefined ? NOT_MESSAGE : `Invalid Request: ${problem}`;
}

/**
 * Whether `message` is a request, right or wrong: an object with an id and a method, or with an id and
 * neither a result nor an error (a request missing its method, which no response is: /mcp answers it).
 */
function isRequestShaped(message: unknown): message is { id: unknown } {
  if (typeof message !== "object" || message === null || !("id" in message)) return false;
  return "method" in message || !("result" in message || "error" in message);
}

/** Whether `message` is a response, right or wrong: an object with a result or an error and no method. */
function isResponseShaped(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  return !("method" in message) && ("result" in message || "error" in message);
}

/** Whether `message` is a notification, right or wrong: an object naming its method, without an id. */
function isNotificationShaped(message: unknown): boolean {
  if (typeof message !== "object" || message === null || "id" in message) return false;
  return "method" in message && typeof message.method === "string";
}

/**
 * The id of `message`, if it is a request (an object with a method and an id JSON-RPC allows): a response
 * or a notification gets no answer.
 */
function requestIdOf(message: unknown): string | number | undefined {
  if (!isRequestShaped(message)) return undefined;
  const { id } = message;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : undefined;
}

const NOT_MESSAGE =
  'Invalid Request: the line is not a valid JSON-RPC message (jsonrpc "2.0", an id that is a string or an integer, a method that is a string, params that are an object)';
/** The most messages of a batch over stdio whose requests are answered, as the most a batch holds over HTTP. */
const MAX_BATCH = 100;
/** MCP 2025-06-18 dropped batches, and the SDK's stdio transport never took them. */
const NO_BATCH =
  "Invalid Request: a batch (a JSON array of messages) is not served over stdio; send each JSON-RPC message on a line of its own";
const EMPTY_BATCH =
  "Invalid Request: an empty batch; a batch (a JSON array of messages) is not served over stdio either: send each JSON-RPC message on a line of its own";

/** In the SDK's words for the batch /mcp refuses (400), and what stdio takes instead. */
function tooLargeBatch(messages: number): string {
  return `Invalid Request: Batch must not exceed ${MAX_BATCH} messages (this one holds ${messages}); a batch (a JSON array of messages) is not served over stdio either: send each JSON-RPC message on a line of its own`;
}

/**
 * The answer to a request on a line that is no valid JSON-RPC message, as `/mcp` answers one; without an
 * id when its own is none MCP allows (see `tooLong` for why not `"id": null`).
 */
function invalidRequest(id: string | number | undefined, message: string): JSONRPCErrorResponse {
  const error = { code: INVALID_REQUEST, message };
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}

/**
 * The answer to a line that is not JSON, naming the mistake where `why` knows it. It has no id, as `tooLong`
 * has none.
 */
function notJsonAnswer(why: NotJsonWhy): JSONRPCErrorResponse {
  return { jsonrpc: "2.0", error: { code: PARSE_ERROR, message: NOT_JSON[why ?? "other"] } };
}

/**
 * The answer to a line that is not UTF-8 from byte `at`, as /mcp answers such a body (-32700), saying
 * where. It has no id, as `tooLong` has none.
 */
function notUtf8Answer(line: Buffer, at: number): JSONRPCErrorResponse {
  const message = `Parse error: a line was not UTF-8 from byte offset ${at} of the line (counting from 0; the bytes there are ${bytesAt(line, at)}), so the request on it, if any, gets no other answer. MCP messages are UTF-8: send each JSON-RPC message as one line of JSON in UTF-8, ended by a newline.`;
  return { jsonrpc: "2.0", error: { code: PARSE_ERROR, message } };
}

const NOT_JSON = {
  bom: "Parse error: a line began with a byte-order mark (U+FEFF), which stdio does not read (HTTP does), so the request on it, if any, gets no other answer. Send each JSON-RPC message as one line of JSON in UTF-8 without a byte-order mark, ended by a newline.",
  more: 'Parse error: a line held a whole JSON value and more after it, so the request on it, if any, gets no other answer. A line holds one JSON-RPC message: end each message with a newline ("\\n", LF).',
  other:
    "Parse error: a line was not JSON, so the request on it, if any, gets no other answer. Send each JSON-RPC message as one line of JSON in UTF-8, ended by a newline.",
};

/**
 * The answer to a line over the limit, which was not read. It has no id, as MCP's schema has it for a message
 * whose id is unknown: the MCP SDK's client rejects JSON-RPC's `"id": null` as no message at all, and shows
 * its user a schema error instead of this one.
 */
const tooLong: JSONRPCErrorResponse = {
  jsonrpc: "2.0",
  error: {
    code: INVALID_REQUEST,
    message: `Message too large: a line of more than ${MAX_LINE_BYTES} bytes (${MAX_LINE_MIB} MiB) was skipped unread, so the request on it, if any, gets no other answer. Send each JSON-RPC message on one line of at most ${MAX_LINE_MIB} MiB.`,
  },
};

/** Why the line a message was read from refuses it, what its text holds (see textProblemIn) beside. */
interface LineProblem extends MessageProblem {
  readonly text: TextProblem;
}

/**
 * Why the line a message was read from is refused: nested too deep, or holding a key twice in one object
 * (see textProblemIn), read from its bytes, which the SDK has decoded already.
 */
function lineProblem(line: Buffer | undefined): LineProblem | undefined {
  const text = line === undefined ? undefined : textProblemIn(line);
  if (text === undefined) return undefined;
  return { message: textProblemMessage(text), trustsId: !doubtsTheId(text), text };
}
