import { z } from "zod";
import type { Scope, Skill } from "../catalog/index.js";
import { MINIMAL_LIST_SKILLS } from "../preview/index.js";
import type { SearchIndex, SearchResult, Undecided, Vagueness } from "../search/index.js";
import { namedInProse, plural, quoted, quotedName } from "../shared/index.js";
import { findSkillAsWritten, narrowByPack } from "./references.js";
import { defineTool } from "./tool.js";

/** A listing longer than this would flood the model's context; it is cut with a hint to narrow. */
const LISTED_SKILLS = 200;
/** A search shows only its best matches: past these, a model does better refining than reading on. */
const LISTED_MATCHES = 10;
/**
 * Past the listed skills of a scope no selector can narrow, this many more are named, without
 * descriptions: some 3,000 tokens at most, less than the 200 lines before them.
 */
const LISTED_NAMES = 500;

export const listSkillsTool = defineTool({
  name: "list_skills",
  // Each scope's tools/list describes it with the scope's preview instead (see serverFactoryFor).
  description: MINIMAL_LIST_SKILLS,
  inputSchema: {
    pack: z.string().max(1000).optional().describe("Pack, group or pack/group from list_packs"),
    query: z
      .string()
      .max(1000)
      .optional()
      .describe(
        `Words describing the task; returns up to the ${LISTED_MATCHES} best-matching skills, best first`,
      ),
  },
  joins: { pack: ",", query: " " },
  // Most searches are asked once; a workflow that runs again asks its search word for word.
  keeping: ({ query }) => (typeof query === "string" && query.trim() !== "" ? "when-repeated" : "always"),
  run: ({ pack, query }, context) => {
    const scope = narrowByPack(context.listed, pack, query);
    if (query === undefined || query.trim() === "") return formatListing(scope, context.scope);
    const best = bestMatches(context.index, query, scope);
    if (best.shown.length === 0) {
      const { found } = best;
      if (found.vague === undefined) return noMatch(query, pack, found.undecided);
      if (found.vague === "no task" || found.vague === "no words")
        return tooVagueWords(query, pack, found.vague);
      return tooVague(query, pack, found.vague, strongSkills(context.index, query, scope, found).length);
    }
    return formatMatches(best, scope, context.scope);
  },
});

/** A skill as one line shows it: with its copies in other packs (see `Scope.copiesOf`). */
interface Listed {
  readonly skill: Skill;
  readonly copies: readonly Skill[];
}

/** The best matches, and the search that found them. */
interface Matches {
  readonly found: SearchResult;
  /** At most {@link LISTED_MATCHES}, best first, each skill once however many packs hold a copy. */
  readonly shown: readonly Listed[];
  /** The strong matches not shown, each skill counted once however many packs hold a copy. */
  readonly strongLeftOut: number;
}

/**
 * The best matches, less faint ones (see `SearchResult.fairMatches`), a copy of a skill already shown
 * left out: its line names the copy's pack instead. Copies rank side by side and would otherwise take two
 * of the few places; the search is asked again for more when they do.
 */
function bestMatches(index: SearchIndex, query: string, scope: Scope): Matches {
  const named = namedBy(query, scope);
  for (let limit = LISTED_MATCHES; ; limit *= 2) {
    const found = index.search(query, scope, limit);
    const fair = found.skills.slice(0, found.fairMatches);
    const ranked = [...named, ...fair.filter((skill) => !named.includes(skill))];
    const shown = withoutCopies(ranked, scope).slice(0, LISTED_MATCHES);
    if (shown.length === LISTED_MATCHES || fair.length < limit) {
      return { found, shown, strongLeftOut: strongLeftOut(index, query, scope, found, shown) };
    }
  }
}

/**
 * How many strong matches are left out. The search counts copies apart, so where the scope holds copies
 * the strong matches are counted again, each skill once, as the lines do.
 */
function strongLeftOut(
  index: SearchIndex,
  query: string,
  scope: Scope,
  found: SearchResult,
  shown: readonly Listed[],
): number {
  const leftOut = found.strongMatches - skillsNamed(shown);
  if (leftOut <= 0 || !scope.hasCopies()) return leftOut;
  const listed = new Set(shown.map(({ skill }) => skill));
  return strongSkills(index, query, scope, found).filter(({ skill }) => !listed.has(skill)).length;
}

