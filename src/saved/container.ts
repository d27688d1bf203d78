import { crc32 } from "node:zlib";

/**
 * The saved index: what startup would otherwise work out from the skills folder, saved once by
 * `--build-index` (the image build runs it) as named parts of one file, each written and read by its owner.
 * The file says which catalog it was made from (its fingerprint), and each part carries a CRC-32, so that a
 * damaged part (a flipped bit, a same-length edit of a description or a digest) is worked out again like a
 * torn file, never served. A part is a list of pieces, each starting at a multiple of 8 bytes, so that a
 * reader may view a piece as a typed array in place; numbers in pieces are in the byte order of the machine
 * that saved the file, which the byte-order mark tells.
 *
 *      0  "SKMCPSAV"       8  format version (u32)      12  byte-order mark 0x01020304 (u32)
 *     16  skill count      20  part count (u32)         24  catalog fingerprint (SHA-256, 32 bytes)
 *     56  then each part: name length (u32), name (UTF-8), padding to 8; piece count (u32), CRC-32 of its
 *         name, piece lengths and pieces (u32); each piece's byte length (f64); each piece, padded to 8
 *
 * Header numbers but the mark are little-endian.
 */

const MAGIC = Buffer.from("SKMCPSAV", "latin1");
/** What a file saved by a server before this format began with: the search index alone. */
const SEARCH_INDEX_ONLY = Buffer.from("SKILLIDX", "latin1");
/** 3: one catalog fingerprint for the file, parts made of pieces. */
const FORMAT_VERSION = 3;
const BYTE_ORDER_MARK = 0x01020304;
const SWAPPED_BYTE_ORDER_MARK = 0x04030201;
const FINGERPRINT_BYTES = 32;
const HEADER_BYTES = 24 + FINGERPRINT_BYTES;
/**
 * The most parts, and pieces in a part, a file may hold: a server saves four parts of at most some tens of
 * pieces. Each is an object in memory, and a crafted file of 160 MB declaring 20 million empty pieces took
 * 2.5 GB to read before its checksum was found not to match.
 */
const MAX_PARTS = 64;
const MAX_PIECES = 1024;
/** The longest part name read, in bytes; each is quoted in the log when its part is damaged. */
const MAX_PART_NAME_BYTES = 64;

/** What the catalog was when the file was saved: its skill count, and a digest of the rest. */
export interface CatalogFingerprint {
  readonly skills: number;
  /** SHA-256: 32 bytes. */
  readonly digest: Uint8Array;
}

/** A saved index as written, or as read: each part's pieces, views of the file's bytes once read. */
export interface SavedIndex {
  readonly fingerprint: CatalogFingerprint;
  readonly parts: ReadonlyMap<string, readonly Uint8Array[]>;
}

/**
 * Why a saved index cannot be used. `outdated`: saved by another version, or from another catalog: expected
 * after an upgrade or an edit, and working it out again is the cure. Otherwise the file is damaged or not a
 * saved index at all.
 */
export interface Unfit {
  readonly problem: string;
  readonly outdated: boolean;
}

/** The bytes of a saved index. */
export function savedIndexBytes({ fingerprint, parts }: SavedIndex): Uint8Array {
  if (fingerprint.digest.length !== FINGERPRINT_BYTES) throw new RangeError("the digest must be a SHA-256");
  const entries = [...parts].map(([name, pieces]) => ({ name: Buffer.from(name), pieces }));
  let length = HEADER_BYTES;
  for (const { name, pieces } of entries) {
    length = aligned(length + 4 + name.length) + 8 + 8 * pieces.length;
    for (const piece of pieces) length = aligned(length + piece.byteLength);
  }
  const file = Buffer.alloc(length);
  MAGIC.copy(file, 0);
  file.writeUInt32LE(FORMAT_VERSION, 8);
  new Uint32Array(file.buffer, file.byteOffset + 12, 1)[0] = BYTE_ORDER_MARK;
  file.writeUInt32LE(fingerprint.skills, 16);
  file.writeUInt32LE(entries.length, 20);
  file.set(fingerprint.digest, 24);
  let at = HEADER_BYTES;
  for (const { name, pieces } of entries) {
    file.writeUInt32LE(name.length, at);
    name.copy(file, at + 4);
    at = aligned(at + 4 + name.length);
    file.writeUInt32LE(pieces.length, at);
    const checksumAt = at + 4;
    const lengthsAt = at + 8;
    pieces.forEach((piece, i) => {
      file.writeDoubleLE(piece.byteLength, lengthsAt + 8 * i);
    });
    at = lengthsAt + 8 * pieces.length;
    let checksum = crc32(file.subarray(lengthsAt, at), crc32(name));
    for (const piece of pieces) {
      file.set(piece, at);
      // Of the bytes written, as the reader sums them: Node's crc32 drops its start value for an empty
      // view of an empty buffer (an empty typed array's), where an empty view of the file keeps it.
      checksum = crc32(file.subarray(at, at + piece.byteLength), checksum);
      at = aligned(at + piece.byteLength);
    }
    file.writeUInt32LE(checksum, checksumAt);
  }
  return file;
}

