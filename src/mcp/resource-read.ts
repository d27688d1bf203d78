import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { SkillReadResult, SkillSource } from "@modelcontextprotocol/server/ext/skills";
import {
  type CatalogFile,
  ChangedFileError,
  digestOf,
  type FileContent,
  type FileReader,
  formatSize,
  isBinaryStart,
  weighsMoreAsText,
} from "../catalog/index.js";
import { quoted } from "../shared/index.js";
import { mimeTypeOf, RESOURCES_LISTED, UNKNOWN_MIME_TYPE, withUriShapeProblem } from "./skill-uris.js";

/**
 * The most of a file one `resources/read` carries. A larger file is answered as read_skill answers a file
 * over its cap, with its start and a note, and a skill holding one is left out of the extension, whose
 * hosts check every file against its digest. An answer spells its file several times over (as text or
 * base64, in JSON, as bytes) before it is sent, so that this bounds what one read holds.
 */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/**
 * The answer to `resources/read` of `uri`, as the client sent it, from `source`. The SDK's own answer would
 * read the URI with its `..` and `.` resolved (`skill://a/x/%2e%2e/b` as `skill://a/b`), which this
 * server refuses. A file that cannot be read is logged through `onInternalError`; the client is told so,
 * without the server's paths. A URI that `isFolder` (in the caller's scope) is told to be listed instead.
 */
export async function readResource(
  source: SkillSource,
  uri: string,
  context: ServerContext,
  onInternalError: (error: unknown, tool: string, call: ServerContext) => void,
  isFolder: (uri: string) => boolean,
): Promise<ReadResourceResult> {
  let read: SkillReadResult | undefined;
  try {
    read = await source.read(uri, context);
  } catch (error) {
    onInternalError(error, "resources/read", context);
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${uri} could not be read inside the server; the error was logged. Try again or read another resource.`,
    );
  }
  // `data.uri` keeps the URI whole, as SEP-2164 asks; the message quotes it cut, or a long one is sent twice.
  if (read === undefined)
    throw new ResourceNotFoundError(
      uri,
      isFolder(uri)
        ? `${quoted(uri)} is a directory resource, not a file; list it with resources/directory/read`
        : withUriShapeProblem(`Resource not found: ${quoted(uri)}`, uri, RESOURCES_LISTED),
    );
  const { mimeType } = read;
  if ("text" in read) return { contents: [{ uri, mimeType, text: read.text }] };
  const { buffer, byteOffset, byteLength } = read.bytes;
  return {
    contents: [{ uri, mimeType, blob: Buffer.from(buffer, byteOffset, byteLength).toString("base64") }],
  };
}

/**
 * `file` at `uri` as `resources/read` answers it: text or bytes of its name's MIME type, or its start past
 * MAX_READ_BYTES; a skill file is checked against the `digest` its entries give it.
 */
export async function fileAsResource(
  uri: string,
  file: CatalogFile,
  digest: string | undefined,
  reader: FileReader,
): Promise<SkillReadResult> {
  const mimeType = mimeTypeOf(file.path);
  if (file.size > MAX_READ_BYTES) return overTheCap(uri, await reader.read(file), mimeType);
  const bytes = await reader.readBytes(file);
  // A file edited in place since startup, its size kept, would be sent against the digest its entry
  // (and skills/get, a host's way to refresh it) still gives: a host could neither use it nor recover.
  if (digest !== undefined && digestOf(bytes) !== digest) {
    throw new ChangedFileError(file.source, "changed since the catalog was loaded: not its digest");
  }
  // Binary as the tools and the audit tell it (a NUL, or mostly control characters, up front), even when
  // it decodes: the audit never read it as text, and each such character would take six bytes of JSON.
  // So is a text start with enough of them behind it (up to 8 MiB here) to weigh more than base64: sent
  // as text it was up to six times the file, while the audit still reads it as the text it is.
  const asBlob = isBinaryStart(bytes) || weighsMoreAsText(bytes);
  const text = asBlob ? undefined : decodeLossless(bytes);
  return text === undefined ? { bytes, mimeType } : { text, mimeType: textMimeType(mimeType) };
}

/** A file over MAX_READ_BYTES, as read_skill shows a file over its cap: its start and a note, or a note. */
function overTheCap(uri: string, content: FileContent, mimeType: string): SkillReadResult {
  const over = `${uri} is ${formatSize(content.size)}, over the ${formatSize(MAX_READ_BYTES)} a resource read carries`;
  if (content.kind === "binary") {
    return { text: `${over}: it is a ${content.mediaType}, not sent.`, mimeType: "text/plain" };
  }
  const shown = formatSize(Buffer.byteLength(content.text, "utf8"));
  return {
    text: `${content.text}\n\n[${over}: this is its first ${shown}.]`,
    mimeType: textMimeType(mimeType),
  };
}

/**
 * The MIME type of a file sent as text: its name's, or text/plain for a name of no known type (`Makefile`,
 * `LICENSE`, `deploy.rb`), which application/octet-stream would call binary, as the extension asks a type
 * appropriate to the content.
 */
function textMimeType(mimeType: string): string {
  return mimeType === UNKNOWN_MIME_TYPE ? "text/plain" : mimeType;
}

/** The bytes as text when UTF-8 decodes them without loss (a BOM kept), as the extension sends text. */
function decodeLossless(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
