/**
 * The previews as they were worked out before they were made cheap for a new scope: every telling term of
 * each pack and group ranked, every skill's entry made. Kept as the reference the previews must equal,
 * byte for byte (see preview-reference.test.ts); not used by the server.
 */
import type { Pack, Scope, Skill } from "../../src/catalog/index.js";
import {
  MINIMAL_LIST_SKILLS,
  type Preview,
  type PreviewSettings,
  type TermFrequencies,
} from "../../src/preview/index.js";
import { phraseWords } from "../../src/preview/phrase-words.js";
import { MINIMAL_INSTRUCTIONS } from "../../src/preview/preview.js";
import { MAX_PREVIEW_BYTES } from "../../src/preview/room.js";
import { KeptStems, stemsOf as stemsKept } from "../../src/preview/words.js";

/** Every text stemmed anew, as the preview did before a catalog kept its stems (KeptStems). */
function stemsOf(text: string): Set<string> {
  return stemsKept(text, new KeptStems());
}

/** What list_packs says a pack is for, at most: one line among many, its groups listed below it. */
const PACK_SUMMARY_BYTES = 120;
/** Beside a list of every skill, the instructions give at most this much of an operator's pack description. */
const BRIEF_PACK_BYTES = 400;
/** Beside a list of every skill: the skills by name, and terms the entries leave out, in this many. */
const NAMED_PACK_BYTES = 300;
/** Of those, the terms the entries leave out: when cut, the pack's main terms but for its skills' names. */
const UNSAID_BYTES = 120;
/** A steering line is read on every turn of every conversation: a short phrase of each pack at most. */
const STEERING_PACK_BYTES = 160;
/** An entry shorter than this says too little of its skill; past it, packs are summarized instead. */
const MIN_ENTRY_BYTES = 60;

const INSTRUCTIONS_HEAD =
  "This server holds the organization's own skills: reviewed, step-by-step instructions for how tasks are " +
  "done here. They are not your built-in skills. Before you start a task in one of the areas below, even " +
  'one you already know how to do, call list_skills(query="<the task in a few words>"), then ' +
  "read_skill(skill) and follow it: the organization's skill encodes its conventions.";
const INSTRUCTIONS_TAIL =
  "A skill's files: read_skill(skill, file); shared pack paths it cites: read_pack_file(pack, file).";

/**
 * The preview of `scope`: which packs it holds, what their skills are for, and when to look. Worked out
 * once per scope; nothing outside `scope` is named. `catalog` weighs how telling a term is.
 *
 * Hosts that show the instructions show the tools too, so where neither text can say everything the two
 * say different things: list_skills, which every client shows, gives the skills one by one when they fit
 * (`name: description`), else what each pack and group is for; the instructions then give skills by name
 * and the terms the other text leaves out (beside cut entries, the pack's main terms but for its skills'
 * names), or else an operator's description of the pack.
 */