/**
 * The strong matches (see `SearchResult.strongMatches`), each skill once with its copies in `scope`: from
 * the matches at hand when they hold them all (most requests have a few), else from a search for them all.
 */
function strongSkills(index: SearchIndex, query: string, scope: Scope, found: SearchResult): Listed[] {
  const strong =
    found.strongMatches <= found.skills.length
      ? found.skills.slice(0, found.strongMatches)
      : index.search(query, scope, found.strongMatches).skills;
  return withoutCopies(strong, scope);
}

/**
 * The skills a query names exactly, as `name` or `pack/name` in any case: an agent that knows a skill's
 * name wants that skill first, though a longer name holding the word may score higher.
 */
function namedBy(query: string, scope: Scope): readonly Skill[] {
  const lookup = findSkillAsWritten(scope, query);
  if (lookup.kind === "found") return [lookup.skill];
  if (lookup.kind === "missing") return [];
  return lookup.candidates.flatMap((id) => {
    const copy = scope.findSkill(id);
    return copy.kind === "found" ? [copy.skill] : [];
  });
}

/**
 * The matches, then what lies past them. A long request shares a word with nearly every skill, so the
 * count given is of strong matches (at least half the first one's score): many of them means the request
 * is ambiguous; none means the rest match less well, only in part when some lack a word of the request.
 */
function formatMatches({ found, shown, strongLeftOut }: Matches, scope: Scope, callerScope: Scope): string {
  const lines = shown.map((listed) => skillLine(listed, callerScope));
  if (found.corrections.length > 0) {
    // A word read otherwise is said first: the model may have meant it, and can ask again.
    lines.unshift(
      `Read ${found.corrections.map(({ from, to }) => `${quoted(from)} as ${quotedName(to)}`).join(", ")}.`,
    );
  }
  const named = skillsNamed(shown);
  const refine = canNarrow(scope) ? "add words to the query, or narrow with pack" : "add words to the query";
  if (strongLeftOut > 0) {
    lines.push(`… ${plural(strongLeftOut, "more skill")} matched nearly as well: ${refine}.`);
  } else if (found.matched > named) {
    // Unless some match lacks a word of the request, the others hold them all, only faintly (`webhooks`).
    const how = found.partialMatches ? "only in part" : "less well";
    lines.push(`… other skills matched ${how}: ${refine}.`);
  }
  lines.push('Next: read_skill(skill="<name>").');
  return lines.join("\n");
}

/**
 * Whether `pack` selectors can split `scope` so that every skill is in a narrower part: several packs, or
 * one whose skills all sit in groups, more than one of them.
 */
function canNarrow(scope: Scope): boolean {
  const [only, ...others] = scope.packs;
  if (only === undefined || others.length > 0) return others.length > 0;
  const allGrouped = only.skills.every((skill) => skill.group !== undefined);
  return allGrouped && only.groups.some((group) => group.skills.length < only.skills.length);
}

/**
 * The answer when no skill matches: with the words a mistyped word may stand for, when nothing in the
 * request told which (`contant`: content, constant or contact), so that the model can ask again.
 */
function noMatch(query: string, pack: string | undefined, undecided: readonly Undecided[]): string {
  const meant = undecided.map(
    ({ from, to }) => ` ${quoted(from)} may be ${orList(to.map((word) => `${quoted(word)}`))}.`,
  );
  if (pack === undefined) {
    return `No skill matches ${quoted(query)}.${meant.join("")} Describe the task in other words, or call list_packs to browse.`;
  }
  return (
    `No skill in ${quoted(pack)} matches ${quoted(query)}.${meant.join("")} Describe the task in other words, search every pack ` +
    `by leaving out pack, or browse with list_skills(pack=${quoted(pack)}).`
  );
}

/** `a`, `a or b`, `a, b or c`. */
function orList(words: readonly string[]): string {
  const last = words.at(-1) ?? "";
  return words.length < 2 ? last : `${words.slice(0, -1).join(", ")} or ${last}`;
}

