import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import type { FetchLike } from "@modelcontextprotocol/client";
import { SKILLS_LIST_METHOD } from "@modelcontextprotocol/client/ext/skills";
import { quoted } from "../shared/index.js";

/**
 * No answer is read past this many bytes: the largest skill the extension allows (16 MiB) as base64 in
 * JSON, with room to spare. A server that sends more cannot make sync hold it.
 */
export const MAX_ANSWER_BYTES = 24 * 1024 * 1024;
/**
 * Pages of `skills/list` walked at most. A page holds at most 100 skills, and a skills-mcp server stops one
 * at 512 KiB of entries: 100,000 skills whose manifests average 5 KiB (some 30 files) come in 10,000 pages.
 */
export const LIST_MAX_PAGES = 20_000;

/** A server's answer went past {@link MAX_ANSWER_BYTES}. */
class AnswerTooLargeError extends Error {
  override name = "AnswerTooLargeError";
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
export function cappedFetch(limit: number, inner: FetchLike): FetchLike {
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
