/** Clients cut tool descriptions near 2 KB: each up-front text stays under this many bytes. */
export const MAX_PREVIEW_BYTES = 2048;

/** The bytes left for the lines after `head` and its newline. */
export function roomAfter(head: string): number {
  return MAX_PREVIEW_BYTES - 1 - bytes(head) - 1;
}

/** `lines` as one text, under the cap whatever the lines hold. */
export function within(lines: readonly string[]): string {
  return cut(lines.join("\n"), MAX_PREVIEW_BYTES - 1);
}

/** `text` within `room` bytes, cut after a whole word with an ellipsis; read once, however long. */
export function cut(text: string, room: number): string {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= room) return text;
  const kept = encoded.subarray(0, Math.max(0, Math.floor(room) - 3)).toString("utf8");
  const end = kept.lastIndexOf(" ");
  return end <= 0 ? "" : `${kept.slice(0, end).replace(/[,;:]$/, "")}…`;
}

export function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
