import { setTimeout as sleep } from "node:timers/promises";
import type { FetchLike } from "@modelcontextprotocol/client";

/**
 * A wait the server asks for (`Retry-After`) is honoured up to this long (a skills-mcp server's rate limit
 * counts by the minute), and this many times a request.
 */
const MAX_WAIT_SECONDS = 60;
const MAX_WAITS = 5;

/**
 * `inner`, sending a request again after the wait the server asks for: a 429 (over its rate limit) or a
 * 503 (shedding load) with `Retry-After` says it did not handle the request. A longer wait, or one past
 * {@link MAX_WAITS}, is the answer: the request fails, as without the header.
 */
export function patientFetch(inner: FetchLike, onWait: (seconds: number, status: number) => void): FetchLike {
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
export function resentFetch(inner: FetchLike): FetchLike {
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
