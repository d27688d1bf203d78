import type { Pack, Scope, Skill } from "../catalog/index.js";
import { namedInProse, plural } from "../shared/index.js";
import { packLines } from "./pack-lines.js";
import { NOTHING_KNOWN, packSummaryOf, saidIn, summarizePack } from "./pack-summary.js";
import { bytes, cut, MAX_PREVIEW_BYTES, roomAfter, within } from "./room.js";
import { ALSO, skillsByName, spread } from "./skill-names.js";
import type { TermFrequencies } from "./summary.js";
import { namesOf, stemsOf } from "./words.js";

/** What list_packs says a pack is for, at most: one line among many, its groups listed below it. */
const PACK_SUMMARY_BYTES = 120;
/** Beside a list of every skill, the instructions give at most this much of an operator's pack description. */
const BRIEF_PACK_BYTES = 400;
/**
 * Beside a list of every skill: the skills by name, and terms the entries leave out, in this many, or up to
 * BRIEF_PACK_BYTES when that names every skill (see namedLine).
 */
const NAMED_PACK_BYTES = 300;
/** Of those, the terms the entries leave out: when cut, the pack's main terms but for its skills' names. */
const UNSAID_BYTES = 120;
/**
 * Where list_skills summarizes a pack, its line in the instructions opens with the pack's main terms when
 * it has this many times their room: the terms list_skills had no room for keep nine tenths of it.
 */
const MAIN_TERMS_TIMES = 10;
/** An entry shorter than this says too little of its skill; past it, packs are summarized instead. */
const MIN_ENTRY_BYTES = 60;

/** What a model sees of a scope before its first call. */
export interface Preview {
  /** Sent on initialize and server/discover. */
  readonly instructions: string;
  /** The description of list_skills in tools/list: all that tools-only clients show a model. */
  readonly listSkillsDescription: string;
  /** What list_packs says a pack is for. */
  describePack(pack: Pack): string;
}

export interface PreviewSettings {
  /** `CATALOG_PREVIEW=off`: the short, catalog-blind texts, for hosts that pay for every byte. */
  readonly enabled: boolean;
  /**
   * What an operator said a pack is for (skills.toml, PACK_DESCRIPTIONS), for a scope that holds all of
   * the pack: written for the whole pack, it may name groups and skills a narrower scope leaves out, whose
   * preview is made from its own skills.
   */
  readonly describedPack: (pack: Pack) => string | undefined;
}

export const MINIMAL_INSTRUCTIONS =
  "Skills are expert instructions for specific tasks. To use one: list_skills(query=<task>) or " +
  "list_packs then list_skills(pack); read_skill(skill) and follow it; read_skill(skill, file) for files " +
  "it cites, read_pack_file(pack, file) for shared pack paths it cites.";
export const MINIMAL_LIST_SKILLS =
  "List skills as `name: description` lines. Narrow with pack; search with query.";

const INSTRUCTIONS_HEAD =
  "This server holds the organization's own skills: reviewed, step-by-step instructions for how tasks are " +
  "done here. They are not your built-in skills. Before you start a task in one of the areas below, even " +
  'one you already know how to do, call list_skills(query="<the task in a few words>"), then ' +
  "read_skill(skill) and follow it: the organization's skill encodes its conventions.";
const INSTRUCTIONS_TAIL =
  "A skill's files: read_skill(skill, file); shared pack paths it cites: read_pack_file(pack, file).";

/** Skills tallied between two turns of the event loop while a preview is worked out ahead: some 10 ms. */
const TALLY_SLICE_SKILLS = 250;
/**
 * Works out ahead, a slice at a time with `between` awaited after each, what the first previews of
 * `scope` need: the tally of the catalog's terms, then the rankings that describing a pack asks of it
 * (its own, and each of its groups'). Left to the first `tools/list`, it held every request for seconds
 * at 50k skills; a preview asked before it ends works out what is left itself.
 */
