/**
 * Requests as people mistype them, for measuring how search copes: one word of each request gets one
 * typing mistake. Most misspellings are a single insertion, deletion, substitution or transposition of
 * letters (Damerau, 1964); a wrong letter is a neighbour of the right one on a QWERTY keyboard, and the
 * first letter is rarely wrong. The word and the mistake are drawn from a generator seeded by the
 * request's id, so every run mistypes the same way.
 */

const ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];

/** The keys around each letter's on a QWERTY keyboard (rows taken as aligned: near enough). */
const NEIGHBOURS: ReadonlyMap<string, string> = new Map(
  ROWS.flatMap((row, r) =>
    [...row].map((letter, column): [string, string] => {
      const near = [r - 1, r, r + 1].flatMap((nearRow) =>
        [column - 1, column, column + 1].map((c) => ROWS[nearRow]?.[c] ?? ""),
      );
      return [letter, near.filter((other) => other !== "" && other !== letter).join("")];
    }),
  ),
);

/** Only words this long are mistyped: a short word with a mistake is often another word. */
const SHORTEST_MISTYPED = 5;

export type Mistake = "insertion" | "deletion" | "substitution" | "transposition";
const MISTAKES: readonly Mistake[] = ["insertion", "deletion", "substitution", "transposition"];

export interface Mistyped {
  readonly text: string;
  /** The word mistyped and how it reads now; undefined when no word is long enough. */
  readonly word?: { readonly from: string; readonly to: string; readonly mistake: Mistake };
}

/** `text` with one mistake in one of its words of at least five lowercase letters, chosen by `seed`. */
export function withTypo(text: string, seed: string): Mistyped {
  const random = generator(seed);
  const words = [...text.matchAll(/\b[a-z]+\b/g)].filter((match) => match[0].length >= SHORTEST_MISTYPED);
  const chosen = words[Math.floor(random() * words.length)];
  if (chosen === undefined) return { text };
  const from = chosen[0];
  const mistake = MISTAKES[Math.floor(random() * MISTAKES.length)] ?? "substitution";
  const to = mistype(from, mistake, random);
  const at = chosen.index;
  return { text: text.slice(0, at) + to + text.slice(at + from.length), word: { from, to, mistake } };
}

/** `word` with `mistake` made after its first letter. */
function mistype(word: string, mistake: Mistake, random: () => number): string {
  // A position from 1 on: the first letter stays.
  const at = 1 + Math.floor(random() * (word.length - 1));
  const letter = word[at] ?? "";
  const near = NEIGHBOURS.get(letter) ?? "e";
  const neighbour = near[Math.floor(random() * near.length)] ?? "e";
  switch (mistake) {
    case "insertion":
      return word.slice(0, at) + neighbour + word.slice(at);
    case "deletion":
      return word.slice(0, at) + word.slice(at + 1);
    case "substitution":
      return word.slice(0, at) + neighbour + word.slice(at + 1);
    case "transposition": {
      // Two different neighbouring letters swap; in a run of one letter, the mistake is a deletion.
      const swap = at < word.length - 1 ? at : at - 1;
      const [a, b] = [word[swap] ?? "", word[swap + 1] ?? ""];
      if (a === b) return word.slice(0, at) + word.slice(at + 1);
      return word.slice(0, swap) + b + a + word.slice(swap + 2);
    }
  }
}

/** A small deterministic generator (mulberry32) seeded by a string's FNV-1a hash. */
function generator(seed: string): () => number {
  let state = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) state = Math.imul(state ^ seed.charCodeAt(i), 0x01000193);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
