import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { loadCatalog, type Scope } from "../../src/catalog/index.js";
import {
  type PreviewSettings,
  previewOf,
  TermFrequencies,
  termsFromPart,
  termsToPart,
} from "../../src/preview/index.js";
import { TERMS_FORMAT_VERSION } from "../../src/preview/saved-terms.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

const ON: PreviewSettings = { enabled: true, describedPack: () => undefined };
const trees: TempTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((tree) => tree.remove()));
});

/**
 * Packs with groups and skills at their top, names that pair their words, plurals spelled both ways, and
 * more skills than fit the previews whole, so that they summarize packs by their terms.
 */
async function catalogScope(): Promise<Scope> {
  const entries: Record<string, string> = {};
  for (let index = 0; index < 30; index += 1) {
    entries[`garden/beds/raised-bed-${index}/SKILL.md`] = skillMd(
      `raised-bed-${index}`,
      `Plan raised beds number ${index}: timber frames, soil volume and compost${index % 2 ? "s" : ""}.`,
    );
    entries[`garden/lawn-care-${index}/SKILL.md`] = skillMd(
      `lawn-care-${index}`,
      `Mow and feed a lawn ${index}; aerate the turf and rake the thatch.`,
    );
    entries[`workshop/power/drill-press-${index}/SKILL.md`] = skillMd(
      `drill-press-${index}`,
      `Bore holes with a drill press ${index} and Forstner bits; set depth stops.`,
    );
  }
  const tree = await makeTree(entries);
  trees.push(tree);
  return loadCatalog(tree.dir).catalog.everything;
}

/** Every text the previews of `scope` and of each of its packs say, with these terms. */
function previewsOf(scope: Scope, terms: TermFrequencies): string[] {
  return [scope, ...scope.packs.map((pack) => scope.narrow([pack.name]))].flatMap((each) => {
    const preview = previewOf(each, terms, ON);
    return [
      preview.instructions,
      preview.listSkillsDescription,
      ...each.packs.map((pack) => preview.describePack(pack)),
    ];
  });
}

function unfitNever(problem: string): never {
  throw new Error(`the saved tally was refused: ${problem}`);
}

describe("the previews' saved tally", () => {
  it("gives the previews that tallying the skills gives, with nothing left to tally", async () => {
    const scope = await catalogScope();
    const loaded = termsFromPart(termsToPart(new TermFrequencies(scope.skills)), scope.skills, unfitNever);
    if (!loaded.ok) throw new Error(loaded.problem);
    expect(loaded.terms.tallySome(1)).toBe(false);
    const tallied = previewsOf(scope, new TermFrequencies(scope.skills));
    expect(tallied.join("\n")).toMatch(/timber|compost|lawn/);
    expect(previewsOf(scope, loaded.terms)).toEqual(tallied);
  });

  it("is refused when another format version saved it, so that it is tallied anew", async () => {
    const scope = await catalogScope();
    const pieces = termsToPart(new TermFrequencies(scope.skills));
    const numbers = new Float64Array(pieces[0]?.slice().buffer ?? new ArrayBuffer(0));
    numbers[0] = TERMS_FORMAT_VERSION + 1;
    const older = [new Uint8Array(numbers.buffer), ...pieces.slice(1)];
    expect(termsFromPart(older, scope.skills, unfitNever)).toEqual({
      ok: false,
      problem: `format version ${TERMS_FORMAT_VERSION + 1}; this server reads version ${TERMS_FORMAT_VERSION}`,
      outdated: true,
    });
  });

  it("that does not hold together, or is of other skills, is said once and the skills are tallied", async () => {
    const scope = await catalogScope();
    const tallied = previewsOf(scope, new TermFrequencies(scope.skills));
    const pieces = termsToPart(new TermFrequencies(scope.skills));
    // The pieces: numbers, texts, three arrays by term, the respelled terms, cells by unit, the cells' terms.
    const cellTerms = new Int32Array(pieces[7]?.slice().buffer ?? new ArrayBuffer(0));
    cellTerms[0] = 1_000_000;
    const damaged = pieces.map((piece, index) => (index === 7 ? new Uint8Array(cellTerms.buffer) : piece));
    // The last two pieces: each word's stem numbered, and each hyphenated word's stem of its letters joined.
    const last = pieces.length - 2;
    const stemNumbers = new Int32Array(pieces[last]?.slice().buffer ?? new ArrayBuffer(0));
    stemNumbers[0] = 1_000_000;
    const unnumbered = pieces.map((piece, index) =>
      index === last ? new Uint8Array(stemNumbers.buffer) : piece,
    );
    const garden = scope.narrow(["garden"]);
    for (const [bytes, skills, problem] of [
      [damaged, scope.skills, "malformed: a cell's term is no term"],
      [unnumbered, scope.skills, "malformed: a word's stem is not numbered"],
      [pieces.slice(0, 5), scope.skills, "malformed: it holds fewer arrays than it should"],
      [pieces, [...scope.skills].reverse(), "malformed: its units are not those of the skills listed"],
      [
        pieces,
        garden.skills,
        `malformed: it tallies ${scope.skills.length} skills, not ${garden.skills.length}`,
      ],
    ] as const) {
      const problems: string[] = [];
      const loaded = termsFromPart(bytes, skills, (said) => problems.push(said));
      if (!loaded.ok) throw new Error(loaded.problem);
      const texts = previewsOf(skills === garden.skills ? garden : scope, loaded.terms);
      expect(problems).toEqual([problem]);
      if (skills === scope.skills) expect(texts).toEqual(tallied);
    }
  });

  it("keeps its bytes while its version stays: a change to them needs a new TERMS_FORMAT_VERSION", async () => {
    // How words are read and counted decides the bytes. When this fails, bump TERMS_FORMAT_VERSION in
    // src/preview/saved-terms.ts (saved tallies must not be trusted across the change), then record the
    // new digest here.
    const tree = await makeTree({
      "tools/hammer/SKILL.md": skillMd("hammer", "Drive nails into wood; pull bent ones out."),
      "tools/power/drill-press/SKILL.md": skillMd(
        "drill-press",
        "Bore straight holes with Forstner bits, implementing a jig.",
      ),
      "garden/raised-bed-builder/SKILL.md": skillMd(
        "raised-bed-builder",
        "Plan raised beds — timber, soil volume (m³) and a café-style herb corner.",
      ),
      "garden/bonsai/SKILL.md": skillMd("bonsai", "盆栽の剪定と植え替え (bonsai pruning)."),
    });
    trees.push(tree);
    const skills = loadCatalog(tree.dir).catalog.everything.skills;
    const hash = createHash("sha256");
    for (const piece of termsToPart(new TermFrequencies(skills)))
      hash.update(`${piece.length}\n`).update(piece);
    expect({ version: TERMS_FORMAT_VERSION, digest: hash.digest("hex") }).toEqual({
      version: 9,
      digest: "04e58085604bf3a3f2df088617967fc8922788d7eac9d732b70cb0372fd3dcc7",
    });
  });
});
