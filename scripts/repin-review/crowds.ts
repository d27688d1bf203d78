/** Crowds: many files alike changed in one folder (a data set), listed last and shown by a few samples. */
import path from "node:path";
import { type FileChange, showsContent } from "./file-change.js";

/**
 * Past this many files of one kind (added, removed, changed, renamed, moved from one skill into another,
 * and change of mode) in one folder, or one level down in the folders of one folder, they are a crowd: a
 * data set, generated pages. A bump changing 3,000 rows of one listed its files by path alone, and the
 * list, cut to fit, and the room for contents were all rows: a reference removed or a script added beside
 * them was in neither. A crowd's files come after the rest, and a list cut short names it in one line.
 */
const CROWD_FILES = 20;

/** The files of a crowd have the same `key`; `folder` holds them (`data/rows`), or its folders (`data/*`). */
export interface Crowd {
  readonly key: string;
  readonly folder: string;
}

/** The crowd of each file of `files`; undefined for one in none. */
export function crowdsIn(files: readonly FileChange[]): (file: FileChange) => Crowd | undefined {
  const placesOf = (file: FileChange): Crowd[] => {
    // One the audit did not read is a high finding of its own, always named.
    if (file.notAudited !== undefined) return [];
    const moved =
      file.skills === undefined ? "" : `\n${file.skills.from?.folder ?? ""}\n${file.skills.to?.folder ?? ""}`;
    const kind = `${file.kind}\n${file.mode?.executable} ${file.mode?.only}${moved}`;
    const folder = path.posix.dirname(file.path);
    const parent = path.posix.dirname(folder);
    const places = [{ key: `${kind}\n${folder}`, folder }];
    if (folder !== ".") {
      const below = parent === "." ? "*" : `${parent}/*`;
      places.push({ key: `${kind}\n${below}`, folder: below });
    }
    return places;
  };
  const places = new Map<FileChange, Crowd[]>();
  const sizes = new Map<string, number>();
  for (const file of files) {
    const held = placesOf(file);
    places.set(file, held);
    for (const { key } of held) sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  // Each file's crowd found once: the review asks for every file's, for each list, in each render it tries.
  const crowds = new Map<FileChange, Crowd | undefined>();
  for (const [file, held] of places)
    crowds.set(
      file,
      held.find(({ key }) => (sizes.get(key) ?? 0) > CROWD_FILES),
    );
  return (file) =>
    crowds.has(file)
      ? crowds.get(file)
      : placesOf(file).find(({ key }) => (sizes.get(key) ?? 0) > CROWD_FILES);
}

/**
 * How many files of a crowd show their contents. A crowd's files are alike (3,000 rows of a data set): one
 * of them given a share of the room for contents each, a bump of 3,000 rows showed some 130 row diffs,
 * and every other file only its least share.
 */
export const CROWD_SAMPLES = 2;

/** Why a file is worth showing before others of its crowd: `rank` lower first, `why` said in the review. */
export interface Notable {
  readonly rank: number;
  readonly why: string;
}

/**
 * `files` (one list: a pack's supporting files, or its pack files) with the content of each crowd's files
 * past its CROWD_SAMPLES samples whose content would show marked `crowd`: they take no room for contents.
 * The samples are those that tell the reviewer most: the `notable` ones first (a file with a finding), then
 * the largest changes, then the first by path; each says why it was chosen. The first two by path showed a
 * row changed in one line beside the one row of 3,000 a bump rewrote, or that brought a finding.
 */
export function sampleCrowds(
  files: readonly FileChange[],
  notable: (file: FileChange) => Notable | undefined,
): FileChange[] {
  const crowdOf = crowdsIn(files);
  const members = new Map<string, { file: FileChange; index: number; notable: Notable | undefined }[]>();
  files.forEach((file, index) => {
    const crowd = crowdOf(file);
    if (crowd === undefined || !showsContent(file)) return;
    const held = members.get(crowd.key) ?? [];
    held.push({ file, index, notable: notable(file) });
    members.set(crowd.key, held);
  });
  const size = (file: FileChange) => (file.lines?.added ?? 0) + (file.lines?.removed ?? 0);
  const samples = new Map<number, string>();
  for (const crowd of members.values()) {
    const chosen = crowd
      .sort(
        (a, b) =>
          (a.notable?.rank ?? Number.POSITIVE_INFINITY) - (b.notable?.rank ?? Number.POSITIVE_INFINITY) ||
          size(b.file) - size(a.file) ||
          a.index - b.index,
      )
      .slice(0, CROWD_SAMPLES);
    let largest = 0;
    for (const { index, notable: worth } of chosen)
      samples.set(index, worth?.why ?? (largest++ === 0 ? "the largest change" : "the next largest change"));
  }
  return files.map((file, index) => {
    if (crowdOf(file) === undefined || !showsContent(file)) return file;
    const why = samples.get(index);
    return why === undefined ? { ...file, content: { kind: "crowd" } } : { ...file, sample: why };
  });
}

/** `files`, in their order, with the files of each crowd after the others. */
export function crowdsLast(files: readonly FileChange[]): FileChange[] {
  const crowd = crowdsIn(files);
  return [
    ...files.filter((file) => crowd(file) === undefined),
    ...files.filter((file) => crowd(file) !== undefined),
  ];
}
