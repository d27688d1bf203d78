/**
 * `skill://` URIs as this server reads them. A URI names a file by its pack (the authority) and its path
 * below, segment by segment; a segment that could not name a served file (empty, `.` or `..` left by a
 * client, `/`, `\` or NUL once decoded, or hidden) makes the whole URI name nothing, exactly like a file
 * that is not there.
 */

const SCHEME = "skill:";

/** The key of a served file or folder: its pack and its path below, decoded, joined by `/`. */
export type UriKey = string;

/** The key `uri` names, or undefined when it cannot name anything this server serves. */
export function keyOfUri(uri: string): UriKey | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== SCHEME || url.search !== "" || url.hash !== "" || url.username !== "")
    return undefined;
  const pack = decodeSegment(url.host);
  if (pack === undefined) return undefined;
  // Without a path the URI names the pack's own folder.
  if (url.pathname === "") return pack;
  if (!url.pathname.startsWith("/")) return undefined;
  const segments = url.pathname.slice(1).split("/").map(decodeSegment);
  if (segments.some((segment) => segment === undefined)) return undefined;
  return [pack, ...segments].join("/");
}

/** The key of a file of the catalog: its pack, then its path in the pack's `skill://` folder. */
export function keyOf(pack: string, path: readonly string[]): UriKey {
  return [pack, ...path].join("/");
}

/** The decoded segment, unless it could not name a file that is served. */
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

/** A URI for the key, its segments encoded the way the SDK writes them in entries. */
export function uriOfKey(key: UriKey): string {
  const [pack = "", ...path] = key.split("/");
  return [`skill://${encodeURIComponent(pack)}`, ...path.map(encodeSegment)].join("/");
}

/** Percent-encodes what a URI path segment cannot hold as is, as WHATWG URL serializes it. */
function encodeSegment(segment: string): string {
  return segment.replace(/[^\w!$&'()*+,.:;=@[\]|~-]/gu, (character) => encodeURIComponent(character));
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

/** What the MIME type of a file is, told by its name: the types the Skills extension's SDK gives. */
export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  return MIME_TYPES.get(extension) ?? "application/octet-stream";
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