export async function workOutAhead(
  scope: Scope,
  catalog: TermFrequencies,
  between: () => Promise<void>,
): Promise<void> {
  while (catalog.tallySome(TALLY_SLICE_SKILLS)) await between();
  for (const pack of scope.packs) {
    for (const group of [undefined, ...pack.groups]) catalog.tellingTerms(pack, group, NOTHING_KNOWN);
    await between();
  }
}

/**
 * The preview of `scope`: which packs it holds, what their skills are for, and when to look. Worked out
 * once per scope; nothing outside `scope` is named. `catalog` weighs how telling a term is.
 *
 * Hosts that show the instructions show the tools too, so where neither text can say everything the two
 * say different things: list_skills, which every client shows, gives the skills one by one when they fit
 * (`name: description`), else what each pack and group is for; the instructions then give skills by name
 * (all a host that shows only the instructions has) and, beside whole entries, the few terms they leave
 * out; beside entries cut to fit, the pack's main terms its skills' names lack, which the cuts leave out
 * most; or else an operator's description of the pack.
 */
export function previewOf(scope: Scope, catalog: TermFrequencies, settings: PreviewSettings): Preview {
  const described = settings.describedPack;
  const describePack = (pack: Pack) =>
    described(pack) ??
    cut(
      catalog
        .tellingTerms(pack, undefined, namesOf(pack, catalog.stems), { bytes: PACK_SUMMARY_BYTES })
        .join(", "),
      PACK_SUMMARY_BYTES,
    );
  if (!settings.enabled) {
    return { instructions: MINIMAL_INSTRUCTIONS, listSkillsDescription: MINIMAL_LIST_SKILLS, describePack };
  }
  const head = listSkillsHead(scope, "skills");
  const fitting = entriesFitting(scope, roomAfter(head));
  if (fitting !== undefined) {
    const listSkillsDescription = within([head, ...fitting.entries]);
    // Whole entries hold all but a few terms; cut ones leave out most of what a pack is for, so beside
    // them the pack's main terms are given again, but for those its skills' names already say.
    let said: ReadonlySet<string> | undefined;
    const known = (pack: Pack) => {
      if (fitting.cutPacks.has(pack.name))
        return new Set([
          ...saidIn(pack.skills.map((skill) => skill.name).join(" "), catalog.stems),
          ...namesOf(pack, catalog.stems),
        ]);
      said ??= saidIn(listSkillsDescription, catalog.stems);
      return new Set([...said, ...namesOf(pack, catalog.stems)]);
    };
    return {
      listSkillsDescription,
      instructions: instructionsWith(scope, (pack, room) => {
        const brief = Math.min(room, BRIEF_PACK_BYTES);
        const given = described(pack);
        if (given !== undefined) return cut(given, brief);
        // Every entry, at least its name, is in list_skills: here, for hosts that show only these
        // instructions, the skills by name, and the terms `known` leaves.
        const line = namedLine(pack, brief, catalog);
        const termsRoom = termsBesideNames(pack, line, catalog);
        const unsaid = cut(
          catalog.tellingTerms(pack, undefined, known(pack), { bytes: termsRoom }).join(", "),
          termsRoom,
        );
        const named = line - (unsaid === "" ? 0 : bytes(ALSO) + bytes(unsaid));
        const names = cut(skillsByName(pack, named, catalog), named);
        if (names === "" || unsaid === "") return cut(`${names}${unsaid}`, brief);
        return `${names}${ALSO}${unsaid}`;
      }),
      describePack,
    };
  }
  // A pack summarized by its groups gives their names, which read like skills' names: its line says
  // they are its groups, and the head, which said "not skills" for them, takes the bytes back.
  const byGroups = (pack: Pack) => pack.groups.length > 0 && described(pack) === undefined;
  const summaryHead = listSkillsHead(scope, scope.packs.some(byGroups) ? "groups" : "packs");
  const listSkillsDescription = within([
    summaryHead,
    ...packLines(scope.packs, roomAfter(summaryHead), (pack, room) => {
      if (byGroups(pack)) return groupsLine(pack, catalog, room);
      const name = `${namedInProse(pack.name)}: `;
      return `${name}${cut(described(pack) ?? summarizePack(pack, catalog, room, new Set()), room - bytes(name))}`;
    }),
  ]);
  const said = saidIn(listSkillsDescription, catalog.stems);
  return {
    listSkillsDescription,
    instructions: instructionsWith(scope, (pack, room) => {
      const given = described(pack);
      if (pack.groups.length === 0 && given === undefined) {
        // A host that shows only the instructions never reads list_skills's summary of the pack: a line
        // with room for it many times over opens with what list_packs says the pack is for.
        const main = room >= MAIN_TERMS_TIMES * PACK_SUMMARY_BYTES ? describePack(pack) : "";
        const rest = main === "" ? room : room - bytes(main) - bytes(ALSO);
        const unsaid = summarizePack(
          pack,
          catalog,
          rest,
          main === "" ? said : new Set([...said, ...stemsOf(main, catalog.stems)]),
        );
        const text = main === "" || unsaid === "" ? `${main}${unsaid}` : `${main}${ALSO}${unsaid}`;
        if (text !== "") return text;
      }
      // The groups, the operator's description or every telling term is in list_skills: here, skills by name.
      const opening = given === undefined ? "such as " : `${cut(given, room / 2)}; such as `;
      return cut(`${opening}${spread(pack.skills, room - bytes(opening), catalog).join(", ")}`, room);
    }),
    describePack,
  };
}

