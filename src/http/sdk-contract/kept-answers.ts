import type { RequestId } from "@modelcontextprotocol/server";

/*
 * What the answer cache relies on: the headers a kept answer is keyed by, and where an answer's id stands.
 */

/**
 * Assumption: the headers the SDK checks a request against are these: what the client accepts and sends
 * (the 2025 transport), the protocol version, and the method and name a 2026-07-28 request repeats. A
 * request that differs in one of them may be answered otherwise or refused, so a kept answer is keyed by
 * them, and the requests the endpoint hands its servers itself are told by them.
 */
export const CHECKED_HEADERS = [
  "accept",
  "content-type",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
] as const;

/**
 * Assumption: the SDK writes a response as `{"result":…,"jsonrpc":"2.0","id":<id>}`, the id last, so that
 * a kept answer is given another id by replacing its end (see AnswerCache).
 */
export function answerEnding(id: RequestId): string {
  return `"id":${JSON.stringify(id)}}`;
}
