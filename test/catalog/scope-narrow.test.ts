/**
 * A scope narrowed from a client's selectors is built pack by pack, a pack kept whole shared with the
 * scope it came from, and names skills without a map of every name (a new scope at 10k skills took some
 * 10 ms of the event loop for a header anyone can vary): it must hold exactly what grouping its skills
 * anew gives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/synthetic-catalog.js";
import { loadCatalog, type Pack, type Scope } from "../../src/catalog/index.js";
import { Scope as ScopeClass } from "../../src/catalog/scope.js";
import { makeTree, skillMd, type TempTree, type TreeEntry } from "../helpers/skill-tree.js";

/** Packs with groups and without, skills beside groups, names several packs share, pack files in and out of groups. */
function entries(random: () => number): Record<string, TreeEntry> {
  const tree: Record<string, TreeEntry> = {};
  for (let pack = 0; pack < 9; pack += 1) {
    const groups = pack % 3 === 0 ? [] : ["docs", "tools", `kit${pack}`].slice(0, 1 + (pack % 3));
    for (let index = 0; index < 3 + Math.floor(random() * 6); index += 1) {
      const name = random() < 0.2 ? ["review", "deploy"][index % 2] : `skill-${pack}-${index}`;
      const group = groups.length > 0 && random() < 0.8 ? groups[index % groups.length] : undefined;
      tree[`p${pack}/${group === undefined ? "" : `${group}/`}${name}/SKILL.md`] = skillMd(name ?? "x");
    }
    tree[`p${pack}/shared/notes.md`] = "shared";
    for (const group of groups) tree[`p${pack}/${group}/README.md`] = `about ${group}`;
  }
  return tree;
}

/** The scope of `skills`, grouped anew: what a narrowed scope held before it was built pack by pack. */
function regrouped(everything: Scope, skills: ReadonlySet<unknown>): Scope {
  const kept = everything.skills.filter((skill) => skills.has(skill));
  return new ScopeClass(kept, (name, groups) => {
    const pack = everything.findPack(name);
    if (pack === undefined) return new Map();
    const left = new Set(groups.map((group) => group.name));
    const dropped = new Set(pack.groups.map((group) => group.name).filter((group) => !left.has(group)));
    return new Map([...pack.files].filter(([file]) => !dropped.has(file.split("/")[0] ?? "")));
  });
}

const shapeOf = (packs: readonly Pack[]) =>
  packs.map((pack) => ({
    name: pack.name,
    skills: pack.skills.map((skill) => skill.id),
    groups: pack.groups.map((group) => [group.pack, group.name, group.skills.map((skill) => skill.id)]),
    files: [...pack.files.keys()],
  }));

describe("Scope.narrow", () => {
  let tree: TempTree;
  let everything: Scope;
  beforeAll(async () => {
    tree = await makeTree(entries(seededRandom(5)));
    everything = loadCatalog(tree.dir).catalog.everything;
  });
  afterAll(() => tree.remove());

  it("holds, for random selectors, exactly the skills, packs, groups, files and names of its skills grouped anew", () => {
    const random = seededRandom(9);
    const selectors = everything.selectors();
    for (let round = 0; round < 300; round += 1) {
      const chosen = Array.from(
        { length: 1 + Math.floor(random() * 6) },
        () => selectors[Math.floor(random() * selectors.length)] ?? "",
      );
      const narrowed = everything.narrow([chosen.join(",")]);
      const expected = new Set(chosen.flatMap((selector) => everything.narrow([selector]).skills));
      const reference = regrouped(everything, expected);
      const where = chosen.join(",");
      expect(narrowed.skills, where).toEqual(reference.skills);
      expect(shapeOf(narrowed.packs), where).toEqual(shapeOf(reference.packs));
      for (const skill of everything.skills) {
        const shared = reference.findSkill(skill.name).kind === "ambiguous";
        expect(narrowed.refOf(skill), where).toBe(shared ? skill.id : skill.name);
        expect(narrowed.has(skill), where).toBe(reference.has(skill));
        expect(narrowed.findSkill(skill.name), where).toEqual(reference.findSkill(skill.name));
        expect(narrowed.copiesOf(skill), where).toEqual(reference.copiesOf(skill));
      }
      // Narrowed again, as ?pack= is within the header's scope.
      const [first] = narrowed.selectors();
      if (first !== undefined) {
        const again = narrowed.narrow([first]);
        expect(again.skills).toEqual(narrowed.skills.filter((skill) => skill.pack === first));
        expect(shapeOf(again.packs)).toEqual(shapeOf(regrouped(everything, new Set(again.skills)).packs));
      }
    }
  });

  it("shares the packs it keeps whole with the scope it was narrowed from", () => {
    const [first, second] = everything.packs;
    if (first === undefined || second === undefined) throw new Error("two packs expected");
    const narrowed = everything.narrow([`${first.name},${second.name}`]);
    expect(narrowed.packs[0]).toBe(first);
    expect(narrowed.packs[1]).toBe(second);
  });
});
