import { foldedName } from "../catalog/index.js";

/**
 * `skill://` URIs as this server reads them. A URI names a file by its pack (the authority) and its path
 * below, segment by segment, read from the URI exactly as sent: a WHATWG URL would resolve `..` and `.`
 * (plain or `%2e`) before anything could check them. A segment that could not name a served file (empty,
 * `.` or `..` in any spelling, `/`, `\` or NUL once decoded, or hidden) makes the whole URI name nothing,
 * exactly like a file that is not there; so do a query and a fragment.
 */

/** What every `skill://` URI starts with. */
export const SCHEME = "skill://";

/** The key of a served file or folder: its pack and its path below, decoded, joined by `/`. */
export type UriKey = string;

/** The key `uri` names, or undefined when it cannot name anything this server serves. */
export function keyOfUri(uri: string): UriKey | undefined {
  // The scheme is case-insensitive, as in any URI.
  if (uri.slice(0, SCHEME.length).toLowerCase() !== SCHEME) return undefined;
  const rest = uri.slice(SCHEME.length);
  if (rest.includes("?") || rest.includes("#")) return undefined;
  // Without a path the URI names the pack's own folder.
  const segments = rest.split("/").map(decodeSegment);
  if (segments.some((segment) => segment === undefined)) return undefined;
  return segments.join("/");
}

/** The key of the folder `uri` names, which may end with one slash (`skill://workflows/`). */
export function keyOfFolderUri(uri: string): UriKey | undefined {
  return keyOfUri(uri.endsWith("/") ? uri.slice(0, -1) : uri);
}

/** The key of a file of the catalog: its pack, then its path in the pack's `skill://` folder. */
export function keyOf(pack: string, path: readonly string[]): UriKey {
  return [pack, ...path].join("/");
}

/**
 * The decoded segment, unless it could not name a file that is served. Decoded once: `%252e%252e` is the
 * name `%2e%2e`, never `..`.
 */
function decodeSegment(segment: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  const refused =
    decoded === "" ||
    decoded.startsWith(".") ||
    decoded.includes("/") ||
    decoded.includes("\\") ||
    decoded.includes("\0");
  return refused ? undefined : decoded;
}

/**
 * Why `uri` cannot name anything this server serves, whatever its catalog holds, said so that a refusal of
 * it tells what a URI here looks like; undefined for one that could (and then names nothing served). A
 * folder's URI may end with one slash. Only the URI's shape is read: a file out of the caller's scope is
 * told what a missing one is.
 */