export function referencePreviewOf(
  scope: Scope,
  catalog: TermFrequencies,
  settings: PreviewSettings,
): Preview {
  const described = settings.describedPack;
  const describePack = (pack: Pack) =>
    described(pack) ??
    cut(catalog.tellingTerms(pack, undefined, namesOf(pack)).join(", "), PACK_SUMMARY_BYTES);
  if (!settings.enabled) {
    return { instructions: MINIMAL_INSTRUCTIONS, listSkillsDescription: MINIMAL_LIST_SKILLS, describePack };
  }
  const head = listSkillsHead(
    scope,
    `. Then read_skill. ${scope.skills.length === 1 ? "The only skill" : `All ${countOf(scope.skills.length)}`}:`,
  );
  const fitting = entriesFitting(scope, roomAfter(head));
  if (fitting !== undefined) {
    const listSkillsDescription = within([head, ...fitting.entries]);
    const saidIn = (text: string) => new Set([...stemsOf(text), ...stemsOf(text.replace(/-/g, " "))]);
    // Cut entries leave out a pack's main terms: those but for its skills' names, else the terms left out.
    const said = (pack: Pack) =>
      fitting.cutPacks.has(pack.name)
        ? saidIn(pack.skills.map((skill) => skill.name).join(" "))
        : saidIn(listSkillsDescription);
    return {
      listSkillsDescription,
      instructions: instructionsWith(scope, (pack, room) => {
        const brief = Math.min(room, BRIEF_PACK_BYTES);
        const given = described(pack);
        if (given !== undefined) return cut(given, brief);
        // A pack whose every skill can be named beside half the terms' room is named whole, its line
        // growing up to the brief room for that.
        const allNames = bytes(skillsByName(pack, Number.POSITIVE_INFINITY)) + bytes("; also ");
        const whole = allNames + UNSAID_BYTES / 2;
        const line =
          whole <= brief
            ? Math.max(whole, Math.min(brief, NAMED_PACK_BYTES))
            : Math.min(brief, NAMED_PACK_BYTES);
        const left = line - allNames;
        const termsRoom = left >= UNSAID_BYTES / 2 ? Math.min(UNSAID_BYTES, left) : UNSAID_BYTES;
        const unsaid = cut(
          catalog.tellingTerms(pack, undefined, new Set([...said(pack), ...namesOf(pack)])).join(", "),
          termsRoom,
        );
        const named = line - (unsaid === "" ? 0 : bytes("; also ") + bytes(unsaid));
        const names = cut(skillsByName(pack, named), named);
        if (names === "" || unsaid === "") return cut(`${names}${unsaid}`, brief);
        return `${names}; also ${unsaid}`;
      }),
      describePack,
    };
  }
  const byGroups = (pack: Pack) => pack.groups.length > 0 && described(pack) === undefined;
  const packsHead = listSkillsHead(
    scope,
    `, pack a pack's or group's skills. Then read_skill. ${scope.packs.some(byGroups) ? "Packs:" : "Packs, not skills:"}`,
  );
  const listSkillsDescription = within([
    packsHead,
    ...packLines(scope.packs, roomAfter(packsHead), (pack, room) => {
      if (byGroups(pack)) return groupsLine(pack, catalog, room);
      const name = `${pack.name}: `;
      return `${name}${cut(described(pack) ?? summarizePack(pack, catalog, room, new Set()), room - bytes(name))}`;
    }),
  ]);
  const said = new Set([
    ...stemsOf(listSkillsDescription),
    ...stemsOf(listSkillsDescription.replace(/-/g, " ")),
  ]);
  return {
    listSkillsDescription,
    instructions: instructionsWith(scope, (pack, room) => {
      const given = described(pack);
      if (pack.groups.length === 0 && given === undefined) {
        // A line with room for the pack's main terms ten times over opens with them.
        const main = room >= 10 * PACK_SUMMARY_BYTES ? describePack(pack) : "";
        const rest = main === "" ? room : room - bytes(main) - bytes("; also ");
        const unsaid = summarizePack(pack, catalog, rest, new Set([...said, ...stemsOf(main)]));
        const text = [main, unsaid].filter((part) => part !== "").join("; also ");
        if (text !== "") return text;
      }
      // The groups, the operator's description or every telling term is in list_skills: here, skills by name.
      const opening = given === undefined ? "such as " : `${cut(given, room / 2)}; such as `;
      return cut(`${opening}${spread(pack.skills, room - bytes(opening)).join(", ")}`, room);
    }),
    describePack,
  };
}

/** list_skills's head, then `below`: what its lines are and how to list what they leave out. */
function listSkillsHead(scope: Scope, below: string): string {
  const packs = cut(scope.packs.map((pack) => pack.name).join(", "), MAX_PREVIEW_BYTES / 4);
  return (
    `Find the organization's skill for a task (these are not your built-in skills). Call it before any ` +
    `task in ${packs}, even a familiar one, and follow the skill: query="<task>" gives the best matches${below}`
  );
}

