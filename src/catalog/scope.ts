import {
  closestBySlip,
  compareText,
  firstPast,
  foldedName,
  namedInProse,
  quoted,
  quotedName,
} from "../shared/index.js";
import type { CatalogFile, Group, Pack, Skill } from "./types.js";

/** A selector that names nothing in scope, or a bare group name that two packs share. */
export class SelectorError extends Error {
  override name = "SelectorError";
  constructor(
    readonly selector: string,
    message: string,
    /** The message for a model: the close selectors, or the packs, where people are told every selector. */
    readonly brief: string = message,
    /** The selectors a slip away from `selector`, if any. */
    readonly close: readonly string[] = [],
  ) {
    super(message);
  }
}

export type SkillLookup =
  | { readonly kind: "found"; readonly skill: Skill }
  | { readonly kind: "ambiguous"; readonly candidates: readonly string[] }
  | { readonly kind: "missing" };

/** How many valid selectors an error lists before it says how many more there are. */
const LISTED_SELECTORS = 30;

/** `names` as one readable line, shortened past {@link LISTED_SELECTORS}. */
function shortList(names: readonly string[]): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, LISTED_SELECTORS).join(", ");
  const more = names.length - LISTED_SELECTORS;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/**
 * The skills one caller may see. Built once for the whole catalog and narrowed by a deployment's
 * `SKILL_PACKS`, a client's header or `?pack=` and a call's `pack` argument; each narrowing can only
 * remove skills.
 */
export class Scope {
  /** Sorted by name, then pack. */
  readonly skills: readonly Skill[];
  /** Packs with at least one skill in scope, holding only those skills; sorted by name. */
  readonly packs: readonly Pack[];
  private readonly packsByName: ReadonlyMap<string, Pack>;
  /** Worked out on first use: most scopes are narrowed for one call and never asked. */
  #skillsByName: ReadonlyMap<string, readonly Skill[]> | undefined;
  #hasCopies: boolean | undefined;
  #members: ReadonlySet<Skill> | undefined;
  #byFoldedName: ReadonlyMap<string, readonly Skill[]> | undefined;
  #byLooseName: ReadonlyMap<string, readonly Skill[]> | undefined;
  #packsByFoldedName: ReadonlyMap<string, readonly Pack[]> | undefined;

  /**
   * `skills` must be sorted by name, then pack; `packs` are their packs, or what gives each pack's
   * pack-level files, told the pack's groups in this scope, to group them into packs.
   */
  constructor(skills: readonly Skill[], packs: PackFiles | readonly Pack[]) {
    this.skills = skills;
    this.packs = typeof packs === "function" ? groupIntoPacks(skills, packs) : packs;
    this.packsByName = new Map(this.packs.map((pack) => [pack.name, pack]));
  }

  private get skillsByName(): ReadonlyMap<string, readonly Skill[]> {
    this.#skillsByName ??= groupByName(this.skills, (skill) => skill.name);
    return this.#skillsByName;
  }

  findPack(name: string): Pack | undefined {
    return this.packsByName.get(name);
  }

  /**
   * {@link findPack}, else the one pack named so in another case or Unicode normalization (`Design` for
   * `design`, `café` typed with a combining accent), as models and people write names, folded as the load
   * folds pack names ({@link foldedName}). The load serves no two packs whose names fold alike; were there
   * two, they would be found by their exact names alone.
   */
  findPackAnyCase(name: string): Pack | undefined {
    const exact = this.packsByName.get(name);
    if (exact) return exact;
    this.#packsByFoldedName ??= groupByName(this.packs, (pack) => foldedName(pack.name));
    const [only, ...others] = this.#packsByFoldedName.get(foldedName(name)) ?? [];
    return others.length === 0 ? only : undefined;
  }

  /** Whether `skill` is in this scope. */
  has(skill: Skill): boolean {
    this.#members ??= new Set(this.skills);
    return this.#members.has(skill);
  }

