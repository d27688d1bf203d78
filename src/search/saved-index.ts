import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Skill } from "../catalog/index.js";
import { Bm25fIndex, type RankingOptions } from "./bm25f.js";
import { FIELD_NAMES } from "./fields.js";
import { KeyTable } from "./keys.js";
import { NameIndex } from "./names.js";
import { type SearchIndex, SkillIndex } from "./skill-index.js";
import { SpellingTable } from "./spelling.js";

/**
 * The version of the saved layout and of everything that decides what an index holds: the analysis of
 * words, the fields, the scoring and its impact levels. Bump it with any change to them, so that indexes
 * saved before are built anew instead of trusted; test/search/saved-index.test.ts holds the digest of a
 * saved fixture and fails when the bytes change while the version does not.
 */
export const INDEX_FORMAT_VERSION = 5;

/**
 * A saved index is its header, then its typed arrays as they are in memory, each starting at a multiple of
 * 8 bytes so that a loaded index is views of the file's bytes, not copies. Numbers are in the byte order of
 * the machine that saved it, which the byte-order mark tells.
 *
 *     0  "SKILLIDX"                        24  file length (f64)
 *     8  format version (u32)             32  catalog fingerprint (SHA-256, 32 bytes)
 *    12  byte-order mark 0x01020304       64  ranking options (11 f64: weights, length normalization, k1)
 *    16  CRC-32 of bytes 20 to the end   152  term count, trigram count (f64)
 *    20  skill count (u32)               168  element count of each array (14 f64); arrays from 280 on
 */
const MAGIC = Buffer.from("SKILLIDX", "latin1");
const VERSION_AT = 8;
const BYTE_ORDER_AT = 12;
const CHECKSUM_AT = 16;
const CHECKED_FROM = 20;
const SKILLS_AT = 20;
const LENGTH_AT = 24;
const FINGERPRINT_AT = 32;
const FINGERPRINT_BYTES = 32;
const RANKING_AT = 64;
const TERM_COUNT_AT = 152;
const TRIGRAM_COUNT_AT = 160;
const COUNTS_AT = 168;

const BYTE_ORDER_MARK = 0x01020304;
const SWAPPED_BYTE_ORDER_MARK = 0x04030201;
const NATIVE_LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

