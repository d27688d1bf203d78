import type { FetchLike } from "@modelcontextprotocol/client";

/** The server refused a request of the connection's start: its HTTP status and what it said of why. */
export class RefusedAnswerError extends Error {
  override name = "RefusedAnswerError";
  /** Where answeredStatus (describe-error.ts) reads it, as on the SDK's own HTTP errors. */
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
export class RefusalWatch {
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
