import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Client,
  type FetchLike,
  type ResponseCacheStore,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { SKILLS_LIST_METHOD, SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { Agent, type Dispatcher, EnvHttpProxyAgent } from "undici";
import { quoted } from "../shared/index.js";
import { answeredStatus } from "./describe-error.js";
import { ReadAnswers } from "./read-answers.js";

/** How to reach a server and in which scope, as an MCP client configured for it would. */
export interface ServerAddress {
  /** The MCP endpoint (`https://skills.example.com/mcp`). */
  readonly url: URL;
  /** Sent with every request: `X-Skill-Pack` and any the user gave. */
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string;
}

/** The protocol era to speak: `auto` asks the server and takes the newest both speak. */
export type Era = "auto" | "legacy" | "modern";

export interface Connection {
  readonly client: Client;
  readonly skills: SkillsClient;
  /** The files its reads were answered with instead of the one asked for. */
  readonly readAnswers: ReadAnswers;
  close(): Promise<void>;
}

/**
 * No answer is read past this many bytes: the largest skill the extension allows (16 MiB) as base64 in
 * JSON, with room to spare. A server that sends more cannot make sync hold it.
 */
export const MAX_ANSWER_BYTES = 24 * 1024 * 1024;
/**
 * Pages of `skills/list` walked at most. A page holds at most 100 skills, and a skills-mcp server stops one
 * at 512 KiB of entries: 100,000 skills whose manifests average 5 KiB (some 30 files) come in 10,000 pages.
 */
const LIST_MAX_PAGES = 20_000;

/**
 * A response cache that keeps nothing. The SDK's default keeps every answer as long as the server's
 * `ttlMs` says (up to 512 reads of up to 24 MiB each); sync reads each file once, and holds what it
 * reuses itself, within a budget.
 */
const NO_RESPONSE_CACHE: ResponseCacheStore = {
  get: () => undefined,
  set: () => 0,
  delete: () => undefined,
  evict: () => undefined,
  clear: () => undefined,
};

/** A server's answer went past {@link MAX_ANSWER_BYTES}. */
class AnswerTooLargeError extends Error {
  override name = "AnswerTooLargeError";
}

/**
 * A wait the server asks for (`Retry-After`) is honoured up to this long (a skills-mcp server's rate limit
 * counts by the minute), and this many times a request.
 */
const MAX_WAIT_SECONDS = 60;
const MAX_WAITS = 5;

export async function connect(
  address: ServerAddress,
  era: Era,
  version: string,
  onWait: (seconds: number, status: number) => void = () => undefined,
): Promise<Connection> {
  const { apiKey } = address;
  const refusals = new RefusalWatch();
  // Connections of its own, ended with the client. Closing the client aborts the reads under way, but
  // fetch's shared pool keeps those it had queued, and opens a connection for each (to find it aborted)
  // whenever one of its connections closes: a run that stopped went on connecting to the server, taking
  // the file descriptors its cleanup needs. Ended, this pool opens none, and closes its idle ones.
  const pool = ownPool(process.env, process.execArgv);
  const transport = new StreamableHTTPClientTransport(address.url, {
    requestInit: { headers: headersAsBytes(address.headers) },
    fetch: refusals.watch(
      patientFetch(cappedFetch(MAX_ANSWER_BYTES, resentFetch(ownSignalFetch(pooledFetch(pool)))), onWait),
    ),
    ...(apiKey === undefined ? {} : { authProvider: { token: async () => apiKey } }),
  });
  // Whoever closes the client (a run's end, a failure, the SDK itself), the pool ends with it.
  transport.onclose = () => void pool.destroy();
  const readAnswers = new ReadAnswers();
  readAnswers.watch(transport);
  const mode = era === "modern" ? { pin: "2026-07-28" } : era;
  const client = new Client(
    { name: "skills-mcp-sync", version },
    { versionNegotiation: { mode }, listMaxPages: LIST_MAX_PAGES, responseCacheStore: NO_RESPONSE_CACHE },
  );
  try {
    await client.connect(transport);
  } catch (error) {
    await pool.destroy();
    const refusal = refusals.last;
    // The modern era's probe takes any refusal for "no modern server" and drops the status and the server's
    // words ("did not offer pinned protocol version"); the legacy era's error keeps them.
    if (refusal !== undefined && answeredStatus(error) === undefined) throw refusal;
    throw error;
  } finally {
    refusals.stop();
  }
  return {
    client,
    skills: new SkillsClient(client, { skipInvalid: true }),
    readAnswers,
    close: () => client.close(),
  };
}

/**
 * A pool of connections of its own that goes where Node's global fetch would: through the proxy that
 * `HTTP_PROXY`/`HTTPS_PROXY` name (`NO_PROXY` excepted) when Node is told to use them, else straight on.
 */
function ownPool(env: NodeJS.ProcessEnv, execArgv: readonly string[]): Dispatcher {
  return usesEnvProxy(env, execArgv) ? new EnvHttpProxyAgent() : new Agent();
}

/**
 * Whether Node (22.21 and 24.5 on) sends its global fetch through the environment's proxy, as Node 24.22,
 * 22.21 and 22.23 decide it: `--use-env-proxy` or `--no-use-env-proxy`, the last given (NODE_OPTIONS, then
 * the command line), else `NODE_USE_ENV_PROXY=1`; and a proxy named. Read from the variables, not asked of
 * Node, so that a run on an older Node told so uses the proxy too: Node 20 and 22.20 send fetch straight on
 * whatever NODE_USE_ENV_PROXY says, and refuse the flag as they start ("bad option"), before sync runs.
 */
export function usesEnvProxy(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  const named = [env.HTTP_PROXY, env.HTTPS_PROXY, env.http_proxy, env.https_proxy].some(
    (value) => value !== undefined && value !== "",
  );
  if (!named) return false;
  const flags = [...nodeOptionsArgs(env.NODE_OPTIONS ?? ""), ...execArgv].map(optionName);
  const last = flags.findLast((flag) => flag === "--use-env-proxy" || flag === "--no-use-env-proxy");
  return last === undefined ? env.NODE_USE_ENV_PROXY === "1" : last === "--use-env-proxy";
}

/** A proxy from the environment: its URL without any user and password, and the variable that names it. */
export interface EnvProxy {
  readonly url: string;
  /** Its host and port, or the URL itself where it is none undici could use. */
  readonly host: string;
  readonly variable: string;
  /** Whether the variable's URL holds a user or password. */
  readonly credentials: boolean;
}

/**
 * The proxy that sync's requests to `url` go through, picked as undici's EnvHttpProxyAgent picks it:
 * http_proxy/HTTP_PROXY, for https URLs https_proxy/HTTPS_PROXY first; none for a host NO_PROXY names.
 */
export function proxyFor(
  url: URL,
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
): EnvProxy | undefined {
  if (!usesEnvProxy(env, execArgv)) return undefined;
  const named = (names: readonly string[]) => names.find((name) => env[name] !== undefined);
  const http = named(["http_proxy", "HTTP_PROXY"]);
  const https = named(["https_proxy", "HTTPS_PROXY"]);
  const variable = url.protocol === "https:" && https !== undefined && env[https] !== "" ? https : http;
  const value = variable === undefined ? undefined : env[variable];
  if (variable === undefined || value === undefined || value === "" || noProxy(url, env)) return undefined;
  const parsed = URL.parse(value);
  if (parsed === null || !/^https?:$/.test(parsed.protocol)) {
    // One undici refuses (no scheme, or another): shown as given, but for any user and password.
    const url = value.replace(/^([a-z][a-z\d+.-]*:\/\/)?[^/@]*@/i, "$1");
    return { url, host: url, variable, credentials: url !== value };
  }
  const credentials = parsed.username !== "" || parsed.password !== "";
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.href, host: parsed.host, variable, credentials };
}

