import { stem } from "../src/search/index.js";
import type { Mistyped } from "./typos.js";

/** The words an answer of `list_skills` says it read as others: its first line, `Read "a" as "b", …`. */
export function readingsOf(answer: string): [from: string, to: string][] {
  const [first = ""] = answer.split("\n", 1);
  if (!first.startsWith("Read ")) return [];
  return [...first.matchAll(/"([^"]+)" as "([^"]+)"/g)].map((match): [string, string] => [
    match[1] ?? "",
    match[2] ?? "",
  ]);
}

/** What became of the mistyped words of a run, and of the other words read in those requests. */
interface ReadingTally {
  /** Read as a word with the stem of the word meant (`neighbours` read as neighbour counts). */
  meant: number;
  another: number;
  unread: number;
  /** Words read that were not the mistyped one: right words taken for mistakes. */
  others: number;
}

export function emptyTally(): ReadingTally {
  return { meant: 0, another: 0, unread: 0, others: 0 };
}

/** Adds one answer to `tally`: `word` is the request's mistake, if it has one. */
export function tallyReadings(tally: ReadingTally, word: Mistyped["word"], answer: string): void {
  const readings = readingsOf(answer);
  const ofMistake = readings.find(([from]) => from === word?.to);
  tally.others += readings.length - (ofMistake ? 1 : 0);
  if (word === undefined) return;
  if (ofMistake === undefined) tally.unread++;
  else if (stem(ofMistake[1]) === stem(word.from.toLowerCase())) tally.meant++;
  else tally.another++;
}
