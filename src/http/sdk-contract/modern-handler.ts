import type { IncomingHttpHeaders } from "node:http";
import {
  type InboundClassificationOutcome,
  type InboundLadderRejection,
  isJsonContentType,
  type JSONRPCRequest,
  type RequestId,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../../json-rpc/index.js";
import { MODERN_REVISION } from "../../mcp/index.js";
import { joinedHeader } from "./classification.js";

/*
 * What `createMcpHandler`, the SDK's entry of 2026-07-28, does with a request: the answer it gives one its
 * classification refuses, and which request it hands its server unchanged.
 */

/** What createMcpHandler answers a request its classification refuses, and tells its onerror of it. */
interface Rejection {
  readonly status: number;
  readonly message: {
    jsonrpc: "2.0";
    error: { code: number; message: string; data?: unknown };
    id: RequestId | null;
  };
  readonly reported: Error;
}

/**
 * The answer createMcpHandler gives a JSON request that `classify` refuses (`outcome`), which the endpoint
 * gives from its own classification rather than hand the request over to be classified and refused again.
 *
 * Assumption: createMcpHandler answers such a request with the rejection's HTTP status and a JSON-RPC
 * error of its code, message and data (when there is data), under the request's id when the request has
 * a method and a string or number id, else null, and tells its onerror "Rejected inbound request
 * (<cell>): <message>".
 */
export function rejectionOf(outcome: InboundLadderRejection, body: unknown): Rejection {
  const { code, message, data } = outcome;
  const error = data === undefined ? { code, message } : { code, message, data };
  const asked = isJsonObject(body) && typeof body.method === "string" ? body.id : undefined;
  const id = typeof asked === "string" || typeof asked === "number" ? asked : null;
  return {
    status: outcome.httpStatus,
    message: { jsonrpc: "2.0", error, id },
    reported: new Error(`Rejected inbound request (${outcome.cell}): ${message}`),
  };
}

/**
 * Assumption: `createMcpHandler` hands a 2026-07-28 request to its server unchanged when the SDK classifies
 * it as one of the revision the endpoint serves, its body is JSON, and it carries the standard headers as
 * the SDK's own client writes them: the protocol version and the method (which the classification has
 * found equal to the body's), and `Mcp-Name` as the body's `name` or `uri`, verbatim, or none when the body
 * has neither. Undefined for anything else, which `createMcpHandler` answers itself: a header it would
 * decode (`=?base64?…?=`) or refuse, a notification, another revision.
 */
export function modernRequestOf(
  headers: IncomingHttpHeaders,
  outcome: InboundClassificationOutcome,
): JSONRPCRequest | undefined {
  if (outcome.kind !== "modern" || outcome.messageKind !== "request") return undefined;
  if (outcome.classification.revision !== MODERN_REVISION) return undefined;
  if (!isJsonContentType(headers["content-type"])) return undefined;
  if (headers["mcp-protocol-version"] === undefined || headers["mcp-method"] === undefined) return undefined;
  return nameHeaderAsWritten(joinedHeader(headers["mcp-name"]), outcome.message.params)
    ? outcome.message
    : undefined;
}

/**
 * Whether `Mcp-Name` (`header`) is as the SDK's own client writes it: the `name` or `uri` of `params`
 * verbatim, not in the `=?base64?…?=` form the SDK would decode, or none when `params` hold neither.
 */
export function nameHeaderAsWritten(header: string | undefined, params: unknown): boolean {
  const { name, uri } = (params ?? {}) as { name?: unknown; uri?: unknown };
  const named = [name, uri].filter((value) => typeof value === "string");
  if (header === undefined) return named.length === 0;
  return named.length > 0 && named.every((value) => value === header) && !header.startsWith("=?");
}
