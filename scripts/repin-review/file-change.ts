/** A supporting or pack file a bump changes, as the review lists it, and whether it shows its content. */
import type { Skill } from "../../src/catalog/index.js";
import { compareIgnoringEndings, type EndingsChange, type LineChanges, sameButWhitespace } from "./diff.js";
import type { Excerpt } from "./excerpt.js";
import { readServed, type ServedFile, sameContent } from "./served.js";

export interface FileChange {
  /** In the pack: the new path, or the old one for a removed file. */
  readonly path: string;
  /**
   * In the pack, the path a changed file had before, when its skill moved to another folder; that of a
   * renamed one (removed at this path and added at `path`, its bytes the same or, when `lines` is defined,
   * its lines at least half the same).
   */
  readonly movedFrom: string | undefined;
  readonly kind: "added" | "removed" | "changed" | "renamed";
  /** For text, line endings aside; undefined for a binary file, or one the audit did not read. */
  readonly lines: LineChanges | undefined;
  /** How its line endings changed, when a line differs by its ending alone. */
  readonly endings: EndingsChange | undefined;
  /** Whether its lines changed in whitespace alone (see sameButWhitespace), which a diff hardly shows. */
  readonly whitespaceOnly: boolean;
  /** Whether its mode now lets it run, when that changed, and whether nothing else did. */
  readonly mode: { readonly executable: boolean; readonly only: boolean } | undefined;
  /** Why the audit did not read the version `path` names (the new one, or the removed one). */
  readonly notAudited: string | undefined;
  /**
   * What the review can show of it (see keepContents, file-contents.ts): an added text file's lines, a
   * changed one's unified diff, or why not; undefined for a removed, binary (but `text to git`) or
   * unaudited file, or one whose endings alone changed.
   */
  readonly content: FileContent | undefined;
  /** Its two versions, read again only to keep its content. */
  readonly sides: { readonly before: ServedFile | undefined; readonly after: ServedFile | undefined };
  /** Why its content shows as one of its crowd's samples (see sampleCrowds, crowds.ts), when it does. */
  readonly sample?: string;
  /**
   * Of a file renamed out of one skill into another (see movedBetweenSkills, compare.ts): the skill it was
   * in, and the one whose agents read it now; undefined for the pack files (outside every skill).
   */
  readonly skills?: { readonly from: Skill | undefined; readonly to: Skill | undefined };
}

/**
 * The content of an added or changed text file: no audit rule flags plain words, so a script or reference
 * a bump adds is otherwise read only upstream, through a compare link that a file:// source or many hosts
 * lack.
 */
export type FileContent =
  | { readonly kind: "text" | "diff"; readonly lines: Excerpt }
  | { readonly kind: "too different" | "too large" | "not kept" }
  /** A file of a crowd past its samples (see CROWD_SAMPLES): its crowd's line says where to read it. */
  | { readonly kind: "crowd" }
  /**
   * A file the server serves as binary, and so the review, but whose lines `git diff` shows (see
   * readServed): the review says where to read them.
   */
  | { readonly kind: "text to git" };

/** A text file larger than this is named, not diffed: its diff would be cut to a few lines anyway. */
export const CONTENT_BYTES = 1024 * 1024;

/** Whether `file` was renamed with its bytes as they were (its mode aside). */
export function renamedAsItWas({ kind, sides }: FileChange): boolean {
  return (
    kind === "renamed" &&
    sides.before !== undefined &&
    sides.after !== undefined &&
    sameContent(sides.before, sides.after)
  );
}

export function fileChange(
  where: string,
  kind: FileChange["kind"],
  before: ServedFile | undefined,
  after: ServedFile | undefined,
): FileChange {
  const named = kind === "removed" ? before : after;
  const [old, now] = [readServed(before), readServed(after)];
  const compared =
    old.text === undefined || now.text === undefined ? undefined : compareIgnoringEndings(old.text, now.text);
  return {
    path: where,
    movedFrom: undefined,
    kind,
    lines: compared?.lines,
    endings: compared?.endings,
    // Of a changed or renamed file: an added one of blank lines is not a change of whitespace.
    whitespaceOnly:
      (kind === "changed" || kind === "renamed") &&
      compared !== undefined &&
      compared.before !== compared.after &&
      sameButWhitespace(compared.before, compared.after),
    mode:
      before !== undefined && after !== undefined && before.executable !== after.executable
        ? { executable: after.executable, only: false }
        : undefined,
    notAudited: named?.notAudited,
    // The review shows no removed file's content, and git a binary one's no more than the review.
    content:
      kind !== "removed" && compared === undefined && old.gitText && now.gitText
        ? { kind: "text to git" }
        : undefined,
    sides: { before, after },
  };
}

/**
 * Whether the review shows `file`'s content: an added or changed text file, changed in more than its mode
 * or line endings, not yet marked otherwise.
 */
export function showsContent(file: FileChange): boolean {
  return (
    file.content === undefined &&
    file.kind !== "removed" &&
    file.notAudited === undefined &&
    file.lines !== undefined &&
    file.endings?.only !== true &&
    file.mode?.only !== true
  );
}
