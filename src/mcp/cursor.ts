import { createHash } from "node:crypto";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Scope } from "../catalog/index.js";
import { firstPast } from "../shared/index.js";

/** Entries per page of every list this server pages: skills/list, prompts/list, resources/list, folder reads. */
export const PAGE_SIZE = 100;

/** The lists this server pages, each with the character its cursors start with. */
const LISTS = {
  "skills/list": "s",
  "prompts/list": "p",
  "resources/list": "r",
  "resources/directory/read": "d",
} as const;
type PagedList = keyof typeof LISTS;

/** Characters of a cursor's tag: 24 bits of a hash, to tell a listing's cursors from another's. */
const TAG_LENGTH = 4;
/** Ends the tag: what a client passes in error (a URI, a name) seldom has it there. */
const TAG_END = "~";
/** The list's character, the tag and its end. */
const HEAD_LENGTH = 2 + TAG_LENGTH;

/** One listing a cursor may page: a list, in one caller's scope, and for a folder read that folder. */
export interface Listing {
  readonly list: PagedList;
  /** Of the scope and folder, the same on every replica: no secret, nothing of the process. */
  readonly tag: string;
  /** What to call to list it from its start, said when a cursor is refused. */
  readonly restart: string;
}

/**
 * The listing of `list` in `scope` (for a folder read, of `folder`, its key and URI). Its cursors are
 * refused by every other listing, which would otherwise read them as a place in its own order and answer
 * a page of what follows there, skipping whatever came before (a cursor of one `X-Skill-Pack` scope sent
 * with another). The tag is of the scope and folder, not of the catalog: replicas of a rolling update
 * serve catalogs a skill apart, and a cursor one gives must page on with the other (see firstAfter).
 */
export function listingOf(
  list: PagedList,
  everything: Scope,
  scope: Scope,
  folder?: { readonly key: string; readonly uri: string },
): Listing {
  const tag = createHash("sha256")
    .update(`${scopeName(everything, scope)}\n${folder?.key ?? ""}`)
    .digest("base64url")
    .slice(0, TAG_LENGTH);
  const start = folder === undefined ? list : `${list} of ${folder.uri}`;
  return { list, tag, restart: `call ${start} without a cursor to list from the start` };
}

/**
 * What names `scope` the same on every replica, however its client spelled it: each pack it holds whole
 * by its name, and each other pack by the groups it holds (a selector selects packs and groups). A pack
 * held whole stays so when its skills or groups change, so that a cursor outlives a rolling update.
 */
function scopeName(everything: Scope, scope: Scope): string {
  if (scope === everything) return "";
  const packs = scope.packs.map((pack) =>
    pack.skills.length === everything.findPack(pack.name)?.skills.length
      ? pack.name
      : [pack.name, ...pack.groups.map((group) => group.name)],
  );
  return JSON.stringify(packs);
}

/**
 * A cursor of `listing` holding where its next page starts: the list's character, the listing's tag,
 * then the position as it is, which tokenizes several times shorter than base64 of it.
 */
export function encodeCursor(listing: Listing, position: string): string {
  return `${LISTS[listing.list]}${listing.tag}${TAG_END}${position}`;
}

/** Where the page of `cursor` starts; a cursor of another listing, or none of this server's, is refused. */
export function decodeCursor(listing: Listing, cursor: string): string {
  const list = cursor.slice(0, 1);
  const tag = cursor.slice(1, 1 + TAG_LENGTH);
  const other = Object.entries(LISTS).find(([, first]) => first === list)?.[0];
  if (other === undefined || cursor.slice(1 + TAG_LENGTH, HEAD_LENGTH) !== TAG_END)
    throw invalidCursor(listing);
  if (other === listing.list && tag === listing.tag) return cursor.slice(HEAD_LENGTH);
  if (other !== listing.list) {
    throw refusal(`Invalid cursor: it is one of ${other}, not of ${listing.list}; ${listing.restart}.`);
  }
  const scope = listing.list === "resources/directory/read" ? "another folder or scope" : "another scope";
  throw refusal(
    `Invalid cursor: it pages ${listing.list} in ${scope} (X-Skill-Pack or ?pack=) than this request's; ${listing.restart}.`,
  );
}

/**
 * Where the page after a cursor's boundary starts, in items sorted as their list sorts them: the index of
 * the first item that `atOrBefore` (the item against the boundary the cursor names) calls false. Cursors
 * name the last item of a page, a boundary that items added or removed elsewhere never move.
 */
export function firstAfter<Item>(items: readonly Item[], atOrBefore: (item: Item) => boolean): number {
  return firstPast(items, (item) => !atOrBefore(item));
}

/** The protocol error for a cursor that names no page of its listing (an earlier version's cursors too). */
export function invalidCursor(listing: Listing): ProtocolError {
  return refusal(`Invalid cursor: not one this server gave for ${listing.list}; ${listing.restart}.`);
}

/** The lists that give everything in one page, and so no cursor. */
export type OnePageList = "tools/list" | "resources/templates/list";

/**
 * The protocol error for any cursor sent to a one-page list: it gives none, so none is valid. MCP has an
 * invalid cursor answered -32602, as the paged lists answer one; these ignored it, and a client that
 * sent one of another list was answered as if it paged on.
 */
export function onePageCursor(list: OnePageList): ProtocolError {
  return refusal(
    `Invalid cursor: ${list} gives everything in one page and no cursor, so no cursor is valid; call ${list} without one.`,
  );
}

function refusal(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}
