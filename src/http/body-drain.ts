import type { IncomingMessage } from "node:http";

/** How much of a refused body is read and thrown away before its refusal is sent, and for how long. */
export interface DrainBounds {
  readonly bytes: number;
  readonly ms: number;
}

/** The least a drain reads: a batch some times over the default limit, as a client's mistake sends it. */
const DRAIN_FLOOR_BYTES = 1024 * 1024;
/** A drain reads this many times MAX_BODY_BYTES, when that is more than the floor. */
const DRAIN_TIMES_LIMIT = 4;

/**
 * The bounds of a drain under MAX_BODY_BYTES and REQUEST_TIMEOUT_MS. Discarded bytes are never held, so
 * the byte bound costs bandwidth, not memory; half the request timeout leaves the drain ending before Node
 * times the request out (which counts from its first byte), and holds a connection no longer than a
 * client sending a body within the limit that slowly may hold it anyway.
 */
export function drainBounds(maxBodyBytes: number, requestTimeoutMs: number): DrainBounds {
  return {
    bytes: Math.max(DRAIN_FLOOR_BYTES, DRAIN_TIMES_LIMIT * maxBodyBytes),
    ms: Math.floor(requestTimeoutMs / 2),
  };
}

/**
 * Whether the rest of a body refused unread should be read before the refusal is sent: only while it is
 * still arriving, when the client is sending it (an `Expect: 100-continue` client that got no 100 Continue
 * holds it back), and when what its Content-Length declares fits the bound (reading part of a larger one
 * would end in the same reset, later).
 */
export function worthDraining(request: IncomingMessage, bounds: DrainBounds): boolean {
  if (request.complete || request.destroyed) return false;
  if (request.headers.expect !== undefined && request.readableFlowing !== true) return false;
  const declared = request.headers["content-length"];
  return declared === undefined || Number(declared) <= bounds.bytes;
}

/** How a drain ended: with a client still there to read the refusal, or with the client gone. */
export type DrainEnd = "answerable" | "client gone";

/**
 * Reads the rest of `request`'s body and throws it away, until it ends, the client goes, more than
 * `bounds.bytes` arrive or `bounds.ms` pass; resolves with which (a client gone reads no answer). A client that writes its whole body
 * before reading the answer (Python's http.client, many scripts) was answered as the body was cut off, and
 * the connection closed with the rest unread, which makes the kernel reset it: the client saw a broken
 * pipe or a reset, never the 413. Drained, the connection closes after the body, and the answer is read.
 */
export function drained(request: IncomingMessage, bounds: DrainBounds): Promise<DrainEnd> {
  return new Promise((resolve) => {
    let read = 0;
    const end = (how: DrainEnd): void => {
      clearTimeout(timer);
      request.off("data", onData);
      request.off("end", answerable);
      request.off("close", gone);
      request.off("error", gone);
      resolve(how);
    };
    const answerable = (): void => end("answerable");
    const gone = (): void => end("client gone");
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > bounds.bytes) answerable();
    };
    const timer = setTimeout(answerable, bounds.ms);
    request.on("data", onData);
    request.once("end", answerable);
    request.once("close", gone);
    // Listened for so that a client that goes mid-drain is an end of it, never an error unhandled.
    request.once("error", gone);
  });
}
