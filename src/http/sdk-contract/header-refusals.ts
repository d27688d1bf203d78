import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { isJsonObject } from "../../json-rpc/index.js";
import { MODERN_REVISION } from "../../mcp/index.js";
import { quoted, quotedApart } from "../../shared/index.js";

/*
 * The SDK's refusals of 2026-07-28 headers that disagree with the body (-32020), reworded to quote both and
 * say what to send.
 */

/** MCP 2026-07-28's code for headers that disagree with the body, which the SDK exports no name for. */
const HEADER_MISMATCH = -32020;
const BASE64_SENTINEL = "=?base64?";
/** The longest header value a refusal spells out for the client to send; past it, only the rule is said. */
export const SPELLED_HEADER_CHARACTERS = 200;

/**
 * Whether MCP has `value` sent in a header as `=?base64?<its UTF-8 bytes in base64>?=`: it holds a character
 * outside printable ASCII, has blanks at either end, or begins as that form does.
 */
export function headerNeedsEncoding(value: string): boolean {
  return /[^\x20-\x7e]/.test(value) || value !== value.trim() || value.startsWith(BASE64_SENTINEL);
}

/** The name or URI that a 2026-07-28 request's `Mcp-Name` mirrors: its params' `name`, else their `uri`. */
function mirroredName(body: unknown): unknown {
  const params = isJsonObject(body) && isJsonObject(body.params) ? body.params : undefined;
  return typeof params?.name === "string" ? params.name : params?.uri;
}

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with its refusal of an `Mcp-Name` header
 * told how that header is written, when the name or URI it mirrors cannot go in a header as it is; the
 * answer itself otherwise. A client that sent `Mcp-Name: liste_é` as it is was told only that the header
 * names "liste_Ã©" (its bytes, one character each), and one that left it out, not how to write it.
 *
 * Assumption: the SDK refuses a 2026-07-28 request whose `Mcp-Name` header is missing or differs from the
 * body's name (or URI) with -32020, its message naming `Mcp-Name`, and reads a header `=?base64?…?=` as the
 * base64 of the value's UTF-8 bytes, as MCP has a value outside printable ASCII (or with blanks at either
 * end, or one that begins as that form does) sent.
 */
export function namingNameEncoding(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.code !== HEADER_MISMATCH)
    return answer;
  const { message } = answer.error;
  if (typeof message !== "string" || !message.includes("Mcp-Name")) return answer;
  const value = mirroredName(body);
  if (typeof value !== "string" || !headerNeedsEncoding(value)) return answer;
  const header = `${BASE64_SENTINEL}${Buffer.from(value, "utf8").toString("base64")}?=`;
  const spelled = header.length > SPELLED_HEADER_CHARACTERS ? "" : `: here, Mcp-Name: ${header}`;
  const told = `${message}. A value outside printable ASCII, with blanks at either end or beginning "${BASE64_SENTINEL}" goes in the header as ${BASE64_SENTINEL}<its UTF-8 bytes in base64>?=${spelled}`;
  return { ...answer, error: { ...answer.error, message: told } };
}