/**
 * The saved index that `file` holds, its pieces as views of its bytes (of a copy when `file` does not start
 * at a multiple of 8 in its buffer, which typed arrays need); or why it is not one this server reads.
 */
export function readSavedIndex(file: Uint8Array): { ok: true; index: SavedIndex } | ({ ok: false } & Unfit) {
  const whole = file.byteOffset % 8 === 0 ? file : new Uint8Array(file);
  const bytes = Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength);
  const magic = bytes.subarray(0, MAGIC.length);
  if (magic.equals(SEARCH_INDEX_ONLY)) {
    return outdated("saved by an earlier version, which saved the search index alone");
  }
  if (bytes.length < HEADER_BYTES || !magic.equals(MAGIC)) return damaged("not a saved index of skills-mcp");
  const version = bytes.readUInt32LE(8);
  if (version !== FORMAT_VERSION) {
    return outdated(`saved in format ${version}; this server reads format ${FORMAT_VERSION}`);
  }
  const mark = new Uint32Array(bytes.buffer, bytes.byteOffset + 12, 1)[0];
  if (mark === SWAPPED_BYTE_ORDER_MARK) return damaged("saved on a machine of the other byte order");
  if (mark !== BYTE_ORDER_MARK) return damaged("malformed header");
  const fingerprint = { skills: bytes.readUInt32LE(16), digest: bytes.subarray(24, HEADER_BYTES) };
  const parts = new Map<string, Uint8Array[]>();
  const partCount = bytes.readUInt32LE(20);
  if (partCount > MAX_PARTS)
    return damaged(`malformed header: ${partCount} parts, where at most ${MAX_PARTS} are read`);
  let at = HEADER_BYTES;
  for (let count = partCount; count > 0; count--) {
    if (at + 4 > bytes.length) return truncated();
    const nameLength = bytes.readUInt32LE(at);
    if (nameLength > MAX_PART_NAME_BYTES) {
      return damaged(
        `damaged: a part's name takes ${nameLength} bytes, where at most ${MAX_PART_NAME_BYTES} are read`,
      );
    }
    const nameBytes = bytes.subarray(at + 4, at + 4 + nameLength);
    const countAt = aligned(at + 4 + nameBytes.length);
    if (countAt + 8 > bytes.length) return truncated();
    const name = nameBytes.toString("utf8");
    const pieceCount = bytes.readUInt32LE(countAt);
    if (pieceCount > MAX_PIECES) {
      return damaged(
        `damaged: its part "${name}" holds ${pieceCount} pieces, where at most ${MAX_PIECES} are read`,
      );
    }
    const lengthsAt = countAt + 8;
    at = lengthsAt + 8 * pieceCount;
    if (at > bytes.length) return truncated();
    let checksum = crc32(bytes.subarray(lengthsAt, at), crc32(nameBytes));
    const pieces: Uint8Array[] = [];
    for (let piece = 0; piece < pieceCount; piece++) {
      const length = bytes.readDoubleLE(lengthsAt + 8 * piece);
      if (!Number.isSafeInteger(length) || length < 0 || at + length > bytes.length) return truncated();
      pieces.push(bytes.subarray(at, at + length));
      checksum = crc32(bytes.subarray(at, at + length), checksum);
      at = aligned(at + length);
    }
    if (checksum !== bytes.readUInt32LE(countAt + 4)) {
      return damaged(`damaged: its part "${name}" does not match its checksum`);
    }
    parts.set(name, pieces);
  }
  return at === bytes.length ? { ok: true, index: { fingerprint, parts } } : truncated();
}

function truncated(): { ok: false } & Unfit {
  return damaged("truncated or damaged: its parts do not fill the file");
}

function damaged(problem: string): { ok: false } & Unfit {
  return { ok: false, problem, outdated: false };
}

function outdated(problem: string): { ok: false } & Unfit {
  return { ok: false, problem, outdated: true };
}

/** `at` rounded up to a multiple of 8. */
function aligned(at: number): number {
  return Math.ceil(at / 8) * 8;
}