/**
 * The answer to a request whose words say nothing of the task (`SearchResult.vague`): they only ask for
 * something to be done (`no task`), or are all too common for search to read (`no words`).
 */
function tooVagueWords(query: string, pack: string | undefined, why: "no task" | "no words"): string {
  const browse =
    pack === undefined ? "call list_packs to browse" : `browse with list_skills(pack=${quoted(pack)})`;
  // `???`, a NUL or a zero-width space were told their words were "all too common", words they lack.
  if (why === "no words" && !HAS_WORD.test(query)) {
    return `${quoted(query)} holds no word to search by, only punctuation, symbols or spaces. Describe the task in words, or ${browse}.`;
  }
  const reason =
    why === "no task"
      ? "its words ask for something to be done, not what"
      : 'its words are all too common to search by (as "how", "do" and "it" are)';
  return `${quoted(query)} is too vague to choose by: ${reason}. Describe the task in more words, or ${browse}.`;
}

/** A letter or a digit: what any word search reads holds one. */
const HAS_WORD = /[\p{L}\p{N}]/u;

/** The answer to a vague request (`SearchResult.vague`): many skills match it, none better than the rest. */
function tooVague(
  query: string,
  pack: string | undefined,
  why: Exclude<Vagueness, "no task" | "no words">,
  strongMatches: number,
): string {
  const where = pack === undefined ? "" : ` in ${quoted(pack)}`;
  const browse =
    pack === undefined ? "call list_packs to browse" : `browse with list_skills(pack=${quoted(pack)})`;
  const matching = `${plural(strongMatches, "skill")}${where} match it about as well`;
  const reason =
    why === "common words"
      ? `each of its words is in half the skills or more, and ${matching}`
      : `${matching}, more of them alike than can be shown`;
  return `${quoted(query)} is too vague to choose by: ${reason}. Describe the task in more words, or ${browse}.`;
}

function formatListing(scope: Scope, callerScope: Scope): string {
  const distinct = withoutCopies(scope.skills, scope);
  const shown = distinct.slice(0, LISTED_SKILLS);
  const lines = shown.map((listed) => skillLine(listed, callerScope));
  const rest = distinct.slice(shown.length);
  if (rest.length > 0 && canNarrow(scope)) {
    lines.push(`… ${plural(rest.length, "more skill")}: narrow with pack or query.`);
  } else if (rest.length > 0) {
    // Nothing narrower to select: the rest are named, so that every skill can be found by browsing.
    const names = rest.slice(0, LISTED_NAMES).map(({ skill }) => namedInProse(callerScope.refOf(skill)));
    const unnamed = rest.length - names.length;
    const tail = unnamed > 0 ? `, and ${unnamed} more: search them with query` : "";
    lines.push(`… ${plural(rest.length, "more skill")}, by name: ${names.join(", ")}${tail}.`);
  }
  lines.push('Next: read_skill(skill="<name>").');
  return lines.join("\n");
}

/** How many skills `lines` name, each copy in another pack counted. */
function skillsNamed(lines: readonly Listed[]): number {
  return lines.reduce((count, { copies }) => count + 1 + copies.length, 0);
}

/** `skills` in order, each with its copies in `scope`, less each copy of one before it. */
function withoutCopies(skills: readonly Skill[], scope: Scope): Listed[] {
  const named = new Set<Skill>();
  const listed: Listed[] = [];
  for (const skill of skills) {
    if (named.has(skill)) continue;
    const copies = scope.copiesOf(skill);
    for (const copy of copies) named.add(copy);
    listed.push({ skill, copies });
  }
  return listed;
}

/** `name: description`, and the other packs holding the same skill, if any. */
function skillLine({ skill, copies }: Listed, callerScope: Scope): string {
  const alsoIn =
    copies.length === 0 ? "" : ` (also in ${copies.map((copy) => namedInProse(copy.pack)).join(", ")})`;
  return `${namedInProse(callerScope.refOf(skill))}: ${skill.description}${alsoIn}`;
}
