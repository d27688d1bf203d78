/**
 * Renamed files: a removed file and an added one paired as one, by their bytes, or by content at least half
 * the same (git's `-M`).
 */
import path from "node:path";
import { hashOf, withLineFeeds } from "./diff.js";
import { CONTENT_BYTES, type FileChange, fileChange } from "./file-change.js";
import { rareKeyIndex } from "./rare-keys.js";
import { bytesOf, type ServedFile, textOf } from "./served.js";

/** Whether a removed file and an added one may be paired as one renamed file. */
export type Pairable = (removed: FileChange, added: FileChange) => boolean;

export const anyPair: Pairable = () => true;

/**
 * `changes` with each added file that has the bytes of a removed one, and the removed one, as one renamed
 * file (one of the same name first): a reference moved within its skill was listed as removed and added,
 * its whole text shown as new. An empty file is not paired: two of them say nothing of each other.
 */
export function renamedFiles(changes: readonly FileChange[], pairable: Pairable = anyPair): FileChange[] {
  const keyOf = (file: ServedFile | undefined) =>
    file?.digest === undefined || file.digest.size === 0 || file.notAudited !== undefined
      ? undefined
      : `${file.digest.size} ${file.digest.sha256}`;
  const removed = new Map<string, FileChange[]>();
  for (const change of changes) {
    const key = change.kind === "removed" ? keyOf(change.sides.before) : undefined;
    if (key === undefined) continue;
    const same = removed.get(key) ?? [];
    same.push(change);
    removed.set(key, same);
  }
  const paired = new Set<FileChange>();
  const renamed: FileChange[] = [];
  for (const change of changes) {
    const key = change.kind === "added" ? keyOf(change.sides.after) : undefined;
    const candidates = (key === undefined ? undefined : removed.get(key))?.filter(
      (old) => !paired.has(old) && pairable(old, change),
    );
    const name = path.posix.basename(change.path);
    const old = candidates?.find((file) => path.posix.basename(file.path) === name) ?? candidates?.[0];
    if (old === undefined) continue;
    paired.add(old).add(change);
    const [before, after] = [old.sides.before, change.sides.after];
    renamed.push({
      ...change,
      kind: "renamed",
      movedFrom: old.path,
      lines: undefined,
      endings: undefined,
      whitespaceOnly: false,
      mode:
        before !== undefined && after !== undefined && before.executable !== after.executable
          ? { executable: after.executable, only: false }
          : undefined,
      // Its bytes the same: nothing to read of it upstream.
      content: undefined,
      sides: { before, after },
    });
  }
  return [...changes.filter((change) => !paired.has(change)), ...renamed];
}

/**
 * An added and a removed file are one renamed file when at least this share of the longer is in the other:
 * of a text file's lines (blank ones left out, in any order), of a binary file's bytes (see
 * {@link binaryPieces}). It is what git's `-M` takes for a rename by default, so that the review's pairs are
 * the ones `git diff` shows.
 */
const RENAME_SIMILARITY = 0.5;
/**
 * The most bytes of removed files whose pieces are held, as hashes, to pair with added ones (16 MiB, as
 * telling renamed skills holds), and the most piece comparisons one list may cost: past them, files are
 * left removed and added, as they were before edited renames were told.
 */
const RENAME_FILE_TEXT_BYTES = 16 * 1024 * 1024;
const RENAME_FILE_COMPARISONS = 64 * 1024 * 1024;

/**
 * Pieces that more removed files than this hold name none of them as a candidate for a file moved into
 * another skill, and each added file is compared with at most MOVE_CANDIDATES removed ones, those sharing
 * the most pieces with it: a pack's files are compared across all its skills. Compared with every removed
 * one, 10,000 files moved among 2,000 skills took 15.0 s, and found 109 of them before the bound on
 * comparisons; so, 6.2 s and all of them, 6.0 s when moves were not told (`bench/repin-review-moves.ts`).
 */
const RARE_PIECE_FILES = 8;
const MOVE_CANDIDATES = 8;

