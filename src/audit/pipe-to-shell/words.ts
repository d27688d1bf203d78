/** Words read one at a time, and the lists of words the rule's tables are written as. */
import type { ShellWord } from "../shell-words.js";

/** Words read one at a time, with a word read too far given back. */
export interface WordReader {
  next(): ShellWord | undefined;
  unread(word: ShellWord): void;
}

export function wordReader(words: Iterator<ShellWord>): WordReader {
  const back: ShellWord[] = [];
  return {
    next() {
      const word = back.pop();
      if (word !== undefined) return word;
      const read = words.next();
      return read.done ? undefined : read.value;
    },
    unread(word) {
      back.push(word);
    },
  };
}

/** The words of a list written with spaces between them. */
export function wordSet(list: string): ReadonlySet<string> {
  return new Set(list.split(" ").filter((word) => word !== ""));
}