/** How the SDK begins each refusal of headers that disagree with the body. */
const DISAGREE = "Bad Request: the request headers and body disagree: ";
/** What the SDK puts in `data.mismatch.header` for a header left out. */
const MISSING = "(missing)";

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with its refusal of an `Mcp-Method`,
 * `MCP-Protocol-Version` or `Mcp-Name` header that differs from what the body names (its method, its
 * envelope's version, its name or URI) quoting both, so that a blank or a control character shows, and
 * shown from where they part when that is past the quote's cut (see quotedApart): a body naming
 * "tools/list " was told that it "names method tools/list  but the Mcp-Method header names tools/list",
 * and two methods of 120 characters differing in their last were quoted as the same 100. Its refusal of
 * such a header left out says which to send (`send Mcp-Method: tools/list`), where it said only that the
 * header is absent. A notification's method or envelope version is quoted so too, where the SDK wrote
 * both bare and said nothing of what to send. The same words in `data.mismatch.body`, where the SDK
 * repeats its own; code, status and the rest of data are kept. The answer itself otherwise.
 *
 * Assumption: the SDK refuses such a request with -32020, `data.mismatch.header` holding the header
 * (`(missing)` when there is none), and the message `Bad Request: the request headers and body disagree: `
 * followed by `data.mismatch.body`: `the body names method <method> but the Mcp-Method header names
 * <header>`, `the body envelope names protocol version <version> but the MCP-Protocol-Version header
 * names <header>`, both as they are, or `the body carries params.name="<name>" but the Mcp-Name header
 * names "<decoded header>"` (or `params.uri`), in bare quotes; or, of a header left out, the same up to
 * `but the required <header> header is absent`; of a notification, `the notification body names method …`
 * and `the notification envelope names protocol version …`, both as they are.
 */
export function quotingHeaderMismatch(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.code !== HEADER_MISMATCH)
    return answer;
  const { message, data } = answer.error;
  if (typeof message !== "string" || !isJsonObject(data) || !isJsonObject(data.mismatch)) return answer;
  const told = mismatchIn(message.slice(DISAGREE.length), data.mismatch.header, body);
  if (!message.startsWith(DISAGREE) || told === undefined) return answer;
  const { named, sent, header, names } = told;
  let said: string;
  let advice: string;
  if (sent === undefined) {
    said = `${names}${quoted(named)} but the required ${header} header is absent`;
    const spelled = !headerNeedsEncoding(named) && named.length <= SPELLED_HEADER_CHARACTERS;
    advice = spelled ? `send ${header}: ${named}` : `send ${header}, repeating what the body names`;
  } else {
    const { first, second, differsAt } = quotedApart(named, sent);
    const apart = differsAt === undefined ? "" : ` (they differ at character ${differsAt})`;
    said = `${names}${first} but the ${header} header names ${second}${apart}`;
    const copies = copiesIn(sent, named);
    advice =
      copies > 1
        ? `${header} holds what the body names ${copies} times, as HTTP joins a header sent more than once into one value; send it once`
        : `${header} repeats what the body names, character for character`;
  }
  return {
    ...answer,
    error: {
      ...answer.error,
      message: `${DISAGREE}${said}; ${advice}`,
      data: { ...data, mismatch: { ...data.mismatch, body: said } },
    },
  };
}

/** How the SDK words its refusal of `initialize` sent with a 2026-07-28 (or later) MCP-Protocol-Version. */
const HANDSHAKE_WITH_MODERN_HEADER =
  "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header";
/** How the SDK words its refusal of an `Mcp-Name` that begins as base64 does but is none. */
const INVALID_NAME_SENTINEL = "the Mcp-Name header carries an invalid Base64 sentinel value";

/**
 * `answer` (an answer of the SDK's entry to `body`, as parsed) with two of its refusals of headers that
 * said what was wrong but not what to send, saying it: `initialize` sent with MCP-Protocol-Version naming
 * 2026-07-28 (a client that sets the header on every request), told to send the handshake without it or
 * to skip the handshake, as 2026-07-28 has none; and an `Mcp-Name` of the form `=?base64?…?=` whose inside
 * is no base64, told the form and the header to send for the body's name or URI. The same words in
 * `data.mismatch.body`, as quotingHeaderMismatch has them; code, status and the rest of data are kept.
 * The answer itself otherwise.
 *
 * Assumption: the SDK refuses both with -32020, DISAGREE followed by HANDSHAKE_WITH_MODERN_HEADER or
 * INVALID_NAME_SENTINEL, the same words in `data.mismatch.body`, and the header in `data.mismatch.header`.
 */