/** Whether no_proxy/NO_PROXY exempts `url`'s host from the proxy, as undici reads it. */
function noProxy(url: URL, env: NodeJS.ProcessEnv): boolean {
  const value = env.no_proxy ?? env.NO_PROXY ?? "";
  if (value === "*") return true;
  const host = url.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === "https:" ? 443 : 80);
  return value
    .split(/[,\s]/)
    .filter((entry) => entry !== "")
    .some((entry) => {
      const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
      const exempt = name.replace(/^\*?\./, "").toLowerCase();
      if (entryPort !== undefined && Number.parseInt(entryPort, 10) !== port) return false;
      return host === exempt || host.endsWith(`.${exempt}`);
    });
}

/**
 * NODE_OPTIONS split as Node splits it: at spaces (only) outside double quotes, the quotes dropped wherever
 * they stand, a backslash inside them escaping the character after it. A value Node refuses (an
 * unterminated quote) stops Node before sync runs.
 */
function nodeOptionsArgs(options: string): string[] {
  const args: string[] = [];
  let arg: string | undefined;
  let quoted = false;
  for (let index = 0; index < options.length; index++) {
    let char = options.charAt(index);
    if (char === "\\" && quoted) {
      index += 1;
      char = options.charAt(index);
    } else if (char === " " && !quoted) {
      if (arg !== undefined) args.push(arg);
      arg = undefined;
      continue;
    } else if (char === '"') {
      quoted = !quoted;
      continue;
    }
    arg = (arg ?? "") + char;
  }
  if (arg !== undefined) args.push(arg);
  return args;
}

