import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { LRUCache } from "lru-cache";
import { isRequest } from "./exchange.js";

/** How many bytes of answers are kept, over every ceiling: some 2,000 SKILL.md answers. */
export const ANSWER_CACHE_BYTES = 16 * 1024 * 1024;
/** What an entry costs besides its bytes and its key. */
const ENTRY_COST_BYTES = 256;
/** Keys of searches remembered as asked once, in characters: a key holds the request's arguments. */
export const ASKED_ONCE_CHARACTERS = 1024 * 1024;
/**
 * Past this, the end of a response (`,"jsonrpc":"2.0","id":…}`) is framed for its request and never
 * kept: an id may be a string as long as the body, which would grow entries behind the budget's back.
 */
const KEPT_CLOSING_BYTES = 128;

/** Tools whose answer depends only on the ceiling and the arguments: all four read the catalog. */
const SAME_EVERY_TIME: ReadonlySet<string> = new Set([
  "list_packs",
  "list_skills",
  "read_skill",
  "read_pack_file",
]);

/** A request whose answer can be kept, and how to know it again. */
export interface AnswerKey {
  readonly request: string;
  readonly id: RequestId;
  /**
   * A search: kept only once asked a second time. A workflow that runs again asks the same question word
   * for word, but most searches are new, and keeping each of them would only churn memory.
   */
  readonly keptWhenRepeated: boolean;
}

/**
 * What identifies a request whose answer is the same every time within one ceiling: tools/list, and a
 * tools/call of a tool that only reads the catalog, which does not change while it is served; searches
 * by their exact words. Left out: anything with `_meta` or a task, which ask more of the server.
 */
export function answerKey(message: JSONRPCMessage): AnswerKey | undefined {
  if (!isRequest(message)) return undefined;
  const { method, params, id } = message;
  if (params !== undefined && "_meta" in params) return undefined;
  if (method === "tools/list") {
    return { request: `${method}\n${JSON.stringify(params ?? {})}`, id, keptWhenRepeated: false };
  }
  if (method !== "tools/call" || params === undefined) return undefined;
  const { name, arguments: args, ...rest } = params;
  if (typeof name !== "string" || !SAME_EVERY_TIME.has(name) || Object.keys(rest).length > 0)
    return undefined;
  const query = args !== null && typeof args === "object" ? (args as { query?: unknown }).query : undefined;
  const search = name === "list_skills" && typeof query === "string" && query.trim() !== "";
  return { request: `${method}\n${JSON.stringify(params)}`, id, keptWhenRepeated: search };
}

/**
 * A kept answer: the whole response as last sent, and where its result ends. The same bytes go to the
 * next request with the same id, without a copy; another id costs one copy of the result, and becomes
 * the one kept. A client that opens a session per call (n8n's MCP client does) asks with the same small
 * id every time; framing an 8 KB SKILL.md anew cost some 10 µs of the 58 µs of a kept answer.
 */
interface KeptAnswer {
  response: Buffer;
  id: RequestId;
  readonly resultEnd: number;
}

/**
 * Answers kept serialized, so that a repeated request costs neither the MCP server nor JSON escaping (a
 * SKILL.md is some 8 KB of text full of newlines and quotes). Only results that are not errors are
 * kept: an error may come from a file that could not be read this time.
 */
export class AnswerCache {
  readonly #kept: LRUCache<string, KeptAnswer>;
  /** Keys of answers given once and not kept (see {@link AnswerKey.keptWhenRepeated}). */
  readonly #askedOnce = new LRUCache<string, true>({
    maxSize: ASKED_ONCE_CHARACTERS,
    sizeCalculation: (_asked, key) => key.length,
  });

  constructor(budgetBytes: number = ANSWER_CACHE_BYTES) {
    this.#kept = new LRUCache({
      maxSize: budgetBytes,
      sizeCalculation: entrySize,
    });
  }

  /** Bytes held now, counted afresh over every entry (for tests and diagnostics: it walks the cache). */
  heldBytes(): number {
    let held = 0;
    for (const [key, kept] of this.#kept.entries()) held += entrySize(kept, key);
    for (const key of this.#askedOnce.keys()) held += key.length * 2;
    return held;
  }

  /** The whole answer to request `id` with the result kept under `key`, if there is one. */
  answer(key: string, id: RequestId): Buffer | undefined {
    const kept = this.#kept.get(key);
    if (kept === undefined) return undefined;
    if (kept.id === id) return kept.response;
    const end = closing(id);
    const response = Buffer.concat([kept.response.subarray(0, kept.resultEnd), end]);
    if (end.length <= KEPT_CLOSING_BYTES) {
      kept.response = response;
      kept.id = id;
      // Set again, so that the cache measures the entry again.
      this.#kept.set(key, kept);
    }
    return response;
  }

  /**
   * Keeps `result` under `key` unless it is an error, or, when it is kept only once repeated, the first
   * time; returns the whole answer to request `id`.
   */
  keep(
    key: string,
    id: RequestId,
    result: Readonly<Record<string, unknown>>,
    keptWhenRepeated = false,
  ): Buffer {
    const bytes = Buffer.from(JSON.stringify(result));
    const end = closing(id);
    const response = Buffer.concat([OPENING, bytes, end]);
    const keepable = result.isError !== true && end.length <= KEPT_CLOSING_BYTES;
    if (keepable && (!keptWhenRepeated || this.#askedBefore(key))) {
      this.#kept.set(key, { response, id, resultEnd: OPENING.length + bytes.length });
    }
    return response;
  }

  #askedBefore(key: string): boolean {
    if (this.#askedOnce.delete(key)) return true;
    this.#askedOnce.set(key, true);
    return false;
  }
}

/**
 * A JSON-RPC response is `OPENING`, the result, then `closing(id)`: byte for byte JSON.stringify of the
 * SDK's response.
 */
const OPENING = Buffer.from('{"result":');

function closing(id: RequestId): Buffer {
  return Buffer.from(`,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`);
}

function entrySize(kept: KeptAnswer, key: string): number {
  return kept.response.length + key.length * 2 + ENTRY_COST_BYTES;
}
