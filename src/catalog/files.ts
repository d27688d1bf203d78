import { closeSync, readSync } from "node:fs";
import path from "node:path";
import { LRUCache } from "lru-cache";
import { stripBom } from "./frontmatter.js";
import { ChangedFileError, openListedFile, openListedFileSync } from "./open.js";
import type { CatalogFile, Skill } from "./types.js";

/** Text files larger than this are cut: a quarter MiB is already some 60k tokens. */
export const MAX_FILE_BYTES = 256 * 1024;
/** How much of a file is inspected to tell text from binary. */
export const SNIFF_BYTES = 8192;

/** How many first bytes git reads to tell a binary file, one with a NUL there, from text (xdiff's rule). */
const GIT_SNIFF_BYTES = 8000;

/**
 * Whether `git diff` shows a file as text: no NUL in its first 8,000 bytes. It does so for some the server
 * serves as binary (not UTF-8, a NUL past them, many control characters), which shells and editors read
 * as text too.
 */
export function isTextToGit(bytes: Uint8Array): boolean {
  return !bytes.subarray(0, GIT_SNIFF_BYTES).includes(0);
}

/**
 * Whether a file starting with `bytes` is binary however the rest decodes: a NUL in its first 8 KiB, or
 * more than a third of them control characters that text has no use for (all of C0 but tab, line feed,
 * form feed and carriage return; DEL). Such a file decodes as UTF-8, but is no text anyone reads, and JSON
 * spells each of those characters in six bytes (`\u0001`). A text with terminal escapes (`ESC [ m`, at
 * least three bytes each) stays text, for the audit to flag. The tools, `resources/read` and the audit
 * all tell text from binary with this, so that the audit reads as text exactly what is served as text.
 */
export function isBinaryStart(bytes: Uint8Array): boolean {
  const length = Math.min(bytes.length, SNIFF_BYTES);
  let controls = 0;
  for (let index = 0; index < length; index++) {
    const byte = bytes[index] ?? 0;
    if (byte === 0) return true;
    if (byte < 0x20 ? ((TEXT_CONTROLS >> byte) & 1) === 0 : byte === 0x7f) controls++;
  }
  return controls * 3 > length;
}
/** Tab, line feed, form feed and carriage return, as bits of a mask indexed by the byte. */
const TEXT_CONTROLS = (1 << 0x09) | (1 << 0x0a) | (1 << 0x0c) | (1 << 0x0d);
/** The control characters JSON escapes in two bytes (`\b`, `\t`, `\n`, `\f`, `\r`); the others take six. */
const SHORT_ESCAPES = TEXT_CONTROLS | (1 << 0x08);

/**
 * Whether `bytes` would weigh more sent as JSON text than as base64: each control character JSON spells in
 * six bytes (`\u0001`) adds five, where base64 adds a third of the whole; or whether JSON spells them in
 * more than twice their size (a fifteenth of such characters and the rest quotes or backslashes, each two
 * bytes, made 2.3 times). The whole file is counted, so that a text start cannot carry megabytes of such
 * characters behind it (isBinaryStart looks at 8 KiB).
 */
export function weighsMoreAsText(bytes: Uint8Array): boolean {
  let controls = 0;
  let spelled = 0;
  // Indexed: a for-of over the bytes took nine times as long (114 ms for 8 MiB), in every resources/read.
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] ?? 0;
    if (byte >= 0x20) spelled += byte === 0x22 || byte === 0x5c ? 2 : 1;
    else if (((SHORT_ESCAPES >> byte) & 1) === 1) spelled += 2;
    else {
      controls++;
      spelled += 6;
    }
  }
  return controls * 15 > bytes.length || spelled > 2 * bytes.length;
}

/**
 * The most bytes the text of a file that a tool or prompt shows takes as JSON, twice MAX_FILE_BYTES: JSON
 * spells a control character in six bytes (`\u0001`), so 248 KiB of them behind a start of text (which
 * isBinaryStart looks at) made 1.5 MiB of JSON of a read that the budget of answers counts as 256 KiB. A
 * quote or a backslash takes two bytes, so no text but such a one is cut for this.
 */
const MAX_FILE_JSON_BYTES = 2 * MAX_FILE_BYTES;

/** How many of the first bytes of `bytes` JSON spells in at most `most` bytes (a string's, quotes aside). */
export function jsonFit(bytes: Uint8Array, most: number): number {
  let spelled = 0;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] ?? 0;
    if (byte >= 0x20) spelled += byte === 0x22 || byte === 0x5c ? 2 : 1;
    else spelled += ((SHORT_ESCAPES >> byte) & 1) === 1 ? 2 : 6;
    if (spelled > most) return index;
  }
  return bytes.length;
}

export type FileContent =
  | { readonly kind: "text"; readonly text: string; readonly size: number; readonly truncated: boolean }
  | { readonly kind: "binary"; readonly size: number; readonly mediaType: string };

/**
 * A catalog file whole, as bytes, and whether its mode lets it run when `mode` asks (the audit notes
 * executables; false otherwise). Its size was taken at load time, and digests published then describe
 * those bytes: a file of another size now has changed, and is refused rather than served.
 */
export async function readCatalogBytes(
  file: CatalogFile,
  mode = false,
): Promise<{ bytes: Uint8Array; executable: boolean }> {
  const handle = await openListedFile(file.source);
  try {
    const executable = mode && ((await handle.stat()).mode & 0o111) !== 0;
    // One byte more than expected, so that a file that grew is told apart from one that kept its size.
    const buffer = Buffer.alloc(file.size + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead !== file.size) {
      throw new ChangedFileError(file.source, "changed since the catalog was loaded");
    }
    return { bytes: buffer.subarray(0, bytesRead), executable };
  } finally {
    await handle.close();
  }
}

