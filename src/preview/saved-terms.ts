import type { Skill } from "../catalog/index.js";
import { MalformedPart, PartReader, PartWriter, type Unfit } from "../saved/index.js";
import { stemNumbering, TermFrequencies } from "./summary.js";
import { NO_TERM, type Tally, type TermId, type UnitCells, unitKeysOf } from "./tally.js";

/**
 * The version of the previews' part of the saved index and of everything that decides what a tally holds:
 * how words are read, counted and stemmed (words.ts, and the search's stem that it uses), what of a skill
 * is read and how a name weighs (tally.ts).
 * Bump it with any change to them, so that tallies saved before are made anew instead of trusted;
 * test/preview/saved-terms.test.ts holds the digest of a saved fixture and fails when the bytes change
 * while the version does not.
 */
export const TERMS_FORMAT_VERSION = 9;

/** A saved tally found, or why it cannot be used. */
export type LoadedTerms =
  | { readonly ok: true; readonly terms: TermFrequencies }
  | ({ readonly ok: false } & Unfit);

/**
 * The previews' part of the saved index: its format version, then the whole tally of the listed skills,
 * so that a server started on it has nothing to tally before its first preview. Its numbers are arrays;
 * its strings are one text, apart at NULs, which no term or folder name holds: the terms' keys, the
 * units' keys, the spellings of the terms the catalog first wrote otherwise than their keys (a plural,
 * an apostrophe: few, so that a start splits fewer strings), then the units' own spellings. The words'
 * stems are saved numbered (see StemNumbering): the first preview need not stem every word.
 */
export function termsToPart(terms: TermFrequencies): Uint8Array[] {
  const tally = terms.whole();
  const units = [...tally.units];
  const spellings = units.flatMap(([, unit]) => [...unit.spellings]);
  const respelled = tally.keys.flatMap((key, term) => (tally.spelled[term] === key ? [] : [term]));
  const numbering = tally.stemNumbering ?? stemNumbering(tally);
  const part = new PartWriter();
  part.number(TERMS_FORMAT_VERSION, tally.skills, tally.keys.length, units.length, numbering.stems);
  const strings = [
    ...tally.keys,
    ...units.map(([key]) => key),
    ...respelled.map((term) => tally.spelled[term] ?? ""),
    ...spellings.map(([, spelled]) => spelled),
  ];
  part.array(new TextEncoder().encode(strings.join("\0")));
  for (const byTerm of [tally.firstWords, tally.secondWords, tally.spread])
    part.array(Int32Array.from(byTerm));
  part.array(Int32Array.from(respelled));
  part.array(Int32Array.from(units, ([, unit]) => unit.terms.length));
  for (const byCell of ["terms", "weights", "skills", "described"] as const) {
    part.array(Int32Array.from(units.flatMap(([, unit]) => Array.from(unit[byCell]))));
  }
  part.array(Int32Array.from(units, ([, unit]) => unit.spellings.size));
  part.array(Int32Array.from(spellings, ([term]) => term));
  part.array(numbering.numbers);
  part.array(numbering.joinedNumbers);
  return part.pieces();
}

/**
 * The tally of `skills` (the listed skills of the catalog the container's fingerprint says it was saved
 * from) that a part saved by {@link termsToPart} holds, if this format version wrote it; otherwise why not.
 * The rest of the part is read after listening (see TermFrequencies.fromSaved): if it does not hold
 * together then, `onUnfit` is told why and the skills are tallied. Never throws on bad bytes.
 */
export function termsFromPart(
  pieces: readonly Uint8Array[],
  skills: readonly Skill[],
  onUnfit: (problem: string) => void,
): LoadedTerms {
  try {
    const part = new PartReader(pieces);
    const version = part.number();
    if (version !== TERMS_FORMAT_VERSION) {
      return {
        ok: false,
        problem: `format version ${version}; this server reads version ${TERMS_FORMAT_VERSION}`,
        outdated: true,
      };
    }
    return { ok: true, terms: TermFrequencies.fromSaved(skills, () => readTally(part, skills), onUnfit) };
  } catch (error) {
    if (!(error instanceof MalformedPart)) throw error;
    return { ok: false, problem: `malformed: ${error.message}`, outdated: false };
  }
}

/**
 * The tally that the rest of `part` holds, its units' cells views of the part. Throws MalformedPart when
 * it does not hold together or is not of `skills`' units.
 */