/** The instructions, each pack in scope said by `say` within the room it is given. */
function instructionsWith(scope: Scope, say: (pack: Pack, room: number) => string): string {
  const room = roomAfter(INSTRUCTIONS_HEAD) - bytes(INSTRUCTIONS_TAIL) - 1;
  const lines = packLines(scope.packs, room, (pack, share) => {
    const head = `- ${pack.name} (${countOf(pack.skills.length)}): `;
    return `${head}${say(pack, share - bytes(head))}`;
  });
  return within([INSTRUCTIONS_HEAD, ...lines, INSTRUCTIONS_TAIL]);
}

/**
 * `name: description` lines for every skill of `scope`, each cut alike to fit `room`; none if too tight.
 */
function entriesFitting(
  scope: Scope,
  room: number,
): { readonly entries: string[]; readonly cutPacks: ReadonlySet<string> } | undefined {
  const { skills } = scope;
  // A name packs share is given as pack/name, as list_skills gives it: read_skill refuses it bare.
  const full = skills.map((skill) => `${scope.refOf(skill)}: ${skill.description}`);
  if (bytes(full.join("\n")) <= room) return { entries: full, cutPacks: new Set() };
  const perEntry = Math.floor(room / skills.length) - 1;
  if (perEntry < MIN_ENTRY_BYTES) return undefined;
  const entries = full.map((entry) => cut(entry, perEntry));
  const cutPacks = new Set(skills.filter((_, index) => entries[index] !== full[index]).map((s) => s.pack));
  return { entries, cutPacks };
}

/**
 * One line per pack, each within its share of `room`: shares grow with a pack's skills (by their square
 * root, so that small packs are still said), and what a line leaves unused goes to the lines after it.
 * When even the packs' names do not fit, the largest are said and the rest counted.
 */
function packLines(
  packs: readonly Pack[],
  room: number,
  line: (pack: Pack, share: number) => string,
): string[] {
  const shown = packsFitting(packs, room);
  const rest = packs.length - shown.length;
  const restLine = rest > 0 ? `… and ${rest} more packs: list_packs names them.` : "";
  let left = room - (restLine === "" ? 0 : bytes(restLine) + 1);
  let weightLeft = shown.reduce((sum, pack) => sum + weightOf(pack), 0);
  const lines: string[] = [];
  for (const pack of shown) {
    const share = Math.floor((left * weightOf(pack)) / weightLeft) - 1;
    const text = cut(line(pack, share), share);
    lines.push(text);
    left -= bytes(text) + 1;
    weightLeft -= weightOf(pack);
  }
  return restLine === "" ? lines : [...lines, restLine];
}

/** Past a few hundred packs not every name fits: the largest packs, in their order, as many as fit. */
function packsFitting(packs: readonly Pack[], room: number): readonly Pack[] {
  const least = (pack: Pack) => bytes(pack.name) + 40;
  if (packs.reduce((sum, pack) => sum + least(pack), 0) <= room) return packs;
  const largest = [...packs].sort((a, b) => b.skills.length - a.skills.length);
  const kept = new Set<Pack>();
  let used = 0;
  for (const pack of largest) {
    if (used + least(pack) > room - 60) break;
    kept.add(pack);
    used += least(pack);
  }
  return packs.filter((pack) => kept.has(pack));
}

function weightOf(pack: Pack): number {
  return Math.sqrt(pack.skills.length) + 2;
}

/**
 * What a pack's skills are for, told by the pack itself within `room` bytes: each group with the terms
 * that tell it apart (as many as fit), then the pack's telling terms (those most of its skills hold and
 * few other packs or groups do), leaving out the words in `said`.
 */