function uriShapeProblem(uri: string, folder = false): string | undefined {
  if (uri.slice(0, SCHEME.length).toLowerCase() !== SCHEME)
    return 'URIs here begin "skill://" and a pack, skill://<pack>/<path>, as resources/list gives them';
  const rest = uri.slice(SCHEME.length);
  if (rest.includes("?") || rest.includes("#"))
    return "a skill:// URI names a file by its path alone, without a query (?) or a fragment (#)";
  const segments = (folder && rest.endsWith("/") ? rest.slice(0, -1) : rest).split("/");
  if (segments[0] === "") return 'the pack comes right after "skill://": skill://<pack>/<path>';
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function segmentProblem(segment: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A % with two hex digits after it is an escape, whose bytes (%ED%A0%80, a surrogate's) are no UTF-8.
    return /%(?![0-9A-Fa-f]{2})/.test(segment)
      ? "it holds a % that begins no escape (%XX)"
      : "its escapes decode to bytes that are not UTF-8 (a skill:// URI escapes a name's UTF-8, %XX a byte)";
  }
  if (decoded === "") return "a skill:// URI holds no empty segment (// or a / at its end)";
  if (decoded === "." || decoded === "..")
    return "dot segments (. and .., %2e%2e) are not resolved: name the file by its own path";
  // Before the dot: `..%5c..%5cSKILL.md` and `..%2fSKILL.md` climb with an encoded separator, and were
  // told that hidden files are not served.
  if (/[/\\\0]/.test(decoded)) return "a segment holds an encoded /, \\ or NUL, which no name served holds";
  return decoded.startsWith(".")
    ? "names beginning with a dot (hidden files and folders) are not served"
    : undefined;
}

/**
 * `said` (a refusal naming `uri`), with why the URI can name nothing when its shape tells, else with where
 * the URIs served are listed (`listed`): a URI of the right shape naming nothing (`skill://nope`) was told
 * only "not found", nothing of where to look. That hint is the same for every such URI, so that a file out
 * of the caller's scope is still told exactly what a missing one is.
 */
export function withUriShapeProblem(said: string, uri: string, listed: string, folder = false): string {
  const problem = uriShapeProblem(uri, folder);
  return problem === undefined ? `${said}; ${listed}` : `${said}: ${problem}`;
}

/** Where resources/read and resources/directory/read find the URIs served, said of one naming nothing. */
export const RESOURCES_LISTED = "resources/list gives the URIs served";
/** Where skills/get finds the URIs of the skills served, said of one naming nothing. */
export const SKILLS_LISTED = "skills/list gives the URIs of the skills served";

/** A key that every encoding below leaves as it is: most are, and a start on a saved index makes them all. */
const PLAIN_KEY = /^[\w.~/-]*$/;

/**
 * A URI for the key, as entries spell it (see the inspection's inRfc3986): the pack encoded as a URI
 * component, so a `reg-name`, and each segment below holding raw only what RFC 3986 allows in a path.
 */
export function uriOfKey(key: UriKey): string {
  if (PLAIN_KEY.test(key)) return `${SCHEME}${key}`;
  const [pack = "", ...path] = key.split("/");
  return [`${SCHEME}${encodeURIComponent(pack)}`, ...path.map(encodeSegment)].join("/");
}

/**
 * Percent-encodes what an RFC 3986 path segment cannot hold as is (`pchar`: unreserved, sub-delims, `:` and
 * `@`). A WHATWG URL leaves `[`, `]` and `|` raw, which a strict URI parser refuses; a URL keeps `%5B` as
 * sent, so the encoded URI is the one a URL serializes too.
 */
function encodeSegment(segment: string): string {
  return segment.replace(/[^\w!$&'()*+,.:;=@~-]/gu, (character) => encodeURIComponent(character));
}

/**
 * `uri`, an entry's, as entries spelled it before they followed RFC 3986: `[`, `]` and `|` raw below the
 * authority (the SDK's spelling, a WHATWG URL's), which hosts that listed a skill then still hold.
 */
export function whatwgSpelling(uri: string): string {
  const path = uri.indexOf("/", SCHEME.length);
  if (path < 0) return uri;
  return (
    uri.slice(0, path) + uri.slice(path).replace(/%5B|%5D|%7C/g, (encoded) => decodeURIComponent(encoded))
  );
}

/** The authority of a `skill://` URI as it is spelled: its pack, percent-encoded as the URI has it. */
function authorityOf(uri: string): string {
  const path = uri.indexOf("/", SCHEME.length);
  return uri.slice(SCHEME.length, path < 0 ? uri.length : path);
}

/**
 * `listed`, a URI this server gives, with the authority of `asked` when that is the listed one in another
 * letter case (`skill://mypack/…` for `skill://MyPack/…`): answered in the case a host asked, a listing stays
 * below the folder it read and an entry at the URI it asked for.
 */
export function inAskedCase(listed: string, asked: string): string {
  const authority = authorityOf(asked);
  const own = authorityOf(listed);
  if (authority === own || !isInAnotherCase(authority, own)) return listed;
  return `${SCHEME}${authority}${listed.slice(SCHEME.length + own.length)}`;
}

/**
 * Whether the authority `asked` names the pack of `own` (as listed) in another letter case: their names fold
 * alike, as a URI's pack is found (foldedName: `%C3%A9tudes` names `Études`, whose `É` no change of the
 * escapes' case makes `é`), and `asked` spells its name as listings spell one, but for the case of its
 * escapes' hex digits. Another spelling of the same characters (`My%50ack`) is not another case: skills/get
 * answers none, as the SDK's client checks an entry's URI against the one it asked for.
 */
function isInAnotherCase(asked: string, own: string): boolean {
  if (asked.toLowerCase() === own.toLowerCase()) return true;
  const askedName = decodedAuthority(asked);
  const ownName = decodedAuthority(own);
  return (
    askedName !== undefined &&
    ownName !== undefined &&
    foldedName(askedName) === foldedName(ownName) &&
    encodeURIComponent(askedName).toLowerCase() === asked.toLowerCase()
  );
}

/** The pack an authority spells, or undefined when its escapes decode to no UTF-8. */
function decodedAuthority(authority: string): string | undefined {
  try {
    return decodeURIComponent(authority);
  } catch {
    return undefined;
  }
}

/** The last segment of a key: a file's or folder's own name. */
export function nameOfKey(key: UriKey): string {
  return key.slice(key.lastIndexOf("/") + 1);
}

/** The key of the folder holding `key`, or undefined for a pack's own folder. */
export function parentOfKey(key: UriKey): UriKey | undefined {
  const slash = key.lastIndexOf("/");
  return slash < 0 ? undefined : key.slice(0, slash);
}

/** The MIME type of a file whose name tells none. */
export const UNKNOWN_MIME_TYPE = "application/octet-stream";

/** What the MIME type of a file is, told by its name: the types the Skills extension's SDK gives. */
export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  return MIME_TYPES.get(extension) ?? UNKNOWN_MIME_TYPE;
}

const MIME_TYPES: ReadonlyMap<string, string> = new Map([
  ["md", "text/markdown"],
  ["markdown", "text/markdown"],
  ["txt", "text/plain"],
  ["json", "application/json"],
  ["yaml", "application/yaml"],
  ["yml", "application/yaml"],
  ["py", "text/x-python"],
  ["sh", "application/x-sh"],
  ["bash", "application/x-sh"],
  ["js", "text/javascript"],
  ["mjs", "text/javascript"],
  ["ts", "text/typescript"],
  ["html", "text/html"],
  ["css", "text/css"],
  ["csv", "text/csv"],
  ["xml", "application/xml"],
  ["svg", "image/svg+xml"],
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["gif", "image/gif"],
  ["webp", "image/webp"],
  ["pdf", "application/pdf"],
]);