/**
 * A file as edited renames are told: the hashes of its pieces, sorted, each piece's weight, and their total.
 * A text file's pieces are its lines but blank ones, each of weight one (`weights` undefined, a line there
 * as often as the file has it); a binary file's are its bytes in git's pieces, each hash once, of the
 * bytes its pieces hold.
 */
interface Pieces {
  readonly binary: boolean;
  readonly hashes: Int32Array;
  readonly weights: Int32Array | undefined;
  readonly total: number;
}

/**
 * `changes` with each added file whose content is at least RENAME_SIMILARITY that of a removed one, and
 * that removed one, as one renamed file: a text file with the diff of its edit (a reference renamed and
 * edited in one bump showed as removed and added, its whole text shown as new and its old findings as new
 * ones), a binary one with its sizes. Each added file, in path order, takes the removed one most like it
 * (of the same name on a tie, then the first by path) of the same kind, text or binary, that `pairable`
 * allows; files over CONTENT_BYTES or unaudited are not paired. Pieces are compared by a hash with a fixed
 * seed, so that the pairs are the same on every run.
 */
export async function editedRenames(
  changes: readonly FileChange[],
  between: () => Promise<void>,
  pairable: Pairable = anyPair,
  candidates: Candidates = everyOne,
): Promise<FileChange[]> {
  const fits = (file: ServedFile | undefined) =>
    file !== undefined &&
    file.notAudited === undefined &&
    file.digest !== undefined &&
    file.digest.size > 0 &&
    file.digest.size <= CONTENT_BYTES;
  // With no added file to pair, the removed ones are not read.
  if (!changes.some((change) => change.kind === "added" && fits(change.sides.after))) return [...changes];
  const removed: Held[] = [];
  let held = 0;
  for (const change of changes) {
    const old = change.sides.before;
    if (change.kind !== "removed" || !fits(old) || old === undefined) continue;
    const size = old.digest?.size ?? 0;
    if (held + size > RENAME_FILE_TEXT_BYTES) continue;
    await between();
    const pieces = piecesOf(old);
    if (pieces === undefined) continue;
    held += size;
    removed.push({ change, pieces });
  }
  if (removed.length === 0) return [...changes];
  const candidatesOf = candidates(removed);
  const paired = new Set<FileChange>();
  const renamed: FileChange[] = [];
  let comparisons = 0;
  for (const change of changes) {
    if (change.kind !== "added" || !fits(change.sides.after) || change.sides.after === undefined) continue;
    await between();
    const pieces = piecesOf(change.sides.after);
    if (pieces === undefined) continue;
    const name = path.posix.basename(change.path);
    let best: { change: FileChange; score: number } | undefined;
    const open = (old: Held) =>
      !paired.has(old.change) && old.pieces.binary === pieces.binary && pairable(old.change, change);
    for (const old of candidatesOf(pieces, open)) {
      const longest = Math.max(pieces.total, old.pieces.total);
      // Too unlike in length to reach the share, whatever their content.
      if (Math.min(pieces.total, old.pieces.total) < RENAME_SIMILARITY * longest) continue;
      comparisons += pieces.hashes.length + old.pieces.hashes.length;
      if (comparisons > RENAME_FILE_COMPARISONS) break;
      const score = sharedWeight(pieces, old.pieces) / longest;
      if (score < RENAME_SIMILARITY) continue;
      const better =
        best === undefined ||
        score > best.score ||
        (score === best.score &&
          path.posix.basename(old.change.path) === name &&
          path.posix.basename(best.change.path) !== name);
      if (better) best = { change: old.change, score };
    }
    if (best === undefined) continue;
    paired.add(best.change).add(change);
    renamed.push({
      ...fileChange(change.path, "renamed", best.change.sides.before, change.sides.after),
      movedFrom: best.change.path,
    });
  }
  return [...changes.filter((change) => !paired.has(change)), ...renamed];
}

/** A removed file, and its pieces. */
interface Held {
  readonly change: FileChange;
  readonly pieces: Pieces;
}

