/** Lines added and removed between two texts, as a diff counts them. */
export interface LineChanges {
  readonly added: number;
  readonly removed: number;
  /** Lines both texts have, in the same order. */
  readonly unchanged: number;
}

/** Past this many edits, counting by content (moved lines count as unchanged) is close enough and cheap. */
const MAX_EDITS = 2000;

/**
 * How many lines `after` adds to `before` and removes from it, by the shortest edit script (Myers):
 * what `git diff --numstat` would say, up to ties.
 */
export function countLineChanges(before: string, after: string): LineChanges {
  const ids = new Map<string, number>();
  const idsOf = (text: string) =>
    splitLines(text).map((line) => {
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      return id;
    });
  const a = idsOf(before);
  const b = idsOf(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  const edits = editCount(x, y, MAX_EDITS);
  const { added, removed } =
    edits === undefined ? countByContent(x, y) : fromEdits(x.length, y.length, edits);
  return { added, removed, unchanged: b.length - added };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The length of the shortest edit script from `a` to `b`, or undefined past `max`. */
function editCount(a: readonly number[], b: readonly number[], max: number): number | undefined {
  const offset = max + 1;
  const furthest = new Int32Array(2 * max + 3);
  for (let edits = 0; edits <= max; edits++) {
    for (let diagonal = -edits; diagonal <= edits; diagonal += 2) {
      const down = furthest[offset + diagonal + 1] ?? 0;
      const right = (furthest[offset + diagonal - 1] ?? 0) + 1;
      let x = diagonal === -edits || (diagonal !== edits && right - 1 < down) ? down : right;
      let y = x - diagonal;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      furthest[offset + diagonal] = x;
      if (x >= a.length && y >= b.length) return edits;
    }
  }
  return undefined;
}

function fromEdits(before: number, after: number, edits: number): { added: number; removed: number } {
  const common = (before + after - edits) / 2;
  return { added: after - common, removed: before - common };
}

function countByContent(a: readonly number[], b: readonly number[]): { added: number; removed: number } {
  const counts = new Map<number, number>();
  for (const id of a) counts.set(id, (counts.get(id) ?? 0) + 1);
  let added = 0;
  for (const id of b) {
    const left = counts.get(id) ?? 0;
    if (left > 0) counts.set(id, left - 1);
    else added++;
  }
  return { added, removed: a.length - (b.length - added) };
}