function readTally(part: PartReader, skills: readonly Skill[]): Tally {
  const tallied = part.count();
  const terms = part.count();
  const units = part.count();
  const stems = part.count();
  if (tallied !== skills.length)
    throw new MalformedPart(`it tallies ${tallied} skills, not ${skills.length}`);
  const strings = utf8Text(part.array(Uint8Array)).split("\0");
  const firstWords = termArray(part, terms);
  const secondWords = termArray(part, terms);
  const spread = termArray(part, terms);
  const respelled = part.array(Int32Array);
  const cellsByUnit = part.array(Int32Array);
  const cells = {
    terms: part.array(Int32Array),
    weights: part.array(Int32Array),
    skills: part.array(Int32Array),
    described: part.array(Int32Array),
  };
  const spellingsByUnit = part.array(Int32Array);
  const spelledTerms = part.array(Int32Array);
  const stemNumbers = termArray(part, terms);
  const joinedNumbers = termArray(part, terms);
  part.end();
  if (
    cellsByUnit.length !== units ||
    spellingsByUnit.length !== units ||
    cells.weights.length !== cells.terms.length ||
    cells.skills.length !== cells.terms.length ||
    cells.described.length !== cells.terms.length ||
    strings.length !== terms + units + respelled.length + spelledTerms.length
  ) {
    throw new MalformedPart("its lengths disagree");
  }
  if (sum(cellsByUnit) !== cells.terms.length || sum(spellingsByUnit) !== spelledTerms.length) {
    throw new MalformedPart("its units' cells disagree");
  }
  if (!allTerms(firstWords, terms, NO_TERM) || !allTerms(secondWords, terms, NO_TERM)) {
    throw new MalformedPart("a pair's word is no term");
  }
  if (
    !allTerms(cells.terms, terms, 0) ||
    !allTerms(spelledTerms, terms, 0) ||
    !allTerms(respelled, terms, 0)
  ) {
    throw new MalformedPart("a cell's term is no term");
  }
  if (!allTerms(stemNumbers, stems, 0) || !allTerms(joinedNumbers, stems, -1)) {
    throw new MalformedPart("a word's stem is not numbered");
  }
  const unitKeys = strings.slice(terms, terms + units);
  if (unitKeys.join("\0") !== unitKeysOf(skills).join("\0")) {
    throw new MalformedPart("its units are not those of the skills listed");
  }
  const keys = strings.slice(0, terms);
  const spelled = keys.slice();
  respelled.forEach((term, index) => {
    spelled[term] = strings[terms + units + index] ?? "";
  });
  const unitSpellings = terms + units + respelled.length;
  const byUnit = new Map<string, UnitCells>();
  let cell = 0;
  let spelling = 0;
  unitKeys.forEach((key, number) => {
    const end = cell + (cellsByUnit[number] ?? 0);
    const spellings = new Map<TermId, string>();
    for (const last = spelling + (spellingsByUnit[number] ?? 0); spelling < last; spelling += 1) {
      spellings.set(spelledTerms[spelling] ?? NO_TERM, strings[unitSpellings + spelling] ?? "");
    }
    byUnit.set(key, {
      terms: cells.terms.subarray(cell, end),
      weights: cells.weights.subarray(cell, end),
      skills: cells.skills.subarray(cell, end),
      described: cells.described.subarray(cell, end),
      spellings,
    });
    cell = end;
  });
  return {
    skills: tallied,
    keys,
    spelled,
    firstWords,
    secondWords,
    spread,
    units: byUnit,
    stemNumbering: { numbers: stemNumbers, joinedNumbers, stems },
  };
}

function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new MalformedPart("its texts are not UTF-8");
  }
}

/** An array of `terms` numbers, one for each term. */
function termArray(part: PartReader, terms: number): Int32Array {
  const array = part.array(Int32Array);
  if (array.length !== terms) throw new MalformedPart(`it holds ${array.length} numbers for ${terms} terms`);
  return array;
}

/** The counts summed, or -1 if one is below 0. */
function sum(counts: Int32Array): number {
  let total = 0;
  for (const count of counts) {
    if (count < 0) return -1;
    total += count;
  }
  return total;
}

/**
 * Whether every number of `array` is a term of `terms`, or `least` (NO_TERM where there may be none); or,
 * likewise, a stem of `terms` numbered.
 */
function allTerms(array: Int32Array, terms: number, least: number): boolean {
  for (const term of array) if (term < least || term >= terms) return false;
  return true;
}
