import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";

/** Entries per page of every list this server pages: skills/list, prompts/list and folder reads. */
export const PAGE_SIZE = 100;

const CURSOR_PREFIX = "page:";

/** An opaque cursor holding where the next page starts, in the terms of the list that gave it. */
export function encodeCursor(position: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${position}`).toString("base64url");
}

/** Where the page of `cursor` starts; a cursor this server did not give is refused. */
export function decodeCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  if (!decoded.startsWith(CURSOR_PREFIX)) throw invalidCursor();
  return decoded.slice(CURSOR_PREFIX.length);
}

/**
 * Where the page after a cursor's boundary starts, in items sorted as their list sorts them: the index of
 * the first item that `atOrBefore` (the item against the boundary the cursor names) calls false. Cursors
 * name the last item of a page, a boundary that items added or removed elsewhere never move.
 */
export function firstAfter<Item>(items: readonly Item[], atOrBefore: (item: Item) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const item = items[middle];
    if (item !== undefined && atOrBefore(item)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The protocol error for a cursor that names no page of its list. */
export function invalidCursor(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Invalid cursor: pass the nextCursor of the page before",
  );
}