/**
 * What list_skills is for and how to call it, then what its lines below are: every skill, or each pack by
 * what its skills are for, which names few of them (and where `pack` lists the rest). It said "pack
 * narrows to a pack or group; neither lists all", which reads both as "no call lists every skill" and as
 * "a call with neither does", and never said whether the lines were every skill. The packs' head takes
 * the bytes the old one took: a longer one cut the summaries below it, and a request of the bench lost its
 * only word up front. Where a line gives a pack's groups (`listed` "groups"), it says they are, and the
 * head says only "Packs:".
 */
function listSkillsHead(scope: Scope, listed: "skills" | "packs" | "groups"): string {
  const packs = cut(scope.packs.map((pack) => namedInProse(pack.name)).join(", "), MAX_PREVIEW_BYTES / 4);
  const below =
    listed === "skills"
      ? `. Then read_skill. ${everySkill(scope.skills.length)}:`
      : `, pack a pack's or group's skills. Then read_skill. ${listed === "packs" ? "Packs, not skills:" : "Packs:"}`;
  return (
    `Find the organization's skill for a task (these are not your built-in skills). Call it before any ` +
    `task in ${packs}, even a familiar one, and follow the skill: query="<task>" gives the best matches${below}`
  );
}

/** What the entries below list_skills's head are: every skill, "All 1 skill" read as a slip for one. */
function everySkill(count: number): string {
  return count === 1 ? "The only skill" : `All ${plural(count, "skill")}`;
}

/**
 * list_skills's line for a pack summarized by its groups, within `room`: the terms most of its skills
 * hold, then its groups under a label that says they are (`agents: architecture, …, code… Its groups:
 * python-development (packages), …`), or only those (`agents, its groups: …`). After the groups, as
 * `…; architecture, …`, the terms read as more groups; before them, they take what the groups leave, in
 * the bytes and tokens the line took then.
 */
function groupsLine(pack: Pack, catalog: TermFrequencies, room: number): string {
  const label = `${namedInProse(pack.name)}, its groups: `;
  const { groups, terms } = packSummaryOf(pack, catalog).parts(room - bytes(label));
  const termsHead = `${namedInProse(pack.name)}: `;
  const left = room - bytes(termsHead) - bytes(groups);
  if (terms !== "" && bytes(terms) + bytes(". Its groups: ") <= left)
    return `${termsHead}${terms}. Its groups: ${groups}`;
  // Cut, the terms end in an ellipsis, which a period would follow.
  const said = cut(terms, Math.min(left - bytes(" Its groups: "), bytes(terms) - 1));
  return said === "" ? `${label}${groups}` : `${termsHead}${said} Its groups: ${groups}`;
}