/**
 * An option's name as Node reads it: without any `=value` (Node 24.22, 22.21 and 22.23 take
 * `--use-env-proxy=false` for `--use-env-proxy`), underscores taken for dashes.
 */
function optionName(arg: string): string {
  const name = arg.split("=", 1)[0] ?? arg;
  return name.startsWith("--") ? name.replaceAll("_", "-") : name;
}

/** The global fetch, its connections taken from `pool`. */
function pooledFetch(pool: Dispatcher): FetchLike {
  // Node's fetch types its dispatcher with @types/node's copy of undici's types, which differs from the
  // package's own in FormData's iterators alone, not in the dispatch that fetch calls.
  const dispatcher = pool as unknown as NonNullable<RequestInit["dispatcher"]>;
  return (url, init) => fetch(url, { ...init, dispatcher });
}

/**
 * `inner`, each request given an abort signal of its own that follows the one it was sent with, and lets
 * go of it once the answer is read (or fails, or is cancelled). The transport sends every request with one
 * signal, and fetch's listener on a request's signal stays until the request is garbage collected: a
 * listing of some 1,500 pages gathered as many on it, and Node printed MaxListenersExceededWarning.
 */
export function ownSignalFetch(inner: FetchLike): FetchLike {
  return async (url, init) => {
    const shared = init?.signal;
    if (shared === undefined || shared === null) return inner(url, init);
    const own = new AbortController();
    const follow = () => own.abort(shared.reason);
    const letGo = () => shared.removeEventListener("abort", follow);
    if (shared.aborted) follow();
    else shared.addEventListener("abort", follow, { once: true });
    let response: Response;
    try {
      response = await inner(url, { ...init, signal: own.signal });
    } catch (error) {
      letGo();
      throw error;
    }
    if (response.body === null) {
      letGo();
      return response;
    }
    return new Response(untilBodyEnds(response.body, letGo), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** `body` as it is, calling `ended` once it is read to its end, fails or is cancelled. */
function untilBodyEnds(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        ended();
        controller.close();
      } catch (error) {
        ended();
        controller.error(error);
      }
    },
    async cancel(reason) {
      ended();
      await reader.cancel(reason);
    },
  });
}

/** The server refused a request of the connection's start: its HTTP status and what it said of why. */
export class RefusedAnswerError extends Error {
  override name = "RefusedAnswerError";
  /** Where {@link answeredStatus} reads it, as on the SDK's own HTTP errors. */
  readonly data: { readonly status: number };
  constructor(
    status: number,
    /** The server's own words, which may be empty. */
    readonly said: string,
  ) {
    super(`the server answered HTTP ${status}${said === "" ? "" : `: ${said}`}`);
    this.data = { status };
  }
}

/** Of a refused answer's body, no more is read for its reason: a JSON-RPC error is a few hundred bytes. */
const REFUSAL_READ_BYTES = 4096;

/**
 * Keeps the refusal the last request of a connection's start was answered with (an HTTP 4xx), until
 * `stop`: what the server said of a pack it does not serve, a key it does not take or a path it has no
 * route for.
 */
class RefusalWatch {
  last: RefusedAnswerError | undefined;
  private watching = true;

  watch(inner: FetchLike): FetchLike {
    return async (url, init) => {
      if (this.watching) this.last = undefined;
      const response = await inner(url, init);
      if (this.watching && response.status >= 400 && response.status < 500) {
        this.last = new RefusedAnswerError(response.status, await reasonOf(response.clone()));
      }
      return response;
    };
  }

  stop(): void {
    this.watching = false;
    this.last = undefined;
  }
}

/**
 * The reason in a refused answer: a JSON-RPC error's message, or the first line of its text, from its
 * first {@link REFUSAL_READ_BYTES} bytes.
 */