function summarizePack(
  pack: Pack,
  catalog: TermFrequencies,
  room: number,
  said: ReadonlySet<string>,
  least = 0,
  pieceNames?: number,
): string {
  const known = new Set([...said, ...namesOf(pack)]);
  const groups = [...pack.groups].sort((a, b) => b.skills.length - a.skills.length);
  if (groups.length === 0)
    return cut(catalog.tellingTerms(pack, undefined, known, { least, pieceNames }).join(", "), room);
  const groupTerms = groups.map((group) => catalog.tellingTerms(pack, group, known, { least, pieceNames }));
  for (let each = 3; each > 0; each -= 1) {
    const text = groups
      .map((group, index) => {
        const telling = (groupTerms[index] ?? []).slice(0, each);
        return telling.length > 0 ? `${group.name} (${telling.join(", ")})` : group.name;
      })
      .join(", ");
    if (bytes(text) > room) continue;
    const rest = catalog.tellingTerms(pack, undefined, new Set([...known, ...stemsOf(text)]), {
      least,
      pieceNames,
    });
    return cut(rest.length > 0 ? `${text}; ${rest.join(", ")}` : text, room);
  }
  return cut(groups.map((group) => group.name).join(", "), room);
}

/**
 * list_skills's line for a pack summarized by its groups: the pack's terms that the groups leave out, then
 * the groups (`agents: architecture, …, code… Its groups: python-development (packages), …`), or only the
 * groups (`agents, its groups: …`) when no term fits.
 */
function groupsLine(pack: Pack, catalog: TermFrequencies, room: number): string {
  const label = `${pack.name}, its groups: `;
  const known = namesOf(pack);
  const groups = [...pack.groups].sort((a, b) => b.skills.length - a.skills.length);
  const groupTerms = groups.map((group) => catalog.tellingTerms(pack, group, known));
  for (let each = 3; each > 0; each -= 1) {
    const text = groups
      .map((group, index) => {
        const telling = (groupTerms[index] ?? []).slice(0, each);
        return telling.length > 0 ? `${group.name} (${telling.join(", ")})` : group.name;
      })
      .join(", ");
    if (bytes(text) > room - bytes(label)) continue;
    const terms = catalog.tellingTerms(pack, undefined, new Set([...known, ...stemsOf(text)])).join(", ");
    const left = room - bytes(`${pack.name}: `) - bytes(text);
    if (terms !== "" && bytes(terms) + bytes(". Its groups: ") <= left)
      return `${pack.name}: ${terms}. Its groups: ${text}`;
    const said = cut(terms, Math.min(left - bytes(" Its groups: "), bytes(terms) - 1));
    return said === "" ? `${label}${text}` : `${pack.name}: ${said} Its groups: ${text}`;
  }
  return `${label}${cut(groups.map((group) => group.name).join(", "), room - bytes(label))}`;
}

/** The words of a pack's name and of its groups' names, which a summary need not say again. */
function namesOf(pack: Pack): Set<string> {
  const names = [pack.name, ...pack.groups.map((group) => group.name)];
  return stemsOf(names.join(" ").replace(/-/g, " "));
}

/** A pack's skills by name, in their groups when they fit `room`, else the groups' names and some skills'. */
function skillsByName(pack: Pack, room: number): string {
  if (pack.groups.length === 0) return spread(pack.skills, room).join(", ");
  const namesIn = (group: string | undefined) =>
    pack.skills.filter((skill) => skill.group === group).map((skill) => skill.name);
  const grouped = [
    ...pack.groups.map((group) => `${group.name} (${namesIn(group.name).join(", ")})`),
    ...namesIn(undefined),
  ].join(", ");
  if (bytes(grouped) <= room) return grouped;
  const groups = `${pack.groups.map((group) => group.name).join(", ")}; `;
  return `${groups}${spread(pack.skills, room - bytes(groups)).join(", ")}`;
}

/** As many skill names as fit `room` bytes, taken evenly from all of them rather than the first. */
function spread(skills: readonly Skill[], room: number): string[] {
  const names = skills.map((skill) => skill.name);
  const total = bytes(names.join(", "));
  if (total <= room) return names;
  const count = Math.max(1, Math.floor((names.length * room) / total) - 1);
  const step = names.length / count;
  return Array.from({ length: count }, (_, index) => names[Math.floor(index * step)] ?? "");
}

function countOf(skills: number): string {
  return skills === 1 ? "1 skill" : `${skills} skills`;
}

