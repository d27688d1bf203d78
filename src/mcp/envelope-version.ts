import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../json-rpc/index.js";
import { listedWithAnd, quoted } from "../shared/index.js";
import { MODERN_REVISION } from "./server.js";

/**
 * The refusal of a request whose `_meta` envelope names `requested`, a revision an envelope cannot name
 * here, listing `supported`, those it can. The SDK said only "Unsupported protocol version: 2025-11-25",
 * of a version this server serves (without an envelope): what to send instead went unsaid.
 */
export function envelopeVersionMessage(requested: string, supported: readonly string[]): string {
  const said = `Unsupported protocol version in the request's _meta envelope: ${quoted(requested)} (an envelope names ${supported.join(" or ")})`;
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? `${said}; ${requested} is served without the envelope, as the 2025 handshake speaks it.`
    : `${said}.`;
}

/**
 * `answer` (one message, parsed) with the SDK's refusal of the revision `request`'s envelope names worded
 * by envelopeVersionMessage; the answer itself for anything else (a refusal of the MCP-Protocol-Version
 * header, which says more already). The code and data are kept.
 */
export function namingEnvelopeVersion<Answer>(answer: Answer, request: unknown): Answer {
  if (!isJsonObject(answer) || !isJsonObject(answer.error)) return answer;
  const { code, message, data } = answer.error;
  if (code !== ProtocolErrorCode.UnsupportedProtocolVersion || !isJsonObject(data)) return answer;
  const { requested, supported } = data;
  const meta = isJsonObject(request) && isJsonObject(request.params) ? request.params._meta : undefined;
  if (typeof requested !== "string" || !isJsonObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== requested)
    return answer;
  if (message !== `Unsupported protocol version: ${requested}`) return answer;
  const named = Array.isArray(supported) && supported.every((version) => typeof version === "string");
  const told = envelopeVersionMessage(requested, named ? (supported as string[]) : [MODERN_REVISION]);
  return { ...answer, error: { ...answer.error, message: told } } as Answer;
}

/**
 * `answer` (one message, parsed) with the SDK's refusal of a request that names 2026-07-28 in its header
 * but lacks envelope keys saying what the envelope holds: it named only the keys missing (`_meta`, when
 * there was none), not what goes in them. The answer itself for anything else; code and data are kept.
 */
export function namingMissingEnvelope<Answer>(answer: Answer): Answer {
  if (!isJsonObject(answer) || !isJsonObject(answer.error)) return answer;
  const { code, message, data } = answer.error;
  const envelope = isJsonObject(data) ? data.envelope : undefined;
  if (code !== ProtocolErrorCode.InvalidParams || !isJsonObject(envelope) || !Array.isArray(envelope.missing))
    return answer;
  if (typeof message !== "string" || !message.includes("missing the required per-request envelope"))
    return answer;
  const told = `${message}. A ${MODERN_REVISION} request carries params._meta holding ${PROTOCOL_VERSION_META_KEY} "${MODERN_REVISION}" and ${CLIENT_CAPABILITIES_META_KEY} (an object, {} for none); a 2025 request names a 2025 version in MCP-Protocol-Version, or none`;
  return { ...answer, error: { ...answer.error, message: told } } as Answer;
}

/** How the SDK begins its refusal of a 2026-07-28 envelope with a key missing or wrong. */
const INVALID_ENVELOPE = `Invalid _meta envelope for protocol revision ${MODERN_REVISION}: `;

/** Each key of an envelope, and what it holds, said after the SDK's refusal of it or of a member of it. */
const ENVELOPE_HOLDS: readonly (readonly [string, string])[] = [
  [
    PROTOCOL_VERSION_META_KEY,
    `${PROTOCOL_VERSION_META_KEY} holds the revision the request speaks, "${MODERN_REVISION}"`,
  ],
  [
    CLIENT_CAPABILITIES_META_KEY,
    `${CLIENT_CAPABILITIES_META_KEY} holds the client's capabilities, an object ({} for none)`,
  ],
  [
    CLIENT_INFO_META_KEY,
    `${CLIENT_INFO_META_KEY}, which may be left out, holds the client's name and version: {"name": "<client>", "version": "<its version>"}`,
  ],
];