/** The removed files each added one, by its pieces, is compared with, in their order, of those `open`. */
type Candidates = (
  removed: readonly Held[],
) => (pieces: Pieces, open: (old: Held) => boolean) => readonly Held[];

/** Every removed file open: within one skill or list, which holds few. */
const everyOne: Candidates = (removed) => (_pieces, open) => removed.filter(open);

/**
 * The MOVE_CANDIDATES open removed files sharing the most rare pieces with an added one (held by at most
 * RARE_PIECE_FILES removed files, see {@link rareKeyIndex}), the first ones on a tie, in their order.
 * Those paired already are left out before the cut: after it, ten files alike moved into ten skills
 * found eight moves, the last two added files left with eight candidates all taken.
 */
export const sharingRarePieces: Candidates = (removed) => {
  const shared = rareKeyIndex(removed, ({ pieces }) => distinct(pieces.hashes), RARE_PIECE_FILES);
  return (pieces, open) =>
    [...shared(distinct(pieces.hashes))]
      .filter(([index]) => {
        const old = removed[index];
        return old !== undefined && open(old);
      })
      .sort(([a, countA], [b, countB]) => countB - countA || a - b)
      .slice(0, MOVE_CANDIDATES)
      .map(([index]) => index)
      .sort((a, b) => a - b)
      .flatMap((index) => removed[index] ?? []);
};

/** Each value of sorted `hashes` once. */
function* distinct(hashes: Int32Array): Generator<number> {
  for (let index = 0; index < hashes.length; index++)
    if (index === 0 || hashes[index] !== hashes[index - 1]) yield hashes[index] ?? 0;
}

/** A file's pieces (see {@link Pieces}); undefined for a text of blank lines alone. */
function piecesOf(file: ServedFile): Pieces | undefined {
  const text = textOf(file);
  if (text === undefined) return binaryPieces(bytesOf(file));
  const hashes = lineHashes(text);
  return hashes === undefined
    ? undefined
    : { binary: false, hashes, weights: undefined, total: hashes.length };
}

/**
 * A binary file cut as git's `-M` cuts it to tell renames: a piece ends at each line feed, or after 64
 * bytes; two files share the bytes of the pieces both hold. Each piece is hashed as its bytes' Latin-1
 * characters, which stand for one byte each.
 */
function binaryPieces(bytes: Buffer): Pieces {
  const weights = new Map<number, number>();
  for (let start = 0; start < bytes.length; ) {
    const feed = bytes.indexOf(0x0a, start);
    const end = Math.min(feed < 0 ? bytes.length : feed + 1, start + 64, bytes.length);
    const hash = hashOf(bytes.toString("latin1", start, end), 0, end - start, 0);
    weights.set(hash, (weights.get(hash) ?? 0) + end - start);
    start = end;
  }
  const hashes = Int32Array.from(weights.keys()).sort();
  return {
    binary: true,
    hashes,
    weights: Int32Array.from(hashes, (hash) => weights.get(hash) ?? 0),
    total: bytes.length,
  };
}

/** The hashes of a text's lines but blank ones, line endings aside, sorted; undefined for no text. */
function lineHashes(text: string): Int32Array | undefined {
  const lines = withLineFeeds(text)
    .split("\n")
    .filter((line) => line.trim() !== "");
  if (lines.length === 0) return undefined;
  return Int32Array.from(lines, (line) => hashOf(line, 0, line.length, 0)).sort();
}

/**
 * How much two files' pieces share: of sorted hashes, each item of one matching at most one of the other,
 * each counted for its weight (the lesser of the two).
 */
function sharedWeight(a: Pieces, b: Pieces): number {
  let [i, j, shared] = [0, 0, 0];
  while (i < a.hashes.length && j < b.hashes.length) {
    const [x, y] = [a.hashes[i] ?? 0, b.hashes[j] ?? 0];
    if (x === y) {
      shared += Math.min(a.weights?.[i] ?? 1, b.weights?.[j] ?? 1);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}