  /** This scope less `skills`, with the pack files of what remains (see {@link narrow}). */
  without(skills: ReadonlySet<Skill>): Scope {
    return skills.size === 0 ? this : this.subset((skill) => !skills.has(skill));
  }

  /** Finds a skill by bare name or `<pack>/<name>`. A bare name shared by packs in scope is ambiguous. */
  findSkill(ref: string): SkillLookup {
    const slash = ref.indexOf("/");
    if (slash > 0) {
      const pack = this.packsByName.get(ref.slice(0, slash));
      const name = ref.slice(slash + 1);
      const skill = pack?.skills.find((candidate) => candidate.name === name);
      if (skill) return { kind: "found", skill };
    }
    return lookupIn(this.skillsByName.get(ref) ?? []);
  }

  /**
   * {@link findSkill} in any case and Unicode normalization, folded as the load folds names ({@link
   * foldedName}): names are lowercase by rule, but models may write them otherwise, a name or pack that
   * breaks the rule is served all the same (with a warning at startup), and a name copied from a folder
   * macOS wrote may come in NFD.
   */
  findSkillAnyCase(ref: string): SkillLookup {
    const exact = this.findSkill(ref);
    if (exact.kind !== "missing") return exact;
    const folded = foldedName(ref);
    this.#byFoldedName ??= groupByName(this.skills, (skill) => foldedName(skill.name));
    const slash = folded.indexOf("/");
    if (slash > 0) {
      const pack = folded.slice(0, slash);
      const named = this.#byFoldedName.get(folded.slice(slash + 1)) ?? [];
      const skill = named.find((candidate) => foldedName(candidate.pack) === pack);
      if (skill) return { kind: "found", skill };
    }
    const anyCase = lookupIn(this.#byFoldedName.get(folded) ?? []);
    return anyCase.kind === "missing" ? this.findSkillLoosely(ref, folded) : anyCase;
  }

  /**
   * A skill named with `_` or spaces where its name has `-` (`color_palettes`, `color palettes`), in any
   * case: only when that names one skill, or copies of one name in several packs; names that differ only
   * in those separators are found by their own.
   */
  private findSkillLoosely(ref: string, folded: string): SkillLookup {
    // From `ref` as findSkillAnyCase folded it: folding it again cost list_skills's every query.
    const loose = loosened(folded);
    this.#byLooseName ??= groupByName(this.skills, (skill) => looseName(skill.name));
    const slash = loose.indexOf("/");
    if (slash > 0) {
      const pack = this.findPackAnyCase(ref.slice(0, ref.indexOf("/")));
      const named = (this.#byLooseName.get(loose.slice(slash + 1)) ?? []).filter(
        (candidate) => candidate.pack === pack?.name,
      );
      if (named.length === 1 && named[0] !== undefined) return { kind: "found", skill: named[0] };
    }
    const same = this.#byLooseName.get(loose) ?? [];
    const names = new Set(same.map((skill) => skill.name));
    return names.size === 1 ? lookupIn(same) : { kind: "missing" };
  }

  /** How a caller of this scope names `skill`: bare, unless packs in scope share the bare name. */
  refOf(skill: Skill): string {
    // Skills of one name are side by side, sorted by name: the first is followed by another when packs
    // share it. No map of every name is made for a new scope's entries.
    const first = firstNamed(this.skills, skill.name);
    return this.skills[first + 1]?.name === skill.name ? skill.id : skill.name;
  }

  /** Whether any skill in this scope has a copy in another of its packs (see {@link copiesOf}). */
  hasCopies(): boolean {
    this.#hasCopies ??= this.skills.some((skill) => this.copiesOf(skill).length > 0);
    return this.#hasCopies;
  }

  /**
   * The other skills in this scope with `skill`'s name and description: the same skill copied into other
   * packs, which a listing shows once.
   */
  copiesOf(skill: Skill): readonly Skill[] {
    const same = this.skillsByName.get(skill.name) ?? [];
    return same.filter((other) => other !== skill && other.description === skill.description);
  }

  /**
   * The skills that any of `selectors` names, within this scope. Each item may itself be a comma list;
   * blank items beside a selector are ignored (`a,`), and one empty text, or none, means no narrowing.
   * Throws SelectorError, also for text of commas and spaces alone, or several texts naming nothing
   * (`?pack=&pack=`).
   */
  narrow(selectors: readonly string[]): Scope {
    const items = selectors.flatMap((item) => item.split(",")).map((item) => item.trim());
    const named = items.filter((item) => item !== "");
    if (named.length === 0) {
      const none = selectors.length === 0 || (selectors.length === 1 && selectors[0] === "");
      return none ? this : this.blank(selectors);
    }
    // Whole packs by name, the skills of groups one by one: most selectors name packs.
    const packs = new Set<string>();
    const chosen = new Set<Skill>();
    for (const selector of named) {
      const selected = this.select(selector);
      const pack = this.findPackAnyCase(selector);
      if (pack !== undefined && selected === pack.skills) packs.add(pack.name);
      else for (const skill of selected) chosen.add(skill);
    }
    return this.subset((skill) => packs.has(skill.pack) || chosen.has(skill));
  }

  /**
   * Every selector valid in this scope: all the packs first, then `pack/group`, so that a list shortened
   * to its first selectors names the packs before any group. Bare group names work too when unique.
   */
  selectors(): string[] {
    return [
      ...this.packs.map((pack) => pack.name),
      ...this.packs.flatMap((pack) => pack.groups.map((group) => `${pack.name}/${group.name}`)),
    ];
  }

  /** The valid selectors as one readable line, shortened for catalogs with thousands of groups. */
  describeSelectors(): string {
    return shortList(this.selectors().map(namedInProse));
  }

  /**
   * The skills `selector` names: a pack, `pack/group` or a group its pack alone has, by exact name first,
   * then in any case when that names one pack or group (see {@link findPackAnyCase}).
   */
  private select(selector: string): readonly Skill[] {
    const parts = selector.split("/");
    const [packName, groupName] = parts;
    if (packName === undefined || packName === "" || parts.length > 2) return this.unknown(selector);

    if (groupName !== undefined) {
      const group = this.findGroup(packName, groupName);
      return group ? group.skills : this.unknown(selector);
    }
    const pack = this.packsByName.get(packName);
    if (pack) return pack.skills;

    const exactGroups = this.groupsNamed((name) => name === selector);
    const anyCasePack = exactGroups.length === 0 ? this.findPackAnyCase(selector) : undefined;
    if (anyCasePack) return anyCasePack.skills;
    const folded = selector.toLowerCase();
    const groups =
      exactGroups.length > 0 ? exactGroups : this.groupsNamed((name) => name.toLowerCase() === folded);
    const [only] = groups;
    if (only === undefined) return this.unknown(selector);
    if (groups.length > 1) {
      const qualified = groups
        .map(({ pack: owner, group }) => namedInProse(`${owner.name}/${group.name}`))
        .join(", ");
      throw new SelectorError(
        selector,
        `Group ${quoted(selector)} exists in several packs; use one of: ${qualified}.`,
      );
    }
    return only.group.skills;
  }

  /** The group `pack/group` names: exactly, else in any case when one group of the pack is so named. */
  private findGroup(packName: string, groupName: string): Group | undefined {
    const exact = this.packsByName.get(packName)?.groups.find((group) => group.name === groupName);
    if (exact) return exact;
    const folded = groupName.toLowerCase();
    const groups = this.findPackAnyCase(packName)?.groups ?? [];
    const [only, ...others] = groups.filter((group) => group.name.toLowerCase() === folded);
    return others.length === 0 ? only : undefined;
  }

  private groupsNamed(matches: (name: string) => boolean): { pack: Pack; group: Group }[] {
    return this.packs.flatMap((pack) =>
      pack.groups.filter((group) => matches(group.name)).map((group) => ({ pack, group })),
    );
  }

  /**
   * Commas and spaces where a selector was meant: a template whose parts came out empty (`${A},${B}`).
   * Read as no narrowing, it would widen a ceiling to every pack, the opposite of what was meant.
   */
  private blank(selectors: readonly string[]): never {
    const given = selectors.join(",");
    // Several texts, each quoted as sent: joined, two empty `?pack=` read as a comma nobody sent.
    const blank =
      selectors.length === 1
        ? `No pack or group in ${quoted(given)}, only commas and spaces: name one, or leave it out for no narrowing.`
        : `No pack or group in the ${selectors.length} values ${shortList(selectors.map((text) => quoted(text)))}, each empty or only commas and spaces: name one, or leave them out for no narrowing.`;
    throw new SelectorError(
      given,
      `${blank} Valid selectors: ${this.describeSelectors()}.`,
      `${blank} Packs: ${shortList(this.packs.map((pack) => namedInProse(pack.name)))}.`,
    );
  }

  private unknown(selector: string): never {
    const close = this.closeSelectors(selector);
    const hint = close.length > 0 ? ` Did you mean ${close.map(quotedName).join(" or ")}?` : "";
    // Typed by a user (--pack, SKILL_PACKS) or sent by a client (X-Skill-Pack): quoted, escaped and cut.
    const unknown = `Unknown pack or group ${quoted(selector)}.`;
    // A model is told the close names, or the packs: a list of groups cut at thirty may not hold the one
    // it wanted, and a listing of the packs names every group.
    const packs = ` Packs: ${shortList(this.packs.map((pack) => namedInProse(pack.name)))}.`;
    throw new SelectorError(
      selector,
      `${unknown}${hint} Valid selectors: ${this.describeSelectors()}.`,
      `${unknown}${hint === "" ? packs : hint}`,
      close,
    );
  }

  /**
   * The selectors closest to `selector`, if a slip away: case, a letter or two. A bare group name is a
   * candidate only where one pack has it; `pack/group` is compared with that pack's groups only, so an
   * unknown selector costs a walk over the names, not over every pair of letters of a large catalog.
   * Failing that, the selectors of which it is a whole word (`kubernetes` for `kubernetes-operations`),
   * when at most three are: more would be a guess.
   */
  private closeSelectors(selector: string): string[] {
    const wanted = selector.toLowerCase();
    const candidates = this.candidatesNear(wanted);
    let closest = closestBySlip(wanted, candidates);
    if (closest.length === 0 && wanted.length >= 3) {
      const word = wanted.slice(wanted.lastIndexOf("/") + 1);
      closest = candidates.filter((name) =>
        name
          .slice(name.lastIndexOf("/") + 1)
          .toLowerCase()
          .split(/[-_.]/)
          .includes(word),
      );
      if (closest.length > 3) return [];
    }
    return closest.sort(compareText).slice(0, 3);
  }

  private candidatesNear(wanted: string): string[] {
    const slash = wanted.indexOf("/");
    if (slash > 0) {
      const packName = wanted.slice(0, slash);
      const pack = this.packs.find((candidate) => candidate.name.toLowerCase() === packName);
      // The pack itself too: `n8n/`, written as a folder, is a slip from `n8n`.
      return pack ? [pack.name, ...pack.groups.map((group) => `${pack.name}/${group.name}`)] : [];
    }
    const groupPacks = new Map<string, number>();
    for (const group of this.packs.flatMap((pack) => pack.groups)) {
      groupPacks.set(group.name, (groupPacks.get(group.name) ?? 0) + 1);
    }
    const uniqueGroups = [...groupPacks].filter(([, packs]) => packs === 1).map(([name]) => name);
    return [...this.packs.map((pack) => pack.name), ...uniqueGroups];
  }

  private subset(keep: (skill: Skill) => boolean): Scope {
    const skills = this.skills.filter(keep);
    if (skills.length === this.skills.length) return this;
    // Pack by pack: a pack kept whole is this scope's own, not grouped again skill by skill.
    const packs: Pack[] = [];
    for (const pack of this.packs) {
      const kept = pack.skills.filter(keep);
      if (kept.length === pack.skills.length) packs.push(pack);
      else if (kept.length > 0) {
        const groups = groupSkills(pack.name, kept);
        packs.push({ name: pack.name, skills: kept, groups, files: filesLeftIn(pack, groups) });
      }
    }
    return new Scope(skills, packs);
  }
}

function groupByName<T>(items: readonly T[], nameOf: (item: T) => string): Map<string, T[]> {
  const byName = new Map<string, T[]>();
  for (const item of items) {
    const same = byName.get(nameOf(item));
    if (same) same.push(item);
    else byName.set(nameOf(item), [item]);
  }
  return byName;
}

/** A name as `findSkillLoosely` compares it: folded, each run of `_` and white space read as `-`. */
function looseName(name: string): string {
  return loosened(foldedName(name));
}

/** A folded name ({@link foldedName}) with each run of `_` and white space read as `-`. */
function loosened(folded: string): string {
  return folded.replace(/[\s_]+/g, "-");
}

/** Where the first skill named `name` is, or would be, in `skills` sorted by name. */
function firstNamed(skills: readonly Skill[], name: string): number {
  return firstPast(skills, (skill) => compareText(skill.name, name) >= 0);
}

/** The one skill of `same` (skills of one name), or which are named so. */
function lookupIn(same: readonly Skill[]): SkillLookup {
  const [first] = same;
  if (first === undefined) return { kind: "missing" };
  if (same.length === 1) return { kind: "found", skill: first };
  return { kind: "ambiguous", candidates: same.map((skill) => skill.id) };
}

/** A pack's pack-level files, given the name of the pack and its groups in scope. */
type PackFiles = (pack: string, groups: readonly Group[]) => ReadonlyMap<string, CatalogFile>;

/**
 * The pack files a narrower scope may see: none inside the folder of a group it left out, which belong
 * to that group (and would name it); the files at the top of the pack and in folders without skills are
 * shared by every group and stay.
 */
function filesLeftIn(pack: Pack, groups: readonly Group[]): ReadonlyMap<string, CatalogFile> {
  if (groups.length === pack.groups.length) return pack.files;
  const left = new Set(groups.map((group) => group.name));
  const dropped = new Set(pack.groups.map((group) => group.name).filter((name) => !left.has(name)));
  return new Map(
    [...pack.files].filter(([file]) => {
      const slash = file.indexOf("/");
      return slash < 0 || !dropped.has(file.slice(0, slash));
    }),
  );
}

/** Orders skills the way every listing shows them: by name, then by pack. */
export function compareSkills(a: Skill, b: Skill): number {
  return compareText(a.name, b.name) || compareText(a.pack, b.pack);
}

function groupIntoPacks(skills: readonly Skill[], packFiles: PackFiles): Pack[] {
  const byPack = new Map<string, Skill[]>();
  for (const skill of skills) {
    const list = byPack.get(skill.pack);
    if (list) list.push(skill);
    else byPack.set(skill.pack, [skill]);
  }
  return [...byPack.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([name, packSkills]) => {
      const groups = groupSkills(name, packSkills);
      return { name, skills: packSkills, groups, files: packFiles(name, groups) };
    });
}

function groupSkills(pack: string, skills: readonly Skill[]): Group[] {
  const byGroup = new Map<string, Skill[]>();
  for (const skill of skills) {
    if (skill.group === undefined) continue;
    const list = byGroup.get(skill.group);
    if (list) list.push(skill);
    else byGroup.set(skill.group, [skill]);
  }
  return [...byGroup.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([name, groupSkills]) => ({ pack, name, skills: groupSkills }));
}