export function advisingHeaderRefusal(answer: unknown, body: unknown): unknown {
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || answer.error.code !== HEADER_MISMATCH)
    return answer;
  const { message, data } = answer.error;
  if (!isJsonObject(data) || !isJsonObject(data.mismatch) || typeof data.mismatch.header !== "string")
    return answer;
  const { header } = data.mismatch;
  let said: string;
  let advice: string;
  if (message === `${DISAGREE}${HANDSHAKE_WITH_MODERN_HEADER}`) {
    said = `an initialize request (the 2025 handshake) was sent with MCP-Protocol-Version: ${quoted(header)}, a revision without a handshake`;
    advice = `send initialize without MCP-Protocol-Version (its params.protocolVersion negotiates the version); or, to speak ${MODERN_REVISION}, send no initialize: each request carries its params._meta envelope, and server/discover tells what this server serves`;
  } else if (message === `${DISAGREE}${INVALID_NAME_SENTINEL}`) {
    const value = mirroredName(body);
    said = `the Mcp-Name header ${quoted(header)} begins as a base64-encoded value does, but what follows ${BASE64_SENTINEL} is not base64 ended by ?=`;
    // A name that must be encoded is told its header by namingNameEncoding, which follows.
    const plain = typeof value === "string" && !headerNeedsEncoding(value) ? value : undefined;
    advice =
      plain === undefined
        ? ""
        : plain.length > SPELLED_HEADER_CHARACTERS
          ? "send the body's name or URI in Mcp-Name as it is: it needs no encoding"
          : `send Mcp-Name: ${plain}, as it is: only a value outside printable ASCII, with blanks at either end or beginning ${BASE64_SENTINEL}, goes in the header as ${BASE64_SENTINEL}<its UTF-8 bytes in base64>?=`;
  } else return answer;
  return {
    ...answer,
    error: {
      ...answer.error,
      message: advice === "" ? `${DISAGREE}${said}` : `${DISAGREE}${said}; ${advice}`,
      data: { ...data, mismatch: { ...data.mismatch, body: said } },
    },
  };
}

/**
 * What the SDK's words `said` of a header that differs from `body` or is left out (see
 * quotingHeaderMismatch) compare: the value the body names, the header's (decoded; undefined when left
 * out), the header's name, and the SDK's words before the value (`the notification body names method `).
 */
function mismatchIn(
  said: string,
  header: unknown,
  body: unknown,
): { named: string; sent: string | undefined; header: string; names: string } | undefined {
  if (!isJsonObject(body) || typeof header !== "string") return undefined;
  const params = isJsonObject(body.params) ? body.params : undefined;
  const meta = params?._meta;
  const version = isJsonObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  for (const [named, names, name] of [
    [body.method, "the body names method ", "Mcp-Method"],
    [version, "the body envelope names protocol version ", "MCP-Protocol-Version"],
    [body.method, "the notification body names method ", "Mcp-Method"],
    [version, "the notification envelope names protocol version ", "MCP-Protocol-Version"],
  ] as const) {
    if (typeof named !== "string") continue;
    if (said === `${names}${named} but the ${name} header names ${header}`)
      return { named, sent: header, header: name, names };
    if (header === MISSING && said === `${names}${named} but the required ${name} header is absent`)
      return { named, sent: undefined, header: name, names };
  }
  for (const field of ["name", "uri"]) {
    const named = params?.[field];
    if (typeof named !== "string") continue;
    const names = `the body carries params.${field}=`;
    const opening = `${names}"${named}" but the Mcp-Name header names "`;
    if (said.startsWith(opening) && said.endsWith('"'))
      return { named, sent: said.slice(opening.length, -1), header: "Mcp-Name", names };
    if (header === MISSING && said === `${names}"${named}" but the required Mcp-Name header is absent`)
      return { named, sent: undefined, header: "Mcp-Name", names };
  }
  return undefined;
}

/**
 * How many times `sent` holds `named`, joined with ", " as HTTP joins the copies of a header sent more than
 * once (a proxy that adds Mcp-Name beside the client's own); 1 when it is not so made. Read in linear time.
 */
function copiesIn(sent: string, named: string): number {
  const copies = (sent.length + 2) / (named.length + 2);
  if (!Number.isInteger(copies) || copies < 2) return 1;
  return sent === Array.from({ length: copies }, () => named).join(", ") ? copies : 1;
}