interface ArrayKind<T> {
  new (buffer: ArrayBufferLike, at: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * The typed arrays an index saves, in the order of the file, each with its kind and where an index keeps
 * it: the one list that writing and reading share.
 */
const SAVED_ARRAYS = {
  termSlots: { kind: Int32Array, of: (index: SkillIndex) => index.terms.terms.storage },
  gaps: { kind: Uint8Array, of: (index: SkillIndex) => index.terms.gaps },
  gapStarts: { kind: Uint32Array, of: (index: SkillIndex) => index.terms.gapStarts },
  levels: { kind: Uint8Array, of: (index: SkillIndex) => index.terms.levels },
  postingStarts: { kind: Uint32Array, of: (index: SkillIndex) => index.terms.postingStarts },
  termWeights: { kind: Float64Array, of: (index: SkillIndex) => index.terms.termWeights },
  spellingHashes: { kind: Int32Array, of: (index: SkillIndex) => index.terms.spellings.hashes },
  spellingChecks: { kind: Int32Array, of: (index: SkillIndex) => index.terms.spellings.checks },
  spellingTerms: { kind: Int32Array, of: (index: SkillIndex) => index.terms.spellings.terms },
  nameStarts: { kind: Int32Array, of: (index: SkillIndex) => index.names.documentStarts },
  nameDocuments: { kind: Int32Array, of: (index: SkillIndex) => index.names.documents },
  trigramSlots: { kind: Int32Array, of: (index: SkillIndex) => index.names.trigrams.storage },
  trigramStarts: { kind: Int32Array, of: (index: SkillIndex) => index.names.trigramStarts },
  trigramNames: { kind: Int32Array, of: (index: SkillIndex) => index.names.trigramNames },
} as const;

type SavedArrays = typeof SAVED_ARRAYS;
type SavedArrayName = keyof SavedArrays;
/** Each saved array as its kind makes it. */
type ReadArrays = { -readonly [Name in SavedArrayName]: InstanceType<SavedArrays[Name]["kind"]> };

const ARRAY_NAMES = Object.keys(SAVED_ARRAYS) as SavedArrayName[];
const HEADER_BYTES = COUNTS_AT + 8 * ARRAY_NAMES.length;

/**
 * Why a saved index cannot be used. `outdated`: a whole index of other skills, options or format, as
 * after a SKILL.md is edited, SKILL_PACKS narrows the catalog or the server is upgraded: expected, and
 * rebuilding is the cure. Otherwise the file is damaged or not an index at all.
 */
export interface Unfit {
  readonly problem: string;
  readonly outdated: boolean;
}

/** A saved index loaded, or why it cannot be used. */
export type LoadedIndex =
  | { readonly ok: true; readonly index: SearchIndex }
  | ({ readonly ok: false } & Unfit);

/** The bytes of a saved `index` (one made by `buildIndex` or loaded by {@link indexFromBytes}). */
export function indexToBytes(index: SearchIndex): Uint8Array {
  if (!(index instanceof SkillIndex)) throw new TypeError("only an index made by buildIndex can be saved");
  const { terms, names, skills, ranking } = index;
  const arrays = ARRAY_NAMES.map((name) => SAVED_ARRAYS[name].of(index));
  let length = HEADER_BYTES;
  const offsets = arrays.map((array) => {
    const at = length;
    length = aligned(at + array.byteLength);
    return at;
  });
  const bytes = new Uint8Array(length);
  const view = new DataView(bytes.buffer);
  arrays.forEach((array, i) => {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offsets[i]);
    view.setFloat64(COUNTS_AT + 8 * i, array.length, NATIVE_LITTLE_ENDIAN);
  });
  bytes.set(MAGIC, 0);
  view.setUint32(VERSION_AT, INDEX_FORMAT_VERSION, NATIVE_LITTLE_ENDIAN);
  view.setUint32(BYTE_ORDER_AT, BYTE_ORDER_MARK, NATIVE_LITTLE_ENDIAN);
  view.setUint32(SKILLS_AT, skills.length, NATIVE_LITTLE_ENDIAN);
  view.setFloat64(LENGTH_AT, length, NATIVE_LITTLE_ENDIAN);
  bytes.set(catalogFingerprint(skills, ranking), FINGERPRINT_AT);
  rankingNumbers(ranking).forEach((number, i) => {
    view.setFloat64(RANKING_AT + 8 * i, number, NATIVE_LITTLE_ENDIAN);
  });
  view.setFloat64(TERM_COUNT_AT, terms.terms.size, NATIVE_LITTLE_ENDIAN);
  view.setFloat64(TRIGRAM_COUNT_AT, names.trigrams.size, NATIVE_LITTLE_ENDIAN);
  view.setUint32(CHECKSUM_AT, crc32(bytes.subarray(CHECKED_FROM)), NATIVE_LITTLE_ENDIAN);
  return bytes;
}

/**
 * The index that `saved` holds, if it was saved from exactly these `skills` (in this order) with this
 * `ranking` by this format version, and is whole; otherwise why not. Never throws on bad bytes. The index's
 * arrays are views of `saved`, which must not change afterwards.
 */
export function indexFromBytes(
  saved: Uint8Array,
  skills: readonly Skill[],
  ranking: RankingOptions,
): LoadedIndex {
  const unfit = headerProblem(saved, skills, ranking);
  if (unfit !== undefined) return { ok: false, ...unfit };
  // Typed arrays must start at a multiple of their element size in their buffer.
  const reader = new ArrayReader(saved.byteOffset % 8 === 0 ? saved : new Uint8Array(saved));
  const read = Object.fromEntries(
    ARRAY_NAMES.map((name) => [name, reader.next(SAVED_ARRAYS[name].kind as ArrayKind<unknown>)]),
  ) as ReadArrays;
  const {
    termSlots,
    gaps,
    gapStarts,
    levels,
    postingStarts,
    termWeights,
    spellingHashes,
    spellingChecks,
    spellingTerms,
    nameStarts,
    nameDocuments,
    trigramSlots,
    trigramStarts,
    trigramNames,
  } = read;
  const termCount = reader.number(TERM_COUNT_AT);
  const trigramCount = reader.number(TRIGRAM_COUNT_AT);
  if (
    !reader.whole() ||
    !isTable(termSlots, termCount) ||
    !isTable(trigramSlots, trigramCount) ||
    !isStarts(gapStarts, termCount, gaps.length) ||
    !isStarts(postingStarts, termCount, levels.length) ||
    termWeights.length !== termCount ||
    spellingChecks.length !== spellingHashes.length ||
    spellingTerms.length !== spellingHashes.length ||
    !isAscending(spellingHashes) ||
    !allBelow(spellingTerms, termCount) ||
    !isStarts(nameStarts, nameStarts.length - 1, skills.length) ||
    nameDocuments.length !== skills.length ||
    !allBelow(nameDocuments, skills.length) ||
    !isStarts(trigramStarts, trigramCount, trigramNames.length) ||
    !allBelow(trigramNames, nameStarts.length - 1)
  ) {
    return { ok: false, ...damaged("malformed: its arrays do not fit together") };
  }
  const terms = new Bm25fIndex(
    new KeyTable(termSlots, termCount),
    gaps,
    gapStarts,
    levels,
    postingStarts,
    termWeights,
    new SpellingTable(spellingHashes, spellingChecks, spellingTerms),
  );
  const names = new NameIndex(
    skills,
    nameStarts,
    nameDocuments,
    new KeyTable(trigramSlots, trigramCount),
    trigramStarts,
    trigramNames,
  );
  return { ok: true, index: new SkillIndex(skills, terms, names, ranking) };
}

/** Reads the arrays of a saved index in turn, as views of its bytes. */
class ArrayReader {
  private readonly view: DataView;
  private at = HEADER_BYTES;
  private read = 0;
  private failed = false;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  number(at: number): number {
    return this.view.getFloat64(at, NATIVE_LITTLE_ENDIAN);
  }

