import { compareText } from "../shared/index.js";
import { decodeCursor, encodeCursor, firstAfter, invalidCursor, type Listing } from "./cursor.js";
import { inAskedCase, SCHEME } from "./skill-uris.js";

/**
 * Where a `resources/list` page starts: after this URI of the skills (their SKILL.md), or of the pack files,
 * which follow every skill. Skills come first: a client that reads one page gets skills before files.
 */
export interface ResourceListPosition {
  readonly section: "skills" | "pack-files";
  readonly uri: string;
}

/** A cursor naming `uri`, of the list's `skill://` URIs, less the scheme they all start with. */
export function cursorAfter(listing: Listing, uri: string): string {
  return encodeCursor(listing, uri.slice(SCHEME.length));
}

/** The URI a cursor of `listing` names. */
function uriAt(listing: Listing, cursor: string): string {
  return `${SCHEME}${decodeCursor(listing, cursor)}`;
}

/** Where every skill's URI ends: a `skills/list` page ends at a skill, so its cursor names one. */
const SKILL_DOCUMENT = "/SKILL.md";

/**
 * The skill URI a cursor of `skills/list` names; one naming no skill's URI (`sAbc~zzz`, an empty place)
 * is refused, as no page of the list ends there: it was answered a page from wherever it sorted.
 */
export function skillUriAt(listing: Listing, cursor: string): string {
  const uri = uriAt(listing, cursor);
  if (!uri.endsWith(SKILL_DOCUMENT) || uri.length === SCHEME.length + SKILL_DOCUMENT.length)
    throw invalidCursor(listing);
  return uri;
}

/**
 * The child of the folder at `folderUri` (as listed) that a cursor of a read of that folder names, spelled
 * as listed: its pack in the case the folder is listed in, whichever case the read that gave the cursor
 * asked for. A host may read one page as `skill://MyPack/…` and the next as `skill://mypack/…`: a cursor in
 * the other case was compared as it was spelled, and the next page came back empty, or as the first again.
 * One naming no direct child of the folder is refused.
 */
export function childUriAt(listing: Listing, cursor: string, folderUri: string): string {
  const uri = inAskedCase(uriAt(listing, cursor), folderUri);
  const name = uri.slice(folderUri.length + 1);
  if (!uri.startsWith(`${folderUri}/`) || name === "" || name.includes("/")) throw invalidCursor(listing);
  return uri;
}

/** A cursor of `resources/list` naming the last resource of its page, and its section. */
export function resourceListCursor(listing: Listing, last: ResourceListPosition | undefined): string {
  const uri = last?.uri ?? SCHEME;
  return encodeCursor(listing, `${last?.section === "pack-files" ? "f" : "s"}${uri.slice(SCHEME.length)}`);
}

/** The position a cursor of `resources/list` names; one this server did not give is refused. */
export function resourceListPositionAt(listing: Listing, cursor: string): ResourceListPosition {
  const position = decodeCursor(listing, cursor);
  const mark = position.slice(0, 1);
  if (mark !== "s" && mark !== "f") throw invalidCursor(listing);
  return { section: mark === "f" ? "pack-files" : "skills", uri: `${SCHEME}${position.slice(1)}` };
}

/**
 * The index in `items`, sorted by their URIs in code-unit order (compareText: the one order of entries,
 * children and cursors, as the SDK orders them), of the first after `after` (0 without it).
 */
export function startAfter<Item>(
  items: readonly Item[],
  uriOf: (item: Item) => string,
  after: string | undefined,
): number {
  return after === undefined ? 0 : firstAfter(items, (item) => compareText(uriOf(item), after) <= 0);
}
