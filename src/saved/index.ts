import { crc32 } from "node:zlib";

export { STALE_TEMPORARY_MS, writeSavedIndexFile } from "./file.js";

/**
 * The saved index: what startup would otherwise work out from the skills folder, saved once by
 * `--build-index` (the image build runs it) as named parts of one file, each checked by its own reader:
 * the search index, and the inspection of every skill (digests and entries of the Skills extension).
 * Each part carries a CRC-32 of its bytes, so that a damaged part (a flipped bit, a same-length edit of a
 * description or a digest) is worked out again like a torn file, never served. Each part starts at a
 * multiple of 8 bytes, so that a reader may view it as typed arrays in place.
 *
 *     0  "SKMCPSAV"   8  format version (u32)   12  part count (u32)
 *     then each part: name length (u32), name (UTF-8), padding to 8, byte length (f64), CRC-32 of the
 *     bytes (u32), 4 bytes of padding, bytes, padding to 8
 */

const MAGIC = Buffer.from("SKMCPSAV", "latin1");
/** What a file saved by a server before this format began with: the search index alone. */
const SEARCH_INDEX_ONLY = Buffer.from("SKILLIDX", "latin1");
/** 2: each part carries a CRC-32. */
const FORMAT_VERSION = 2;
const HEADER_BYTES = 16;
/** A part's byte length (f64), its CRC-32 (u32) and padding, before its bytes. */
const PART_HEADER_BYTES = 16;

export type SavedParts = Readonly<Record<string, Uint8Array>>;

/** The bytes of a saved index holding `parts`. */
export function savedIndexBytes(parts: SavedParts): Uint8Array {
  const entries = Object.entries(parts).map(([name, bytes]) => ({ name: Buffer.from(name), bytes }));
  let length = HEADER_BYTES;
  for (const { name, bytes } of entries)
    length = aligned(aligned(length + 4 + name.length) + PART_HEADER_BYTES + bytes.length);
  const file = Buffer.alloc(length);
  MAGIC.copy(file, 0);
  file.writeUInt32LE(FORMAT_VERSION, 8);
  file.writeUInt32LE(entries.length, 12);
  let at = HEADER_BYTES;
  for (const { name, bytes } of entries) {
    file.writeUInt32LE(name.length, at);
    name.copy(file, at + 4);
    at = aligned(at + 4 + name.length);
    file.writeDoubleLE(bytes.length, at);
    file.writeUInt32LE(crc32(bytes), at + 8);
    file.set(bytes, at + PART_HEADER_BYTES);
    at = aligned(at + PART_HEADER_BYTES + bytes.length);
  }
  return file;
}

/** The parts of a saved index, as views of `file`; or why it is not one this server reads. */
export function readSavedIndex(
  file: Uint8Array,
): { parts: SavedParts } | { problem: string; outdated: boolean } {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const magic = bytes.subarray(0, MAGIC.length);
  if (magic.equals(SEARCH_INDEX_ONLY)) {
    return { problem: "saved by an earlier version, which saved the search index alone", outdated: true };
  }
  if (bytes.length < HEADER_BYTES || !magic.equals(MAGIC)) {
    return { problem: "not a saved index of skills-mcp", outdated: false };
  }
  const version = bytes.readUInt32LE(8);
  if (version !== FORMAT_VERSION) {
    return {
      problem: `saved in format ${version}; this server reads format ${FORMAT_VERSION}`,
      outdated: true,
    };
  }
  const parts: Record<string, Uint8Array> = {};
  let at = HEADER_BYTES;
  for (let count = bytes.readUInt32LE(12); count > 0; count--) {
    if (at + 4 > bytes.length) return truncated();
    const nameLength = bytes.readUInt32LE(at);
    const nameEnd = at + 4 + nameLength;
    const lengthAt = aligned(nameEnd);
    if (lengthAt + PART_HEADER_BYTES > bytes.length) return truncated();
    const length = bytes.readDoubleLE(lengthAt);
    const start = lengthAt + PART_HEADER_BYTES;
    if (!Number.isSafeInteger(length) || length < 0 || start + length > bytes.length) return truncated();
    const name = bytes.toString("utf8", at + 4, nameEnd);
    const part = bytes.subarray(start, start + length);
    if (crc32(part) !== bytes.readUInt32LE(lengthAt + 8)) {
      return { problem: `damaged: its part "${name}" does not match its checksum`, outdated: false };
    }
    parts[name] = part;
    at = aligned(start + length);
  }
  return at === bytes.length ? { parts } : truncated();
}

function truncated(): { problem: string; outdated: boolean } {
  return { problem: "truncated or damaged: its parts do not fill the file", outdated: false };
}

function aligned(at: number): number {
  return Math.ceil(at / 8) * 8;
}