async function reasonOf(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let read = 0;
  try {
    while (read < REFUSAL_READ_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      read += value.byteLength;
    }
  } catch {
    // What the body held up to a failure is reason enough.
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).toString("utf8", 0, Math.min(read, REFUSAL_READ_BYTES));
  try {
    const body: unknown = JSON.parse(text);
    const error = typeof body === "object" && body !== null && "error" in body ? body.error : undefined;
    const said =
      typeof error === "object" && error !== null && "message" in error ? error.message : undefined;
    if (typeof said === "string") return said;
  } catch {
    // Not JSON, or cut short: its first line below.
  }
  return text.split("\n", 1)[0]?.trim() ?? "";
}

/**
 * Headers as fetch can send them: it sends each character of a value as one byte and refuses any past
 * Latin-1, so a value holding one (`--pack demo/日本語`) goes as its UTF-8 bytes, which the server reads
 * as UTF-8. Other values go as they are, as every server version reads them.
 */
function headersAsBytes(headers: Readonly<Record<string, string>>): Record<string, string> {
  const latin1 = (value: string) => Buffer.from(value, "latin1").toString("latin1") === value;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      latin1(value) ? value : Buffer.from(value, "utf8").toString("latin1"),
    ]),
  );
}

/**
 * `inner`, sending a request again after the wait the server asks for: a 429 (over its rate limit) or a
 * 503 (shedding load) with `Retry-After` says it did not handle the request. A longer wait, or one past
 * {@link MAX_WAITS}, is the answer: the request fails, as without the header.
 */
function patientFetch(inner: FetchLike, onWait: (seconds: number, status: number) => void): FetchLike {
  return async (url, init) => {
    for (let waits = 0; ; waits++) {
      const response = await inner(url, init);
      if ((response.status !== 429 && response.status !== 503) || waits >= MAX_WAITS) return response;
      const seconds = retryAfterSeconds(response.headers.get("retry-after"));
      if (seconds === undefined || seconds > MAX_WAIT_SECONDS) return response;
      await response.body?.cancel();
      onWait(seconds, response.status);
      // Past the request's own timeout, the SDK aborts it: no wait outlives it.
      await sleep(seconds * 1000, undefined, { signal: init?.signal ?? undefined });
    }
  };
}

/**
 * A request sent again at most this many times when its connection closed before any answer came: fetch
 * keeps connections open between requests and sends the next one on one that the server may be closing
 * at that moment (its idle timeout ran out), which fails with ECONNRESET or "other side closed".
 */
const MAX_RESENDS = 2;

/** The codes of a connection that closed under a request (node:net's, and undici's `other side closed`). */
const CLOSED_UNDER_REQUEST = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/**
 * `inner`, sending a request again when its connection closed before the answer began: fetch rejects only
 * before an answer's headers, so the server answered nothing. Every request sync sends reads (the
 * connection's start, skills/list, skills/get, resources/read), so one the server did handle is harmless
 * to send again. Not a request aborted (its timeout, a stop), nor one whose body cannot be sent again.
 */
function resentFetch(inner: FetchLike): FetchLike {
  return async (url, init) => {
    for (let resends = 0; ; resends++) {
      try {
        return await inner(url, init);
      } catch (error) {
        const again =
          resends < MAX_RESENDS &&
          init?.signal?.aborted !== true &&
          (init?.body === undefined || init.body === null || typeof init.body === "string") &&
          closedUnderRequest(error);
        if (!again) throw error;
      }
    }
  };
}

function closedUnderRequest(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && CLOSED_UNDER_REQUEST.has(code);
}

/** A `Retry-After` value (seconds, or an HTTP date) in whole seconds from now, or undefined when it is neither. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * Bytes of `skills/list` answers read at most over all the pages of a listing: as many as the largest
 * listing a skills-mcp server makes (100,000 skills whose entries average 5 KiB), where each page may be
 * read up to {@link MAX_ANSWER_BYTES} for up to {@link LIST_MAX_PAGES} pages, every entry held.
 */
export const MAX_LISTING_BYTES = 512 * 1024 * 1024;

/** The bytes left to the answers of requests sent within {@link listWithin}. */
interface ListingBudget {
  readonly bytes: number;
  left: number;
  /**
   * The SHA-256 of each cursor the listing asked with so far: a server whose pages lead back to one
   * already read (`a` → `b` → `a`) would otherwise be walked to the last page allowed, each asked again.
   */
  readonly cursors: Set<string>;
}

const listingBudgets = new AsyncLocalStorage<ListingBudget>();

/** A server's listing went past its budget. */
class ListingTooLargeError extends Error {
  override name = "ListingTooLargeError";
}

