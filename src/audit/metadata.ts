import { closingLineIndex, nameRuleViolation } from "../catalog/index.js";
import { codePoint, describeCharacter, visible } from "../shared/index.js";
import { JOINING_WORD, joinsEmoji, selectsGlyph, typesetMark, withoutFlagTags } from "./characters.js";
import { claimOfEveryTask } from "./routing.js";
import { type Finding, finding } from "./rules.js";
import { codePointBefore } from "./text.js";

/** Characters a name or description has no use for: controls, format characters and default ignorables. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
/** Marks that set the direction of neutral characters in right-to-left text, without reordering runs. */
const DIRECTION_MARKS = new Set([0x200e, 0x200f, 0x061c]);
const JOINERS = new Set([0x200b, 0x200c, 0x200d]);
/**
 * A word, soft hyphens included: a hyphenation point is not an invisible-character finding in a
 * description, so it must not cut `pay{U+00AD}{U+0440}{U+0430}{U+00AD}l` into words of one script each.
 */
const WORD = /[\p{L}\p{M}\p{N}\u00AD]+/gu;
/** The scripts whose letters pass for one another (Latin a, Cyrillic а, Greek α). */
const CONFUSABLE_SCRIPTS = [
  ["Latin", /\p{Script=Latin}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
] as const;
/** Greek mu is the micro sign of `10μs` more often than a disguise. */
const MICRO = new Set(["μ", "µ"]);
/**
 * Greek letters a Latin word may hold without being disguised: they look like no Latin letter, so they
 * cannot pass for one, and science writes them so (`ΔG`, `λx`, `πr²`). The Greek letters that do pass
 * for Latin ones (`ο`, `ρ`, `α`, `ν`, `γ` for y, `ω` for w, `σ`, `Α`, `Β`…) still count, and these count
 * in a word with Cyrillic letters, where most pass for Cyrillic ones (`Γ` for `Г`, `Φ` for `Ф`).
 */
const UNLIKE_LATIN_GREEK = new Set([..."ΓΔΘΛΞΠΣΦΨΩδζθλξπφψ"]);
const CYRILLIC = /\p{Script=Cyrillic}/u;

interface SkillMetadata {
  readonly name: string;
  readonly description: string;
}

/**
 * Findings of a skill's `name` and `description` as the catalog parsed them, which is what list_skills
 * shows a model: YAML escapes (`"\u200B"`, `"\U000E0041"`) put characters there that the file's bytes
 * do not show. `path` is the SKILL.md the findings name; `document`, its text, places them on the line
 * of their key (line 1 without it).
 *
 * A description is prose, as a file's text is: a soft hyphen alone between two letters is a hyphenation
 * point of a long word (German text copied from a web page), medium as in a file. A name is an
 * identifier that never breaks across lines: any soft hyphen in it only makes it look like another
 * skill's name (`p{U+00AD}df` shows as `pdf`), so it stays high.
 */
export function auditSkillMetadata(path: string, skill: SkillMetadata, document?: string): Finding[] {
  const findings: Finding[] = [];
  for (const key of ["name", "description"] as const) {
    const value = skill[key];
    const line = document === undefined ? 1 : keyLine(document, key);
    const { unseen, typeset } = unseenCharacters(value, key === "description");
    if (unseen.length > 0) {
      const names = [...new Set(unseen)].slice(0, 6).map(describeCharacter).join(", ");
      findings.push(
        finding(
          path,
          line,
          "metadata-invisible-character",
          `${key} holds ${countOf(unseen.length)}: ${names}`,
        ),
      );
    }
    const hyphens = typeset.get("soft-hyphen") ?? 0;
    if (hyphens > 0) {
      const count = hyphens === 1 ? "a soft hyphen" : `${hyphens} soft hyphens`;
      findings.push(finding(path, line, "soft-hyphen", `${key} holds ${count} between letters (U+00AD)`));
    }
    const breaks = typeset.get("ligature-break") ?? 0;
    if (breaks > 0) {
      const count = breaks === 1 ? "a zero-width non-joiner" : `${breaks} zero-width non-joiners`;
      const detail = `${key} holds ${count} keeping Latin letters from a ligature (U+200C)`;
      findings.push(finding(path, line, "ligature-break", detail));
    }
    const mixed = mixedScriptWords(value);
    for (const word of mixed) {
      findings.push(finding(path, line, "metadata-mixed-script", `${key}: the word ${word}`));
    }
    const reads = key === "name" && mixed.length === 0 ? latinReading(value) : undefined;
    if (reads !== undefined) {
      const detail = `name "${escapedWord(value)}" reads as "${reads}": each of its letters passes for a Latin one`;
      findings.push(finding(path, line, "metadata-look-alike-name", detail));
    }
  }
  const claim = claimOfEveryTask(skill.description);
  if (claim !== undefined) {
    const line = document === undefined ? 1 : keyLine(document, "description");
    findings.push(
      finding(path, line, "metadata-claims-every-task", `description claims every task: "${visible(claim)}"`),
    );
  }
  return findings;
}

/**
 * The finding of a pack's or group's folder name, `name`, written in letters that pass for Latin ones
 * (`d{U+043E}cs`, a Cyrillic `о`, reads as `docs`), at `where` (`<pack>` or `<pack>/<group>`), line 0:
 * `pack/name` and the scope selectors name a skill by them, so `d{U+043E}cs/pdf` passes for `docs/pdf`
 * as a look-alike skill name passes for another. A folder name may mix scripts (no rule reads it for
 * words), and a pack or group is found in any letter case, so the name is read in lowercase, and every
 * letter outside ASCII counts, Latin ones beside it or not.
 */
export function auditFolderName(where: string, kind: "pack" | "group", name: string): Finding[] {
  const reads = latinReading(name.toLowerCase());
  if (reads === undefined) return [];
  const detail = `${kind} name "${escapedWord(name)}" reads as "${reads}": its letters outside ASCII pass for Latin ones`;
  return [finding(where, 0, "metadata-look-alike-name", detail)];
}

function countOf(count: number): string {
  return count === 1 ? "an invisible character" : `${count} invisible characters`;
}

/**
 * The invisible characters of `text` that are not part of how its script or its emoji are written, and,
 * in `prose`, how many of each kind typesetting puts inside words (see {@link typesetMark}), counted
 * apart, not among them.
 */
function unseenCharacters(
  written: string,
  prose: boolean,
): { unseen: number[]; typeset: Map<"soft-hyphen" | "ligature-break", number> } {
  const found: number[] = [];
  const typeset = new Map<"soft-hyphen" | "ligature-break", number>();
  const text = withoutFlagTags(written);
  const rtl = RTL_LETTER.test(text);
  for (const match of text.matchAll(UNSEEN)) {
    const value = match[0].codePointAt(0) ?? 0;
    const before = codePointBefore(text, match.index);
    const after = text.codePointAt(match.index + match[0].length);
    const side = (code: number | undefined) => (code === undefined ? "" : String.fromCodePoint(code));
    if (DIRECTION_MARKS.has(value) && rtl) continue;
    if (JOINERS.has(value) && [before, after].some((code) => JOINING_WORD.test(side(code)))) continue;
    // The emoji rules of file text, so that a description passes where the same text in a file does.
    if (value === 0x200d && joinsEmoji(text, match.index, after)) continue;
    if (selectsGlyph(text, match.index)) continue;
    const mark = prose ? typesetMark(before, value, after) : undefined;
    if (mark === undefined) found.push(value);
    else typeset.set(mark, (typeset.get(mark) ?? 0) + 1);
  }
  return { unseen: found, typeset };
}

/**
 * Letters of Cyrillic, Greek and Armenian, and Latin ones of other shapes, that pass for a lowercase
 * ASCII one, as Unicode's confusables map them. A name written in them alone mixes no script, yet reads as another skill's name (`ԁосх`, all
 * Cyrillic, as `docx`): Russian or Greek words in a name are rare, as the naming rule takes a-z only.
 */
const LATIN_LOOK_ALIKES: ReadonlyMap<string, string> = new Map(
  [
    // Cyrillic
    "\u0430a \u044Cb \u0441c \u0501d \u0435e \u04BBh \u0456i \u0458j \u04CFl \u043Eo \u0440p \u051Bq",
    "\u0455s \u0443y \u0445x \u051Dw \u0475v \u0433r \u043Fn",
    // Greek
    "\u03BFo \u03C1p \u03B1a \u03BDv \u03C5u \u03B9i \u03BAk \u03B3y \u03F3j \u03F2c",
    // Armenian
    "\u0585o \u057Du \u0570h \u0578n \u0581g \u0566q",
    // Latin letters of other shapes: alpha, script g, dotless i and j, small capitals
    "\u0251a \u0261g \u0131i \u0237j \u1D04c \u1D0Fo \u1D20v \u1D21w \u1D22z \uA731s",
  ]
    .flatMap((group) => group.split(" "))
    .map((pair) => [pair.slice(0, 1), pair.slice(1)] as const),
);

/**
 * The Latin name a `name` of look-alike letters reads as (`docx` for `ԁосх`), when it holds at least one
 * and, each read as the Latin letter it passes for, follows the naming rule.
 */
function latinReading(name: string): string | undefined {
  if (/^\p{ASCII}*$/u.test(name)) return undefined;
  // NFKC first: fullwidth (`ｄ`) and mathematical (`𝐝`) letters are compatibility forms of ASCII ones.
  const reading = [...name.normalize("NFKC")]
    .map((letter) => LATIN_LOOK_ALIKES.get(letter) ?? letter)
    .join("");
  return nameRuleViolation(reading) === undefined ? reading : undefined;
}

/** `word` with each character outside ASCII written `{U+0430}`. */
function escapedWord(word: string): string {
  return [...word]
    .map((letter) => (letter.charCodeAt(0) < 0x80 ? letter : `{${codePoint(letter.codePointAt(0) ?? 0)}}`))
    .join("");
}

/** Words whose letters come from more than one of Latin, Greek and Cyrillic, shown with the odd ones escaped. */
function mixedScriptWords(text: string): string[] {
  const words: string[] = [];
  for (const [word] of text.matchAll(WORD)) {
    const cyrillic = CYRILLIC.test(word);
    const letters = [...word].filter(
      (letter) => !MICRO.has(letter) && (cyrillic || !UNLIKE_LATIN_GREEK.has(letter)),
    );
    const scripts = CONFUSABLE_SCRIPTS.filter(([, pattern]) =>
      letters.some((letter) => pattern.test(letter)),
    );
    if (scripts.length < 2) continue;
    const names = scripts.map(([name]) => name).join(" and ");
    words.push(`"${escapedWord(word)}" mixes ${names} letters`);
  }
  return words;
}

/** The line of `key:` in the frontmatter of `document`, or 1 when it cannot be told. */
function keyLine(document: string, key: string): number {
  const lines = document.split("\n", 200);
  const end = closingLineIndex(lines);
  const pattern = new RegExp(`^["']?${key}["']?\\s*:`);
  const index = lines.findIndex((line, at) => at > 0 && (end < 0 || at < end) && pattern.test(line));
  return index < 0 ? 1 : index + 1;
}