/**
 * SKILL.md of a skill, for indexing at startup (serving goes through readCatalogFile): the bytes its size
 * at load says, so that a file grown since cannot make the index hold more.
 */
export function readSkillDocument(skill: Skill): string {
  const descriptor = openListedFileSync(skill.document.source);
  try {
    const buffer = Buffer.alloc(skill.document.size);
    const bytesRead = readSync(descriptor, buffer, 0, buffer.length, 0);
    return stripBom(buffer.toString("utf8", 0, bytesRead));
  } finally {
    closeSync(descriptor);
  }
}

/** Reads a catalog file as text, or describes it when it is binary; text over the cap is cut. */
async function readCatalogFile(file: CatalogFile): Promise<FileContent> {
  const handle = await openListedFile(file.source);
  try {
    const want = Math.min(file.size, MAX_FILE_BYTES);
    const buffer = Buffer.alloc(want);
    const { bytesRead } = await handle.read(buffer, 0, want, 0);
    const read = buffer.subarray(0, bytesRead);
    return describeBytes(read.subarray(0, jsonFit(read, MAX_FILE_JSON_BYTES)), file.size, file.path);
  } finally {
    await handle.close();
  }
}

/**
 * How many bytes of file contents a FileReader keeps, once as text for the tools and once as bytes for
 * `skill://` reads: SKILL.md averages 10 KB, so about 800 of them each. The answers kept by the HTTP
 * transport serve most repeated reads; this serves the first read of a skill in each scope, and the files
 * skills cite.
 */
const FILE_CACHE_BYTES = 8 * 1024 * 1024;
/** What an entry costs besides its text, so that a budget of bytes also bounds a crowd of empty files. */
const ENTRY_COST_BYTES = 1024;

/**
 * Reads catalog files for clients, keeping the most recently read ones up to a budget of bytes. The
 * catalog does not change while it is served (a file's size is taken at load time and never more is
 * read), so a kept file is what a new read would give; agents read the same few skills again and again.
 * Concurrent reads of one file share one read; a failed read is not kept.
 */
export class FileReader {
  readonly #kept: LRUCache<string, FileContent, CatalogFile>;
  readonly #keptBytes: LRUCache<string, Uint8Array, CatalogFile>;

  constructor(budgetBytes: number = FILE_CACHE_BYTES) {
    this.#kept = new LRUCache({
      maxSize: budgetBytes,
      sizeCalculation: (content) => Math.min(content.size, MAX_FILE_BYTES) + ENTRY_COST_BYTES,
      fetchMethod: (_source, _stale, { context }) => readCatalogFile(context),
    });
    this.#keptBytes = new LRUCache({
      maxSize: budgetBytes,
      sizeCalculation: (bytes) => bytes.length + ENTRY_COST_BYTES,
      fetchMethod: async (_source, _stale, { context }) => (await readCatalogBytes(context)).bytes,
    });
  }

  /** The file as text for a model (cut past MAX_FILE_BYTES), or what kind of binary file it is. */
  async read(file: CatalogFile): Promise<FileContent> {
    return (await this.#kept.fetch(file.source, { context: file })) ?? readCatalogFile(file);
  }

  /** The file whole, byte for byte; throws ChangedFileError when it is no longer what was loaded. */
  async readBytes(file: CatalogFile): Promise<Uint8Array> {
    return (
      (await this.#keptBytes.fetch(file.source, { context: file })) ?? (await readCatalogBytes(file)).bytes
    );
  }
}

/** A size as people read it: `512 B`, `1.4 KiB`, `8.0 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Text when the bytes are UTF-8 without NUL; cut content ends at the last whole line. */
export function describeBytes(bytes: Buffer, size: number, name: string): FileContent {
  const truncated = bytes.length < size;
  if (isBinaryStart(bytes)) return { kind: "binary", size, mediaType: mediaTypeOf(name) };
  const end = truncated ? lastLineEnd(bytes) : bytes.length;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, end));
    return { kind: "text", text, size, truncated };
  } catch {
    return { kind: "binary", size, mediaType: mediaTypeOf(name) };
  }
}

function lastLineEnd(bytes: Buffer): number {
  const newline = bytes.lastIndexOf(0x0a);
  if (newline >= 0) return newline + 1;
  // One enormous line: cut before a partial UTF-8 sequence rather than at a line.
  let end = bytes.length;
  while (end > 0 && ((bytes[end - 1] ?? 0) & 0xc0) === 0x80) end--;
  return end > 0 && ((bytes[end - 1] ?? 0) & 0x80) !== 0 ? end - 1 : end;
}

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  ".png": "PNG image",
  ".jpg": "JPEG image",
  ".jpeg": "JPEG image",
  ".gif": "GIF image",
  ".webp": "WebP image",
  ".ico": "icon",
  ".pdf": "PDF document",
  ".zip": "ZIP archive",
  ".gz": "gzip archive",
  ".tgz": "gzip archive",
  ".woff": "font",
  ".woff2": "font",
  ".ttf": "font",
  ".otf": "font",
  ".mp3": "audio",
  ".wav": "audio",
  ".mp4": "video",
  ".wasm": "WebAssembly module",
  ".docx": "Word document",
  ".xlsx": "Excel workbook",
  ".pptx": "PowerPoint deck",
};

function mediaTypeOf(name: string): string {
  return MEDIA_TYPES[path.posix.extname(name).toLowerCase()] ?? "binary file";
}