/**
 * `list`, the answers of its requests read up to `bytes` over all of them: a server that hands out endless
 * pages of large entries cannot make sync hold them all.
 */
export async function listWithin<T>(bytes: number, list: () => Promise<T>): Promise<T> {
  return listingBudgets.run({ bytes, left: bytes, cursors: new Set() }, list);
}

/** A server's listing led back to a page it had already given. */
class ListingLoopError extends Error {
  override name = "ListingLoopError";
}

/**
 * Throws when the request `body` (sync's own JSON-RPC, as the SDK sends it) asks `skills/list` for a
 * cursor the listing already asked with; records the cursor otherwise.
 */
function askNoCursorTwice(budget: ListingBudget, body: unknown): void {
  const cursor = listCursorOf(body);
  if (cursor === undefined) return;
  const key = createHash("sha256").update(cursor).digest("hex");
  if (budget.cursors.has(key)) {
    throw new ListingLoopError(
      `the server's skills/list pages loop: after ${budget.cursors.size + 1} pages, its next cursor ${quoted(cursor)} is one an earlier page gave; no more of them was read`,
    );
  }
  budget.cursors.add(key);
}

/** The cursor of a `skills/list` request's body, if it is one that asks with a cursor. */
function listCursorOf(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.includes('"cursor"')) return undefined;
  try {
    const request: unknown = JSON.parse(body);
    if (typeof request !== "object" || request === null || !("params" in request)) return undefined;
    const { params } = request;
    if (!("method" in request) || request.method !== SKILLS_LIST_METHOD) return undefined;
    const cursor =
      typeof params === "object" && params !== null && "cursor" in params ? params.cursor : undefined;
    return typeof cursor === "string" ? cursor : undefined;
  } catch {
    return undefined;
  }
}

/** Takes `read` bytes from a listing's budget: false once it is spent. */
function withinListing(budget: ListingBudget, read: number): boolean {
  budget.left -= read;
  return budget.left >= 0;
}

function listingTooLarge(budget: ListingBudget): ListingTooLargeError {
  return new ListingTooLargeError(
    `the server's skills/list answers are over ${budget.bytes.toLocaleString("en-US")} bytes over all their pages; no more of them was read`,
  );
}

/** The answers of requests sent within {@link withAnswerLimit}: read up to `bytes`, and whether one went past. */
interface AnswerLimit {
  readonly bytes: number;
  passed: boolean;
}

const answerLimits = new AsyncLocalStorage<AnswerLimit>();

/**
 * `send`, its requests' answers read up to `bytes` (below {@link MAX_ANSWER_BYTES}): what a read has
 * room for in a budget shared by reads at once. Says `passed` when an answer went past, so that the read
 * may be sent again with room for the largest answer; the bytes past were not read.
 */
export async function withAnswerLimit<T>(
  bytes: number,
  send: () => Promise<T>,
): Promise<{ readonly answer: T } | { readonly passed: true }> {
  const limit: AnswerLimit = { bytes, passed: false };
  try {
    const answer = await answerLimits.run(limit, send);
    // Whatever `send` made of an answer cut short (a file not served, say), it is not the server's.
    return limit.passed ? { passed: true } : { answer };
  } catch (error) {
    if (limit.passed) return { passed: true };
    throw error;
  }
}

/**
 * fetch, whose answers fail once their body passes `limit` bytes (or says it will), or the lower limit
 * of {@link withAnswerLimit} the request was sent within.
 */
function cappedFetch(limit: number, inner: FetchLike): FetchLike {
  return async (url, init) => {
    const within = answerLimits.getStore();
    const listing = listingBudgets.getStore();
    const cap = Math.min(limit, within?.bytes ?? limit);
    if (listing !== undefined) askNoCursorTwice(listing, init?.body);
    const response = await inner(url, init);
    const declared = Number(response.headers.get("content-length") ?? 0);
    const tooLarge = () => {
      if (cap < limit && within !== undefined) within.passed = true;
      return new AnswerTooLargeError(`the server's answer is over ${cap} bytes; it was not read`);
    };
    if (declared > cap) {
      await response.body?.cancel();
      throw tooLarge();
    }
    if (listing !== undefined && declared > listing.left) {
      await response.body?.cancel();
      throw listingTooLarge(listing);
    }
    if (response.body === null) return response;
    let read = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          if (read > cap) controller.error(tooLarge());
          else if (listing !== undefined && !withinListing(listing, chunk.byteLength)) {
            controller.error(listingTooLarge(listing));
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
