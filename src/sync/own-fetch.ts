import type { FetchLike } from "@modelcontextprotocol/client";
import type { Dispatcher } from "undici";

/** The global fetch, its connections taken from `pool`. */
export function pooledFetch(pool: Dispatcher): FetchLike {
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