/** The bytes left for the lines after `head` and its newline. */
function roomAfter(head: string): number {
  return MAX_PREVIEW_BYTES - 1 - bytes(head) - 1;
}

/** `lines` as one text, under the cap whatever the lines hold. */
function within(lines: readonly string[]): string {
  return cut(lines.join("\n"), MAX_PREVIEW_BYTES - 1);
}

/** `text` within `room` bytes, cut after a whole word with an ellipsis; read once, however long. */
function cut(text: string, room: number): string {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= room) return text;
  const kept = encoded.subarray(0, Math.max(0, Math.floor(room) - 3)).toString("utf8");
  const end = kept.lastIndexOf(" ");
  return end <= 0 ? "" : `${kept.slice(0, end).replace(/[,;:]$/, "")}…`;
}

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * A line for CLAUDE.md, AGENTS.md or an agent's system prompt that says when to look for the skills of
 * `scope`: before any task in the areas it names, even a familiar one. Hosts show such files to the model
 * on every turn, whatever they do with a server's own instructions.
 */
export function referenceSteeringLine(
  scope: Scope,
  catalog: TermFrequencies,
  settings: PreviewSettings,
): string {
  const head =
    "Before you start a task in one of these areas, even one you know how to do, call the list_skills " +
    "tool of the skills-mcp server with the task in a few words, then read_skill the best match and " +
    "follow it: these are the organization's own skills (not your built-in ones), and they encode its " +
    "conventions. Areas: ";
  const areas = packLines(scope.packs, roomAfter(head), (pack, share) => {
    const name = `${pack.name} (`;
    const names = skillsByName(pack, Number.POSITIVE_INFINITY);
    const described = settings.describedPack(pack);
    const named = bytes(name) + bytes(names) + 1;
    const most =
      described === undefined && named <= 240 ? Math.max(named, STEERING_PACK_BYTES) : STEERING_PACK_BYTES;
    const room = Math.min(share, most) - bytes(name) - 1;
    const about = described ?? tasksOf(pack, catalog, room);
    return `${name}${cut(about, room)})`;
  });
  return cut(`${head}${areas.join("; ")}.`, MAX_PREVIEW_BYTES - 1);
}

/** A steering line's terms: held by a name or two descriptions, a piece of names given as one name. */
const STEERING_TERMS = { least: 2, pieceNames: 1 };

/**
 * A pack's skills by name when they fit `room`, then every term held by a name or two descriptions that
 * the names leave out, cut to what is left; else the pack's summary of such terms, when its groups fit
 * with a term each; else such terms of the whole pack but for its name. None of the pack's phrase words.
 */
function tasksOf(pack: Pack, catalog: TermFrequencies, room: number): string {
  const names = skillsByName(pack, Number.POSITIVE_INFINITY);
  if (bytes(names) > room) {
    const groups = [...pack.groups].sort((a, b) => b.skills.length - a.skills.length);
    const phrased = phraseWords(pack, catalog);
    const known = new Set([...namesOf(pack), ...phrased]);
    const withOne = groups
      .map((group) => {
        const [telling] = catalog.tellingTerms(pack, group, known, STEERING_TERMS);
        return telling === undefined ? group.name : `${group.name} (${telling})`;
      })
      .join(", ");
    if (bytes(withOne) <= room) return summarizePack(pack, catalog, room, phrased, 2, 1);
    const own = new Set([...stemsOf(`${pack.name} ${pack.name.replace(/-/g, " ")}`), ...phrased]);
    return cut(catalog.tellingTerms(pack, undefined, own, STEERING_TERMS).join(", "), room);
  }
  const said = new Set([
    ...stemsOf(names),
    ...stemsOf(names.replace(/-/g, " ")),
    ...namesOf(pack),
    ...phraseWords(pack, catalog),
  ]);
  const terms = cut(
    catalog.tellingTerms(pack, undefined, said, STEERING_TERMS).join(", "),
    room - bytes(names) - bytes("; also "),
  );
  return terms === "" ? names : `${names}; also ${terms}`;
}