  /** The next array, or an empty one when its count does not fit the bytes (see {@link whole}). */
  next<T>(Kind: ArrayKind<T>): T {
    const count = this.number(COUNTS_AT + 8 * this.read++);
    const end = this.at + count * Kind.BYTES_PER_ELEMENT;
    if (this.failed || !Number.isSafeInteger(count) || count < 0 || end > this.bytes.length) {
      this.failed = true;
      return new Kind(new ArrayBuffer(0), 0, 0);
    }
    const array = new Kind(this.bytes.buffer, this.bytes.byteOffset + this.at, count);
    this.at = aligned(end);
    return array;
  }

  /** Whether every array was read and they fill the bytes exactly. */
  whole(): boolean {
    return !this.failed && this.read === ARRAY_NAMES.length && this.at === this.bytes.length;
  }
}

/** Why the header rules the saved index out, cheapest checks first; undefined when it fits. */
function headerProblem(
  saved: Uint8Array,
  skills: readonly Skill[],
  ranking: RankingOptions,
): Unfit | undefined {
  if (saved.length < MAGIC.length || !MAGIC.equals(saved.subarray(0, MAGIC.length))) {
    return damaged("not a skills-mcp search index");
  }
  if (saved.length < HEADER_BYTES)
    return damaged(`truncated: ${saved.length} bytes, shorter than its header`);
  const view = new DataView(saved.buffer, saved.byteOffset, saved.byteLength);
  const mark = view.getUint32(BYTE_ORDER_AT, NATIVE_LITTLE_ENDIAN);
  if (mark === SWAPPED_BYTE_ORDER_MARK) return damaged("saved on a machine of the other byte order");
  if (mark !== BYTE_ORDER_MARK) return damaged("malformed header");
  const version = view.getUint32(VERSION_AT, NATIVE_LITTLE_ENDIAN);
  if (version !== INDEX_FORMAT_VERSION) {
    return outdated(`format version ${version}; this server reads version ${INDEX_FORMAT_VERSION}`);
  }
  const length = view.getFloat64(LENGTH_AT, NATIVE_LITTLE_ENDIAN);
  if (length !== saved.length)
    return damaged(`truncated or padded: ${saved.length} bytes, saved as ${length}`);
  if (view.getUint32(CHECKSUM_AT, NATIVE_LITTLE_ENDIAN) !== crc32(saved.subarray(CHECKED_FROM))) {
    return damaged("corrupt: its checksum does not match its content");
  }
  const expectedRanking = rankingNumbers(ranking);
  if (
    expectedRanking.some((number, i) => number !== view.getFloat64(RANKING_AT + 8 * i, NATIVE_LITTLE_ENDIAN))
  ) {
    return outdated("ranked with other options (field weights, length normalization, k1) than this server's");
  }
  const savedSkills = view.getUint32(SKILLS_AT, NATIVE_LITTLE_ENDIAN);
  if (savedSkills !== skills.length) {
    return outdated(`built from another catalog: ${savedSkills} skills, where ${skills.length} are loaded`);
  }
  const fingerprint = saved.subarray(FINGERPRINT_AT, FINGERPRINT_AT + FINGERPRINT_BYTES);
  if (!Buffer.from(fingerprint).equals(catalogFingerprint(skills, ranking))) {
    return outdated(
      "built from another catalog: a skill's id, pack, group or description, or the size or modification " +
        "time of its SKILL.md, differs",
    );
  }
  return undefined;
}

function damaged(problem: string): Unfit {
  return { problem, outdated: false };
}

function outdated(problem: string): Unfit {
  return { problem, outdated: true };
}

/**
 * What an index depends on, as a SHA-256: the format version, the ranking options, and each skill in
 * order, by what is indexed (id, pack, group, description) and by the size and modification time (in
 * whole seconds) of its SKILL.md, which stand for its text (reading every text again would cost what
 * building does). A copy that keeps times, or an edit that keeps the size within the same second, goes
 * unseen: --build-index again after such a change.
 */
function catalogFingerprint(skills: readonly Skill[], ranking: RankingOptions): Buffer {
  const parts = [String(INDEX_FORMAT_VERSION), ...rankingNumbers(ranking).map(String)];
  for (const skill of skills) {
    const { id, pack, group, description, document } = skill;
    // Whole seconds: image layers (tar) and many copies keep no finer modification time.
    const seconds = Math.floor(document.mtimeMs / 1000);
    parts.push(id, pack, group ?? "", description, String(document.size), String(seconds));
  }
  // The parts' lengths first: a part may hold any character, so no separator alone keeps lists apart.
  return createHash("sha256")
    .update(parts.map((part) => part.length).join(","))
    .update("\n")
    .update(parts.join("\n"))
    .digest();
}

function rankingNumbers(ranking: RankingOptions): number[] {
  return [
    ...FIELD_NAMES.map((field) => ranking.weights[field]),
    ...FIELD_NAMES.map((field) => ranking.lengthNormalization[field]),
    ranking.k1,
  ];
}

/**
 * A KeyTable's slots: a power of two of three-number slots, exactly `size` of them used, at most
 * half, numbered 0 to size - 1 once each. A lookup walks slots until an empty one, so a table with fewer
 * empty slots than it claims (a crafted file with a valid checksum) would never end a lookup.
 */
function isTable(slots: Int32Array, size: number): boolean {
  const slotCount = slots.length / 3;
  const powerOfTwo = Number.isInteger(slotCount) && slotCount >= 2 && (slotCount & (slotCount - 1)) === 0;
  if (!powerOfTwo || !Number.isSafeInteger(size) || size < 0 || size * 2 > slotCount) return false;
  const numbered = new Uint8Array(size);
  let used = 0;
  for (let at = 2; at < slots.length; at += 3) {
    const number = (slots[at] as number) - 1;
    if (number === -1) continue;
    if (number < 0 || number >= size || numbered[number] === 1) return false;
    numbered[number] = 1;
    used++;
  }
  return used === size;
}

/** Whether the items never decrease: a binary search needs it. */
function isAscending(items: Int32Array): boolean {
  for (let i = 1; i < items.length; i++) if ((items[i - 1] as number) > (items[i] as number)) return false;
  return true;
}

/** Whether every item is a valid position in a list of `length`. */
function allBelow(items: Int32Array, length: number): boolean {
  for (const item of items) if (item < 0 || item >= length) return false;
  return true;
}

/** Offsets of `count` lists into an array of `total` items: from 0 to `total`, never decreasing. */
function isStarts(starts: Uint32Array | Int32Array, count: number, total: number): boolean {
  if (starts.length !== count + 1 || starts[0] !== 0 || starts[count] !== total) return false;
  for (let i = 0; i < count; i++) if ((starts[i] as number) > (starts[i + 1] as number)) return false;
  return true;
}

function aligned(at: number): number {
  return Math.ceil(at / 8) * 8;
}
