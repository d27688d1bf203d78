import type { Skill } from "../catalog/index.js";
import { firstPast } from "../shared/index.js";

/** Name words as {@link NameWords} reads them: runs of letters a to z of a lowercased name. */
const LETTER_RUNS = /[a-z]+/g;

const NONE: readonly string[] = [];

/** A request word no skill holds, read as the beginning of name words. */
export interface NameReading {
  readonly word: string;
  /** What it weighs in the floor: the weight of the most held name word it begins. */
  readonly weight: number;
}

/**
 * The words of skills' names longer than a few letters, sorted, each with the skills whose names hold it:
 * what a request word that begins one of them also finds (`postgres` of postgresql-table-design). Built
 * with the index, not saved. The skills let a scoped search look at the names in its scope only: a word
 * begun by names out of scope neither finds them nor counts against the few a short form may begin.
 */
export class NameWords {
  private readonly words: readonly string[];
  /** The skills of the word at i are `holders` from `starts[i]` to `starts[i + 1]`. */
  private readonly starts: Int32Array;
  private readonly holders: Int32Array;

  constructor(skills: readonly Skill[], longerThan: number) {
    const holding = new Map<string, number[]>();
    skills.forEach(({ name }, document) => {
      for (const [word] of name.toLowerCase().matchAll(LETTER_RUNS)) {
        if (word.length <= longerThan) continue;
        const documents = holding.get(word);
        if (documents === undefined) holding.set(word, [document]);
        else if (documents.at(-1) !== document) documents.push(document);
      }
    });
    this.words = [...holding.keys()].sort();
    this.starts = new Int32Array(this.words.length + 1);
    const holders: number[] = [];
    this.words.forEach((word, i) => {
      holders.push(...(holding.get(word) ?? []));
      this.starts[i + 1] = holders.length;
    });
    this.holders = Int32Array.from(holders);
  }

  /**
   * The name words of skills `allowed` lets through (all when undefined) that begin with `word` and are
   * longer, at most `most` + 1 of them: a caller that gets more than `most` knows `word` begins too many.
   * A binary search, then a look at the words it begins: most request words begin none.
   */
  begunBy(word: string, allowed: Uint8Array | undefined, most: number): readonly string[] {
    const { words } = this;
    const first = firstPast(words, (nameWord) => nameWord > word);
    if (!(words[first] ?? "").startsWith(word)) return NONE;
    const begun: string[] = [];
    for (let at = first; at < words.length; at++) {
      const nameWord = words[at] as string;
      if (!nameWord.startsWith(word)) break;
      if (allowed !== undefined && !this.heldWithin(at, allowed)) continue;
      begun.push(nameWord);
      if (begun.length > most) break;
    }
    return begun;
  }

  /** Whether the name of some skill `allowed` lets through holds the word at `at`. */
  private heldWithin(at: number, allowed: Uint8Array): boolean {
    for (let i = this.starts[at] as number; i < (this.starts[at + 1] as number); i++) {
      if (allowed[this.holders[i] as number] === 1) return true;
    }
    return false;
  }
}
