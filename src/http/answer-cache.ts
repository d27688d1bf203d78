import type { IncomingHttpHeaders } from "node:http";
import type { RequestId } from "@modelcontextprotocol/server";
import { LRUCache } from "lru-cache";
import { answerKeeping } from "../mcp/index.js";
import { answerEnding, CHECKED_HEADERS } from "./sdk-contract.js";

/** How many bytes of answers are kept, over every scope: some 2,000 SKILL.md answers. */
const ANSWER_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * An answer larger than this is never kept: it would push out hundreds of others, and giving it to a
 * request with another id copies it whole, outside the budget of file bytes that bounds its making.
 */
export const KEPT_ANSWER_BYTES = 1024 * 1024;
/** What an entry costs besides its bytes and its key. */
const ENTRY_COST_BYTES = 256;
/** Keys of searches remembered as asked once, in characters: a key holds the request's arguments. */
export const ASKED_ONCE_CHARACTERS = 1024 * 1024;
/** An answer to a request with a longer id is framed for it and never kept (ids may be long strings). */
const KEPT_ID_CHARACTERS = 128;

/** A request whose answer may be kept, and how to know it again. */
interface AnswerKey {
  readonly key: string;
  readonly id: RequestId;
  /**
   * A search: kept only once asked a second time. A workflow that runs again asks the same question word
   * for word, but most searches are new, and keeping each of them would only churn memory.
   */
  readonly keptWhenRepeated: boolean;
}

/** An answer of the SDK as it went out: its status, content type and bytes. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

/**
 * The key of a request whose answer the MCP layer says depends only on the scope and the request: its
 * scope, the headers the SDK checks and the whole body but its id, which also tell its protocol era (the
 * SDK tells it from the protocol version header and the envelope in `_meta`). Undefined for anything
 * else: batches, notifications, and what must be answered afresh.
 */
export function answerKeyOf(
  scopeKey: string,
  headers: IncomingHttpHeaders,
  body: unknown,
): AnswerKey | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const { id, ...rest } = body as { id?: unknown; method?: unknown; params?: unknown };
  if ((typeof id !== "string" && typeof id !== "number") || typeof rest.method !== "string") return undefined;
  const keeping = answerKeeping(rest.method, rest.params);
  if (keeping === undefined) return undefined;
  const checked = CHECKED_HEADERS.map((name) => String(headers[name] ?? ""));
  return {
    key: [scopeKey, ...checked, JSON.stringify(rest)].join("\n"),
    id,
    keptWhenRepeated: keeping === "when-repeated",
  };
}

/**
 * A kept answer: the response as last sent, and where the id in it begins. The same bytes go to the next
 * request with the same id, without a copy; another id costs one copy, and becomes the one kept. A client
 * that opens a session per call (n8n's MCP client does) asks with the same small id every time.
 */
interface KeptAnswer {
  readonly status: number;
  readonly contentType: string;
  body: Buffer;
  id: RequestId;
  readonly idStart: number;
}

/**
 * Answers the SDK gave, kept as the bytes it sent, so that a repeated request costs neither the MCP
 * server nor JSON escaping (a SKILL.md is some 8 KB of text full of newlines and quotes). Only successes
 * are kept: an error may come from a file that could not be read this time.
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
      maxEntrySize: Math.min(budgetBytes, KEPT_ANSWER_BYTES),
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

  /** The kept answer to `request`, framed with its id, if there is one. */
  answer(request: AnswerKey): Answer | undefined {
    const kept = this.#kept.get(request.key);
    if (kept === undefined) return undefined;
    if (kept.id !== request.id) {
      const id = JSON.stringify(request.id);
      const body = Buffer.concat([kept.body.subarray(0, kept.idStart), Buffer.from(`${id}}`)]);
      if (id.length > KEPT_ID_CHARACTERS) return { ...kept, body };
      kept.body = body;
      kept.id = request.id;
      // Set again, so that the cache measures the entry again.
      this.#kept.set(request.key, kept);
    }
    return kept;
  }

  /**
   * Keeps `answer` to `request` when it is a success whose bytes end with the request's id, as the SDK
   * writes a response (see answerEnding), and, for a search, when it is asked a second time.
   */
  keep(request: AnswerKey, answer: Answer, succeeded: boolean): void {
    if (!succeeded || answer.status !== 200) return;
    const ending = answerEnding(request.id);
    if (
      ending.length > KEPT_ID_CHARACTERS ||
      !answer.body.subarray(-ending.length).equals(Buffer.from(ending))
    ) {
      return;
    }
    if (request.keptWhenRepeated && !this.#askedBefore(request.key)) return;
    this.#kept.set(request.key, {
      ...answer,
      id: request.id,
      idStart: answer.body.length - ending.length + '"id":'.length,
    });
  }

  #askedBefore(key: string): boolean {
    if (this.#askedOnce.delete(key)) return true;
    this.#askedOnce.set(key, true);
    return false;
  }
}

function entrySize(kept: KeptAnswer, key: string): number {
  return kept.body.length + key.length * 2 + ENTRY_COST_BYTES;
}