/** The instructions, each pack in scope said by `say` within the room it is given. */
function instructionsWith(scope: Scope, say: (pack: Pack, room: number) => string): string {
  const room = roomAfter(INSTRUCTIONS_HEAD) - bytes(INSTRUCTIONS_TAIL) - 1;
  const lines = packLines(scope.packs, room, (pack, share) => {
    const head = `- ${namedInProse(pack.name)} (${plural(pack.skills.length, "skill")}): `;
    return `${head}${say(pack, share - bytes(head))}`;
  });
  return within([INSTRUCTIONS_HEAD, ...lines, INSTRUCTIONS_TAIL]);
}

/** list_skills's `name: description` lines, and the packs (by name) some of whose entries were cut to fit. */
interface EntriesFitting {
  readonly entries: string[];
  readonly cutPacks: ReadonlySet<string>;
}

/**
 * `name: description` lines for every skill of `scope`, each cut alike to fit `room`; none if too tight.
 */
function entriesFitting(scope: Scope, room: number): EntriesFitting | undefined {
  const { skills } = scope;
  // A name packs share is given as pack/name, as list_skills gives it: read_skill refuses it bare.
  const entryOf = (skill: Skill) => `${namedInProse(scope.refOf(skill))}: ${skill.description}`;
  const perEntry = Math.floor(room / skills.length) - 1;
  if (perEntry < MIN_ENTRY_BYTES) {
    // Too many to cut alike: only whole entries could fit, and the first that overflow the room tell
    // that they do not, rather than an entry made for each of tens of thousands of skills.
    const full: string[] = [];
    let used = -1;
    for (const skill of skills) {
      const entry = entryOf(skill);
      used += bytes(entry) + 1;
      if (used > room) return undefined;
      full.push(entry);
    }
    return { entries: full, cutPacks: NONE_CUT };
  }
  const full = skills.map(entryOf);
  if (bytes(full.join("\n")) <= room) return { entries: full, cutPacks: NONE_CUT };
  // Entries are cut alike, so a pack of short descriptions may keep them whole beside one whose are cut.
  const cutPacks = new Set<string>();
  skills.forEach((skill, index) => {
    if (bytes(full[index] ?? "") > perEntry) cutPacks.add(skill.pack);
  });
  return { entries: full.map((entry) => cut(entry, perEntry)), cutPacks };
}

const NONE_CUT: ReadonlySet<string> = new Set();

/**
 * The bytes of a pack's line of skills by name and terms within `brief`: {@link NAMED_PACK_BYTES}, or more,
 * up to `brief`, for a pack whose every skill can be named there beside half the terms' room. A skill left
 * unnamed is one a host that shows only the instructions may never think of (`superpowers` named 7 of its
 * 14, and `dispatching-parallel-agents`, the skill of a request for parallel agents, was not one of them).
 */
function namedLine(pack: Pack, brief: number, catalog: TermFrequencies): number {
  const whole = bytes(skillsByName(pack, Number.POSITIVE_INFINITY, catalog)) + bytes(ALSO) + UNSAID_BYTES / 2;
  return Math.min(brief, Math.max(NAMED_PACK_BYTES, whole <= brief ? whole : 0));
}

/**
 * The room the terms get beside a pack's skills by name in a line of `line` bytes. A name is its skill's
 * own words, and a skill left unnamed is one a host that shows only the instructions may never think of:
 * a pack whose every skill can be named beside half the terms' room is named whole, the terms getting
 * what is left; a larger one gets its terms' room and as many names as fit beside them.
 */
function termsBesideNames(pack: Pack, line: number, catalog: TermFrequencies): number {
  const left = line - bytes(skillsByName(pack, Number.POSITIVE_INFINITY, catalog)) - bytes(ALSO);
  return left >= UNSAID_BYTES / 2 ? Math.min(UNSAID_BYTES, left) : UNSAID_BYTES;
}
