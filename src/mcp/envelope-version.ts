import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../json-rpc/index.js";
import { quoted } from "../visible.js";
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