/**
 * `answer` (one message, parsed) with the SDK's refusal of a 2026-07-28 envelope whose key is missing or
 * wrong saying what that key holds: it named the key and the schema's words ("missing", "expected object,
 * received number"), not what to send. The answer itself for anything else; code and data are kept.
 *
 * Assumption: the SDK refuses such an envelope with -32602, INVALID_ENVELOPE, and the key in
 * `data.envelope.key` (`io.modelcontextprotocol/clientInfo.version` for a member of one).
 */
export function namingEnvelopeKey<Answer>(answer: Answer): Answer {
  if (!isJsonObject(answer) || !isJsonObject(answer.error)) return answer;
  const { code, message, data } = answer.error;
  const envelope = isJsonObject(data) ? data.envelope : undefined;
  if (code !== ProtocolErrorCode.InvalidParams || typeof message !== "string") return answer;
  if (!message.startsWith(INVALID_ENVELOPE) || !isJsonObject(envelope) || typeof envelope.key !== "string")
    return answer;
  const { key } = envelope;
  const held = ENVELOPE_HOLDS.find(([name]) => key === name || key.startsWith(`${name}.`));
  if (held === undefined) return answer;
  const told = `${message}; ${held[1]}`;
  return { ...answer, error: { ...answer.error, message: told } } as Answer;
}

/** The keys of a 2026-07-28 envelope, which a server lifts out of `_meta` and checks itself. */
export const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
]);

/**
 * The keys of a 2026-07-28 envelope that `message`'s params' `_meta` holds without the protocol version:
 * what only a 2026-07-28 request carries, on one the SDK reads as 2025 (it claims an envelope by the
 * version key alone). Undefined for anything else, and for `initialize`, the 2025 handshake, which
 * 2026-07-28 has none of.
 */
export function unclaimedEnvelopeKeys(message: unknown): string[] | undefined {
  if (!isJsonObject(message) || message.method === "initialize") return undefined;
  const { params } = message;
  const meta = isJsonObject(params) ? params._meta : undefined;
  if (!isJsonObject(meta) || PROTOCOL_VERSION_META_KEY in meta) return undefined;
  const held = Object.keys(meta).filter((key) => ENVELOPE_KEYS.has(key));
  return held.length === 0 ? undefined : held;
}

/**
 * The refusal of a request whose `_meta` holds `held` (see unclaimedEnvelopeKeys): -32602, as 2026-07-28
 * refuses a request missing a required envelope key, with that key in `data.envelope.missing` as the SDK
 * gives it, saying which keys it holds, what else it `lacks` (", and …", or nothing), what `toSpeak`
 * 2026-07-28 it adds, and that a 2025 request carries none of them. No 2025 client has these keys to
 * send: only 2026-07-28 defines them, 2025-11-25 reserves their prefix for MCP, and the SDK's client
 * writes an envelope only when it speaks 2026-07-28.
 */
export function unclaimedEnvelopeError(held: readonly string[], lacks: string, toSpeak: string) {
  const keys = held.length === 1 ? "a key" : "keys";
  const them = held.length === 1 ? "that key" : "those keys";
  const message = `Invalid params: the request's params._meta holds ${listedWithAnd(held)}, ${keys} of a ${MODERN_REVISION} per-request envelope, but not ${PROTOCOL_VERSION_META_KEY}, which that envelope requires${lacks}. To speak ${MODERN_REVISION}, ${toSpeak}; a 2025 request carries no envelope (initialize negotiates its version): leave ${them} out.`;
  const data = { envelope: { missing: [PROTOCOL_VERSION_META_KEY] } };
  return { code: ProtocolErrorCode.InvalidParams, message, data };
}
