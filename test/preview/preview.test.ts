import { afterEach, describe, expect, it } from "vitest";
import { loadCatalog, type Pack, type Scope } from "../../src/catalog/index.js";
import {
  MINIMAL_LIST_SKILLS,
  type Preview,
  type PreviewSettings,
  previewOf,
  steeringLine,
  TermFrequencies,
  workOutAhead,
} from "../../src/preview/index.js";
import { MINIMAL_INSTRUCTIONS } from "../../src/preview/preview.js";
import { MAX_PREVIEW_BYTES } from "../../src/preview/room.js";
import { examplesDir } from "../../src/shared/index.js";
import { makeTree, skillMd, type TempTree, type TreeEntry } from "../helpers/skill-tree.js";

const ON: PreviewSettings = { enabled: true, describedPack: () => undefined };
const trees: TempTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((tree) => tree.remove()));
});

async function scopeOf(entries: Record<string, TreeEntry>): Promise<Scope> {
  const tree = await makeTree(entries);
  trees.push(tree);
  return loadCatalog(tree.dir).catalog.everything;
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** `count` skills in `pack`, each with a description of about `words` words about its own subject. */
function skills(pack: string, count: number, words = 30, group = ""): Record<string, string> {
  const entries: Record<string, string> = {};
  for (let index = 0; index < count; index += 1) {
    const name = `${pack}-${group.replace("/", "-")}task-${index}`;
    const description = `Handle ${pack} subject${index} carefully. ${"Explain the details of it. ".repeat(words / 5)}`;
    entries[`${pack}/${group}${name}/SKILL.md`] = skillMd(name, description);
  }
  return entries;
}

describe("previewOf", () => {
  it("lists every skill of a small scope as a full `name: description` entry, and names each in the instructions", async () => {
    const scope = await scopeOf({
      "kitchen/knife-care/SKILL.md": skillMd(
        "knife-care",
        "Sharpen and hone kitchen knives with whetstones.",
      ),
      "kitchen/stock-making/SKILL.md": skillMd("stock-making", "Make clear stocks from roasted bones."),
    });
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription.split("\n").slice(1)).toEqual([
      "knife-care: Sharpen and hone kitchen knives with whetstones.",
      "stock-making: Make clear stocks from roasted bones.",
    ]);
    expect(preview.instructions).toMatch(/^- kitchen \(2 skills\): knife-care, stock-making$/m);
  });

  // The instructions of the bundled examples repeated some 40 loose words of each pack ("everyone, fill,
  // fixed, mix, passes…") that list_skills's full entries already held: some 140 tokens on every turn.
  it("names a small scope's skills and groups in the instructions instead of repeating list_skills's entries", async () => {
    const { catalog } = loadCatalog(examplesDir());
    const { everything } = catalog;
    const terms = new TermFrequencies(everything.skills);
    for (const scope of [everything, ...everything.packs.map((pack) => everything.narrow([pack.name]))]) {
      const preview = previewOf(scope, terms, ON);
      const packLines = preview.instructions.split("\n").filter((line) => line.startsWith("- "));
      expect(packLines).toHaveLength(scope.packs.length);
      // A host that shows only the instructions still sees every skill of the scope, and every group.
      for (const skill of scope.skills) {
        expect(preview.listSkillsDescription).toContain(`${skill.name}: ${skill.description}`);
        expect(packLines.join("\n")).toContain(skill.name);
        if (skill.group !== undefined) expect(packLines.join("\n")).toContain(`${skill.group} (`);
      }
      // Nothing else: each word there is a skill's, group's or pack's name, not a description's.
      const named = new Set(
        [
          ...scope.skills.flatMap((skill) => [skill.name, skill.group ?? ""]),
          ...scope.packs.map((p) => p.name),
        ]
          .join(" ")
          .split(/[^a-z0-9]+/),
      );
      for (const line of packLines) {
        const words = line.replace(/^- \S+ \(\d+ skills?\): /, "").split(/[^a-z0-9]+/);
        expect(words.filter((word) => word !== "" && !named.has(word))).toEqual([]);
      }
    }
    const whole = previewOf(everything, terms, ON).instructions;
    expect(whole).toContain("- design (3 skills): accessible-forms, color-palettes, icon-sets\n");
    expect(whole).toContain(
      "- workflows (5 skills): data (clean-csv, reshape-json), http (call-rest-api, receive-webhooks), write-commit-messages\n",
    );
  });

  // Beside cut entries, the instructions gave only the terms the cuts left out: a host that shows only the
  // instructions never read what the pack is mostly for ("temperature", "curve"), only its rarer words.
  it("gives in the instructions, beside cut entries, the skills by name and the pack's main terms their names lack", async () => {
    const entries: Record<string, string> = {};
    for (let index = 0; index < 16; index += 1) {
      const name = `kiln-firing-${index}`;
      const description =
        `Fire pottery batch ${index} in the kiln. ${"Log the temperature curve and cooling. ".repeat(4)}` +
        `${index % 2 === 0 ? "Watch for crazing and pinholes." : "Watch for crazing and shivering."}`;
      entries[`pottery/${name}/SKILL.md`] = skillMd(name, description);
    }
    const scope = await scopeOf(entries);
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    const entryLines = preview.listSkillsDescription.split("\n").slice(1);
    expect(entryLines).toHaveLength(16);
    expect(entryLines.every((line) => line.endsWith("…"))).toBe(true);
    expect(preview.listSkillsDescription).not.toMatch(/crazing/);
    const line = preview.instructions.split("\n").find((each) => each.startsWith("- pottery"));
    expect(line).toMatch(/^- pottery \(16 skills\): kiln-firing-0, kiln-firing-\d+, .*; also /);
    const terms = (line ?? "").split("; also ")[1] ?? "";
    for (const term of ["temperature", "curve", "cooling", "crazing"])
      expect(terms).toMatch(new RegExp(`\\b${term}\\b`));
    expect(terms).not.toMatch(/\b(?:kiln|firing|pottery)\b/);
  });

  // The instructions of the bench corpus's 13-skill anthropics pack named 9 of its skills: its line gave
  // the terms their room first, though every name fitted beside most of them, and a host that shows only
  // the instructions never read slack-gif-creator.
  it("names every skill of a pack whose names fit beside a few terms, whose entries are cut", async () => {
    const wares =
      "glaze stoneware porcelain earthenware bisque reduction oxidation cone shelf wadding crawling blistering dunting".split(
        " ",
      );
    const entries: Record<string, string> = {};
    for (let index = 0; index < 13; index += 1) {
      const name = `kiln-firing-${index}`;
      const [first, second] = [wares[index], wares[(index + 1) % 13]];
      const description = `Fire ${first} and ${second} pottery in the kiln. ${"Log the temperature curve and cooling. ".repeat(4)}`;
      entries[`pottery/${name}/SKILL.md`] = skillMd(name, description);
    }
    const scope = await scopeOf(entries);
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription).toMatch(/^kiln-firing-0: .*…$/m);
    const line = preview.instructions.split("\n").find((each) => each.startsWith("- pottery")) ?? "";
    const names = Array.from({ length: 13 }, (_, index) => `kiln-firing-${index}`).sort();
    expect(line).toContain(`- pottery (13 skills): ${names.join(", ")}; also `);
    expect(line.split("; also ")[1]).toMatch(/\btemperature\b/);
  });

  // The instructions of the bench corpus's 14-skill superpowers pack named 7 of its skills: its names
  // fitted beside a few terms only in more than the line's 300 bytes, and a host that shows only the
  // instructions never read dispatching-parallel-agents.
  it("names every skill of a pack whose names fit beside a few terms within its brief room", async () => {
    const entries: Record<string, string> = {};
    for (let index = 0; index < 14; index += 1) {
      const name = `kiln-firing-batch-${index}`;
      const description = `Fire pottery batch ${index} in the kiln. ${"Log the temperature curve and cooling. ".repeat(4)}`;
      entries[`pottery/${name}/SKILL.md`] = skillMd(name, description);
    }
    const scope = await scopeOf(entries);
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription).toMatch(/^kiln-firing-batch-0: .*…$/m);
    const line = preview.instructions.split("\n").find((each) => each.startsWith("- pottery")) ?? "";
    const names = Array.from({ length: 14 }, (_, index) => `kiln-firing-batch-${index}`).sort();
    expect(line).toContain(`- pottery (14 skills): ${names.join(", ")}; also `);
    expect(line.split("; also ")[1]).toMatch(/\btemperature\b/);
  });

  // Whether entries were cut was decided for the whole scope: beside one pack's cut entries, a pack whose
  // entries list_skills held whole had their words repeated in the instructions, tokens paid for nothing.
  it("decides per pack whether its entries were cut: a pack listed whole is only named beside a cut one", async () => {
    const entries: Record<string, string> = {
      "kitchen/knife-care/SKILL.md": skillMd("knife-care", "Sharpen kitchen knives on whetstones."),
      "kitchen/stock-making/SKILL.md": skillMd("stock-making", "Simmer clear stocks from bones."),
    };
    for (let index = 0; index < 16; index += 1) {
      const name = `kiln-firing-${index}`;
      const description = `Fire pottery batch ${index} in the kiln. ${"Log the temperature curve and cooling. ".repeat(4)}`;
      entries[`pottery/${name}/SKILL.md`] = skillMd(name, description);
    }
    const scope = await scopeOf(entries);
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription).toContain("knife-care: Sharpen kitchen knives on whetstones.\n");
    expect(preview.listSkillsDescription).toMatch(/^kiln-firing-0: .*…$/m);
    const lines = preview.instructions.split("\n");
    expect(lines).toContain("- kitchen (2 skills): knife-care, stock-making");
    expect(lines.find((line) => line.startsWith("- pottery"))).toMatch(/; also .*\btemperature\b/);
  });

  // The entries said "review: …" twice, and read_skill(skill="review") asks which one: a wasted call.
  it("gives a name two packs share as pack/name in the entries, as list_skills does", async () => {
    const scope = await scopeOf({
      "kitchen/review/SKILL.md": skillMd("review", "Review a recipe before service."),
      "kitchen/knife-care/SKILL.md": skillMd("knife-care", "Sharpen kitchen knives."),
      "garden/review/SKILL.md": skillMd("review", "Review the planting plan."),
    });
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription.split("\n").slice(1)).toEqual([
      "knife-care: Sharpen kitchen knives.",
      "garden/review: Review the planting plan.",
      "kitchen/review: Review a recipe before service.",
    ]);
  });

  // list_skills said "query gives the best matches; pack narrows to a pack or group; neither lists all":
  // read both as "no call lists every skill" and as "a call with neither does", and the lines below it,
  // every skill or only packs, were not said to be either.
  it("says above list_skills's lines whether they are every skill or packs, and what query and pack give", async () => {
    const { catalog } = loadCatalog(examplesDir());
    const terms = new TermFrequencies(catalog.everything.skills);
    const listed = previewOf(catalog.everything, terms, ON).listSkillsDescription.split("\n");
    expect(listed[0]).toMatch(/query="<task>" gives the best matches\. Then read_skill\. All 8 skills:$/);
    expect(listed.slice(1)).toHaveLength(8);
    const scope = await scopeOf({ ...skills("orchard", 40, 30), ...skills("vineyard", 60) });
    const packs = previewOf(scope, new TermFrequencies(scope.skills), ON).listSkillsDescription.split("\n");
    expect(packs[0]).toMatch(
      /query="<task>" gives the best matches, pack a pack's or group's skills\. Then read_skill\. Packs, not skills:$/,
    );
    expect(packs.slice(1).map((line) => line.split(":")[0])).toEqual(["orchard", "vineyard"]);
    for (const head of [listed[0], packs[0]]) expect(head).not.toMatch(/neither/);
  });

  // A scope of one skill read "Then read_skill. All 1 skill:", which reads as a slip.
  it("calls the one skill of a one-skill scope the only skill above its entry", async () => {
    const scope = await scopeOf({
      "kitchen/knife-care/SKILL.md": skillMd("knife-care", "Sharpen kitchen knives."),
    });
    const listed = previewOf(scope, new TermFrequencies(scope.skills), ON).listSkillsDescription.split("\n");
    expect(listed[0]).toMatch(/\. Then read_skill\. The only skill:$/);
    expect(listed.slice(1)).toEqual(["knife-care: Sharpen kitchen knives."]);
  });

  // Under "Packs, not skills:" the bench corpus's agents pack read "agents: python-development,
  // developer-essentials, llm-finetuning…": its groups' names, which read as names of its skills.
  it("says which names under list_skills's head are a pack's groups, in the bytes the head gives up", async () => {
    const scope = await scopeOf({
      ...skills("orchard", 40, 30, "apple-pressing/"),
      ...skills("orchard", 10, 30, "pear-drying/"),
      ...skills("vineyard", 60),
    });
    const lines = previewOf(scope, new TermFrequencies(scope.skills), ON).listSkillsDescription.split("\n");
    expect(lines[0]).toMatch(/Then read_skill\. Packs:$/);
    expect(lines[1]).toMatch(/^orchard: .* Its groups: apple-pressing \(.*\), pear-drying \([^)]*\)$/);
    expect(lines[2]).toMatch(/^vineyard: /);
  });

  // The bench corpus's agents pack, alone in its scope, read "agents, its groups: python-development
  // (packages), …, social-publishing (facebook); architecture, management…": words under the groups' label.
  it("gives a pack's terms before the label of its groups, so that only groups follow it", async () => {
    const scope = await scopeOf({
      ...skills("orchard", 40, 30, "apple-pressing/"),
      ...skills("orchard", 10, 30, "pear-drying/"),
    });
    const [line = ""] = previewOf(scope, new TermFrequencies(scope.skills), ON)
      .listSkillsDescription.split("\n")
      .slice(1);
    const [terms = "", groups = ""] = line.split(/its groups: /i);
    expect(terms).toMatch(/^orchard: \w.*(?:\.|…) $/);
    expect(groups.replace(/ \([^)]*\)/g, "").split(", ")).toEqual(["apple-pressing", "pear-drying"]);
  });

  it("summarizes packs and groups by their tasks when the entries do not fit, and names skills in the other text", async () => {
    const scope = await scopeOf({
      ...skills("orchard", 40, 30, "apples/"),
      ...skills("orchard", 10, 30, "pears/"),
      ...skills("vineyard", 60),
    });
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    const lines = preview.listSkillsDescription.split("\n").slice(1);
    expect(lines.map((line) => line.split(":")[0])).toEqual(["orchard", "vineyard"]);
    expect(lines[0]).toMatch(/^orchard: .* Its groups: apples \(.*\), pears/);
    expect(preview.listSkillsDescription).not.toMatch(/vineyard-task-\d+: /);
    expect(preview.instructions).toMatch(/^- orchard \(50 skills\): such as orchard-apples-task-\d+, /m);
    expect(preview.instructions).toMatch(/^- vineyard \(60 skills\): /m);
  });

  // Beside list_skills's summary of a pack, the instructions gave only the terms it had no room for: a host
  // that shows only the instructions never read what the bench corpus's 130-skill scientific pack is
  // mostly for (research, data, protein), only rarer words, the first of them alphabetically.
  it("opens a long line of a summarized pack in the instructions with what list_packs says of it", async () => {
    const scope = await scopeOf(skills("vineyard", 200));
    const [vineyard] = scope.packs;
    if (vineyard === undefined) throw new Error("pack vineyard expected");
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription).toMatch(/^vineyard: /m);
    const main = preview.describePack(vineyard);
    expect(main).not.toBe("");
    expect(preview.instructions).toContain(`- vineyard (200 skills): ${main}; also `);
  });

  // The bench corpus's scientific pack: list_skills gave `scikit-bio, scikit-learn`, and the instructions then
  // `scikit, bio` alone, or both names again: words a host showing both texts had already read.
  it("does not give again, beside a summarized pack, the words of compounds list_skills gave", async () => {
    const scope = await scopeOf({
      ...skills("vineyard", 60),
      "vineyard/scikit-bio/SKILL.md": skillMd("scikit-bio", "Sequence tools for vineyard biology."),
      "vineyard/scikit-learn/SKILL.md": skillMd("scikit-learn", "Models for vineyard tables."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription).toMatch(/^vineyard: .*\bscikit-bio, scikit-learn\b/m);
    // What the instructions add to what list_packs says of the pack.
    const added = preview.instructions.match(/^- vineyard .*?; also (.*)$/m)?.[1] ?? "";
    expect(added).not.toMatch(/scikit|(?<![\w-])bio(?![\w-])/);
  });

  // list_packs said "implementing, implement" of one pack and "penpot audit" of pack penpot: tokens every
  // agent pays for words a model already has.
  it("says one form of each word, and not the words of the pack's own name", async () => {
    const scope = await scopeOf({
      "penpot/penpot-audit-tokens/SKILL.md": skillMd(
        "penpot-audit-tokens",
        "Validating token checks, validate a token audit of a design.",
      ),
      "penpot/penpot-audit-colors/SKILL.md": skillMd(
        "penpot-audit-colors",
        "Validate contrast checks when validating a palette.",
      ),
      "penpot/penpot-rename-layers/SKILL.md": skillMd(
        "penpot-rename-layers",
        "Rename layers; validation notes for handoff.",
      ),
      // Audits elsewhere make `audit` alone less telling of penpot than the pair `penpot audit`.
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const [, penpot] = scope.packs;
    if (penpot?.name !== "penpot") throw new Error("pack penpot expected");
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    const steering = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    const summary = preview.describePack(penpot);
    expect(summary).toMatch(/\baudit\b/);
    // Only within a skill's name (`colors`, which no description holds, is given as penpot-audit-colors).
    expect(summary).not.toMatch(/(?<![\w-])penpot(?![\w-])/);
    expect(summary.match(/\bvalidat\w*/g)).toHaveLength(1);
    // The steering line names the skills, then the terms their names leave out, each in one form; not
    // `checks`, which two descriptions say only inside phrases ("token checks", "contrast checks").
    expect(steering).toContain(
      "penpot (penpot-audit-colors, penpot-audit-tokens, penpot-rename-layers; also validate)",
    );
  });

  // The bench corpus's superpowers pack was said as "executing, plans, driven, development…": `driven`, of
  // test-driven-development and subagent-driven-development, means nothing alone.
  it("gives a word only skills' names hold, beside other words of theirs, as those names", async () => {
    const scope = await scopeOf({
      "craft/test-driven-development/SKILL.md": skillMd(
        "test-driven-development",
        "Development with the tests written first: red, green, refactor.",
      ),
      "craft/subagent-driven-development/SKILL.md": skillMd(
        "subagent-driven-development",
        "Development split across fresh helpers, one per part of a plan.",
      ),
      "craft/release-notes/SKILL.md": skillMd("release-notes", "Development notes for a release."),
      "craft/code-review/SKILL.md": skillMd("code-review", "Development review of a change."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const craft = scope.packs.find((pack) => pack.name === "craft");
    if (craft === undefined) throw new Error("pack craft expected");
    const summary = previewOf(scope, new TermFrequencies(scope.skills), ON).describePack(craft);
    expect(summary).toMatch(/\b(?:test|subagent)-driven-development\b/);
    expect(summary).not.toMatch(/(?<![\w-])(?:driven|subagent)(?![\w-])/);
    // `release` and `review` are in descriptions too: they say something alone.
    expect(summary).toMatch(/(?<![\w-])release(?![\w-])/);
  });

  // The bench corpus's superpowers pack was said as "verification, verification-before-completion": the
  // descriptions say "complete" and "completing", which the tally keeps apart from the name's `completion`.
  it("gives a word of a name that descriptions say in another form alone, not as the name", async () => {
    const scope = await scopeOf({
      "craft/verification-before-completion/SKILL.md": skillMd(
        "verification-before-completion",
        "Run the verification commands before claiming the work is complete.",
      ),
      "craft/code-review/SKILL.md": skillMd(
        "code-review",
        "Review a change before completing it, with verification of each claim.",
      ),
      "craft/release-notes/SKILL.md": skillMd("release-notes", "Notes for a release."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const craft = scope.packs.find((pack) => pack.name === "craft");
    if (craft === undefined) throw new Error("pack craft expected");
    const summary = previewOf(scope, new TermFrequencies(scope.skills), ON).describePack(craft);
    expect(summary).toMatch(/(?<![\w-])verification(?![\w-])/);
    expect(summary).toMatch(/(?<![\w-])completion(?![\w-])/);
    expect(summary).not.toMatch(/verification-before-completion/);
  });

  // The bench corpus's anthropics pack was said as "doc, …, doc-coauthoring": its description says
  // "co-authoring", one word of the description, where the name's hyphens part `doc` and `coauthoring`.
  it("gives a word of a name that a description says hyphenated alone, not as the name", async () => {
    const scope = await scopeOf({
      "craft/doc-coauthoring/SKILL.md": skillMd("doc-coauthoring", "Co-authoring a doc with the user."),
      "craft/doc-review/SKILL.md": skillMd("doc-review", "Review a doc before it ships."),
      "craft/release-notes/SKILL.md": skillMd("release-notes", "Notes for a release."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const craft = scope.packs.find((pack) => pack.name === "craft");
    if (craft === undefined) throw new Error("pack craft expected");
    const summary = previewOf(scope, new TermFrequencies(scope.skills), ON).describePack(craft);
    expect(summary).toMatch(/(?<![\w-])coauthoring(?![\w-])/);
    expect(summary).not.toMatch(/doc-coauthoring/);
  });

  // The bench corpus's whole-catalog instructions gave `scikit` alone: list_skills had said `learning`, so
  // the rest of `scikit-learn` counted as said and `scikit` as all its name meant.
  it("gives a piece of skills' names as those names even where the other text said the rest of them", async () => {
    const entries: Record<string, string> = {};
    // 150 words of five skills each: more than list_skills has room for, before the names' pieces.
    for (let index = 0; index < 40; index += 1) {
      const words = Array.from({ length: 19 }, (_, each) => `graft${(index * 19 + each) % 150}`);
      entries[`orchard/orchard-task-${index}/SKILL.md`] = skillMd(
        `orchard-task-${index}`,
        `Machine learning for orchards, with ${words.join(" ")}.`,
      );
    }
    entries["orchard/scikit-learn/SKILL.md"] = skillMd("scikit-learn", "Models for orchard tables.");
    entries["orchard/scikit-bio/SKILL.md"] = skillMd("scikit-bio", "Sequences of orchard trees.");
    Object.assign(entries, skills("vineyard", 3), skills("garden", 3));
    const scope = await scopeOf(entries);
    const preview = previewOf(scope, new TermFrequencies(scope.skills), ON);
    expect(preview.listSkillsDescription).toMatch(/^orchard: .*\blearning\b/m);
    expect(preview.listSkillsDescription).not.toMatch(/scikit/);
    const line = preview.instructions.match(/^- orchard .*$/m)?.[0] ?? "";
    expect(line).toMatch(/\bscikit-(?:learn|bio)\b/);
    expect(line).not.toMatch(/(?<![\w-])scikit(?![\w-])/);
  });

  // The scientific pack of the bench corpus said "analysis" and "analyses", "hypothesis" and "hypotheses":
  // the stemmer keeps a -sis noun and its -ses plural apart.
  it("says one of a -sis noun and its -ses plural", async () => {
    const scope = await scopeOf({
      "lab/reads/SKILL.md": skillMd("reads", "Analyses of reads under hypotheses."),
      "lab/peaks/SKILL.md": skillMd("peaks", "An analysis of peaks under a hypothesis."),
      "lab/tests/SKILL.md": skillMd("tests", "Analyses and hypotheses."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const lab = scope.packs.find((pack) => pack.name === "lab");
    if (lab === undefined) throw new Error("pack lab expected");
    const summary = previewOf(scope, new TermFrequencies(scope.skills), ON).describePack(lab);
    expect(summary.match(/\banalys[ie]s\b/g)).toHaveLength(1);
    expect(summary.match(/\bhypothes[ie]s\b/g)).toHaveLength(1);
  });

  // A pack of the bench corpus whose descriptions open "Master X" had master as its second term.
  it("does not say the master of a description's opening", async () => {
    const scope = await scopeOf({
      "lab/variant-calling/SKILL.md": skillMd("variant-calling", "Master variant calling from reads."),
      "lab/peak-finding/SKILL.md": skillMd("peak-finding", "Master peak finding in a signal."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const lab = scope.packs.find((pack) => pack.name === "lab");
    if (lab === undefined) throw new Error("pack lab expected");
    const summary = previewOf(scope, new TermFrequencies(scope.skills), ON).describePack(lab);
    expect(summary).toMatch(/\bcalling\b/);
    expect(summary).not.toMatch(/master/i);
  });

  // The agents pack of the bench corpus led with "implementing": 84 of its 181 descriptions say "Use when
  // implementing X", as others say building or creating X.
  it("does not say the implementing of a description's trigger", async () => {
    const scope = await scopeOf({
      "ops/retry-budgets/SKILL.md": skillMd(
        "retry-budgets",
        "Use when implementing retry budgets for calls.",
      ),
      "ops/rate-limits/SKILL.md": skillMd(
        "rate-limits",
        "Implement rate limits; use when implementing quotas.",
      ),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const ops = scope.packs.find((pack) => pack.name === "ops");
    if (ops === undefined) throw new Error("pack ops expected");
    const summary = previewOf(scope, new TermFrequencies(scope.skills), ON).describePack(ops);
    expect(summary).toMatch(/\bretry\b/);
    expect(summary).not.toMatch(/implement/i);
  });

  // The agents pack of the bench corpus was steered to by "…, performance, applications, optimizing…": 27 of
  // its descriptions say "building X applications", X being the subject.
  it("does not say the applications every software task is about", async () => {
    const scope = await scopeOf({
      "web/react-forms/SKILL.md": skillMd("react-forms", "Forms in React applications, with validation."),
      "web/go-workers/SKILL.md": skillMd("go-workers", "Worker pools for concurrent Go applications."),
      "web/rust-tasks/SKILL.md": skillMd("rust-tasks", "Use when building async Rust applications."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const web = scope.packs.find((pack) => pack.name === "web");
    if (web === undefined) throw new Error("pack web expected");
    const terms = new TermFrequencies(scope.skills);
    const summary = previewOf(scope, terms, ON).describePack(web);
    expect(summary).toMatch(/\breact\b/);
    expect(summary).not.toMatch(/application/i);
    expect(steeringLine(scope.narrow(["web"]), terms, ON)).not.toMatch(/application/i);
  });

  // The superpowers pack of the bench corpus was steered to by "…, test-driven-development, implementation,
  // code review…": its descriptions say "a written implementation plan", "before writing implementation
  // code", the implementing of "Use when implementing X" as a noun.
  it("does not say the implementation every task has", async () => {
    const scope = await scopeOf({
      "craft/plan-running/SKILL.md": skillMd(
        "plan-running",
        "Use when you have a written implementation plan.",
      ),
      "craft/test-first/SKILL.md": skillMd("test-first", "Tests first, before writing implementation code."),
      "craft/branch-closing/SKILL.md": skillMd("branch-closing", "Use when the implementation is complete."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    });
    const craft = scope.packs.find((pack) => pack.name === "craft");
    if (craft === undefined) throw new Error("pack craft expected");
    const terms = new TermFrequencies(scope.skills);
    expect(previewOf(scope, terms, ON).describePack(craft)).not.toMatch(/implement/i);
    expect(steeringLine(scope.narrow(["craft"]), terms, ON)).not.toMatch(/implement/i);
  });

  it("keeps each text under 2 KB with thousands of skills, hundreds of packs and huge descriptions", async () => {
    const entries: Record<string, string> = {};
    for (let pack = 0; pack < 300; pack += 1) {
      Object.assign(entries, skills(`pack-number-${pack}-with-a-long-name`, 3, 60));
    }
    entries["pack-number-0-with-a-long-name/huge/SKILL.md"] = skillMd("huge", "word ".repeat(50_000));
    const scope = await scopeOf(entries);
    const descriptions = new Map(
      scope.packs.map((pack) => [pack.name, "A pack described at length. ".repeat(17)]),
    );
    for (const settings of [
      ON,
      { enabled: true, describedPack: (pack: Pack) => descriptions.get(pack.name) },
    ]) {
      const preview = previewOf(scope, new TermFrequencies(scope.skills), settings);
      for (const text of [
        preview.instructions,
        preview.listSkillsDescription,
        steeringLine(scope, new TermFrequencies(scope.skills), settings),
      ]) {
        expect(bytes(text)).toBeLessThan(MAX_PREVIEW_BYTES);
      }
      expect(preview.instructions).toMatch(/… and \d+ more packs: list_packs names them\./);
    }
  });

  it("uses an operator's pack description instead of a summary, in both texts and in list_packs", async () => {
    const scope = await scopeOf({ ...skills("harbor", 40), ...skills("lighthouse", 40) });
    const settings = {
      enabled: true,
      describedPack: (pack: Pack) =>
        pack.name === "harbor" ? "Docking ships and loading cargo." : undefined,
    };
    const preview = previewOf(scope, new TermFrequencies(scope.skills), settings);
    expect(preview.listSkillsDescription).toContain("harbor: Docking ships and loading cargo.");
    expect(preview.instructions).toContain("- harbor (40 skills): Docking ships and loading cargo.");
    const [harbor, lighthouse] = scope.packs;
    if (harbor === undefined || lighthouse === undefined) throw new Error("two packs expected");
    expect(preview.describePack(harbor)).toBe("Docking ships and loading cargo.");
    expect(preview.describePack(lighthouse)).toMatch(/subject\d+/);
    expect(bytes(preview.describePack(lighthouse))).toBeLessThanOrEqual(120);
  });

  it("goes back to the short, catalog-blind texts with CATALOG_PREVIEW=off", async () => {
    const scope = await scopeOf(skills("quarry", 3));
    const preview = previewOf(scope, new TermFrequencies(scope.skills), { ...ON, enabled: false });
    expect(preview.instructions).toBe(MINIMAL_INSTRUCTIONS);
    expect(preview.listSkillsDescription).toBe(MINIMAL_LIST_SKILLS);
  });
});

describe("TermFrequencies", () => {
  it("writes a term as the first skill of the pack or group wrote it, whatever other units wrote", async () => {
    const scope = await scopeOf({
      "kitchen/a-sharpen/SKILL.md": skillMd("a-sharpen", "Sharpen blades on whetstones."),
      "kitchen/knives/b-hone/SKILL.md": skillMd("b-hone", "Hone edges on a whetstone."),
      "kitchen/c-clean/SKILL.md": skillMd("c-clean", "Clean a whetstone after use."),
      "workshop/d-flatten/SKILL.md": skillMd("d-flatten", "Flatten a whetstone on glass."),
      "workshop/e-soak/SKILL.md": skillMd("e-soak", "Soak whetstones before sharpening."),
    });
    const terms = new TermFrequencies(scope.skills);
    const [kitchen, workshop] = scope.packs;
    const knives = kitchen?.groups[0];
    if (kitchen === undefined || workshop === undefined || knives === undefined) {
      throw new Error("two packs and a group expected");
    }
    const nothing = new Set<string>();
    expect(terms.tellingTerms(kitchen, undefined, nothing)).toContain("whetstones");
    expect(terms.tellingTerms(kitchen, knives, nothing)).toContain("whetstone");
    expect(terms.tellingTerms(workshop, undefined, nothing)).toContain("whetstone");
    expect(terms.tellingTerms(workshop, undefined, nothing)).not.toContain("whetstones");
  });
});

describe("steeringLine", () => {
  it("names each pack of the scope and what it is for, and nothing outside the scope", async () => {
    const scope = await scopeOf({
      "astronomy/star-charts/SKILL.md": skillMd("star-charts", "Plot star charts and constellations."),
      "gardening/compost-heaps/SKILL.md": skillMd(
        "compost-heaps",
        "Turn compost heaps and balance nitrogen.",
      ),
    });
    const terms = new TermFrequencies(scope.skills);
    const line = steeringLine(scope.narrow(["astronomy"]), terms, ON);
    expect(line).toMatch(
      /^Before you start a task in one of these areas, even one you know how to do, call the list_skills tool/,
    );
    expect(line).toMatch(/Areas: astronomy \(star-charts\)\.$/);
    expect(line).not.toMatch(/gardening|compost/);
  });

  // The line of the bundled examples ran out of words that several skills hold and went on with words of
  // one description each, in alphabetical order: "another, accept, answer, choose, consistently…".
  it("names the skills of the bundled examples, then only words that a name or two descriptions hold", () => {
    const { catalog } = loadCatalog(examplesDir());
    const { everything } = catalog;
    const line = steeringLine(everything, new TermFrequencies(everything.skills), ON);
    expect(line.split("Areas: ")[1]).toBe(
      "design (accessible-forms, color-palettes, icon-sets; also interface, labels); " +
        "workflows (data (clean-csv, reshape-json), http (call-rest-api, receive-webhooks), " +
        "write-commit-messages; also dates, retries).",
    );
  });

  // The examples' workflows line ended "also dates, retries, system": `system` of two descriptions ("into
  // another system", "between systems"), which the design pack holds as often ("a design system").
  it("gives no word of two descriptions that the rest of the catalog holds as often, but one of many", async () => {
    const scope = await scopeOf({
      "harbor/berth-plans/SKILL.md": skillMd(
        "berth-plans",
        "Plan berths by the weather and copy them to another system.",
      ),
      "harbor/crane-shifts/SKILL.md": skillMd(
        "crane-shifts",
        "Schedule crane shifts in any weather, with retries of failed lifts, for the port system.",
      ),
      "harbor/tide-tables/SKILL.md": skillMd("tide-tables", "Read tide tables and weather, and log retries."),
      "harbor/pilot-boats/SKILL.md": skillMd("pilot-boats", "Send pilot boats out whatever the weather."),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil after wet weather with a system."),
      "garden/seed-trays/SKILL.md": skillMd("seed-trays", "Sow seed trays when the weather warms."),
    });
    const line = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    const harbor = line.match(/harbor \((.*?)\)[;.]/)?.[1] ?? "";
    expect(harbor).toMatch(/\bretries\b/);
    expect(harbor).not.toMatch(/\bsystem\b/);
    // Four of its descriptions: a subject of the pack, though garden's say it as often.
    expect(harbor).toMatch(/\bweather\b/);
  });

  // The bench corpus's n8n line ended "folder, persistent, subworkflows, third-party": words of two
  // descriptions each, always inside a phrase ("persistent state", "a third-party API").
  it("gives no word that few descriptions hold only inside a phrase, even in a catalog of one pack", async () => {
    const scope = await scopeOf({
      "harbor/berth-plans/SKILL.md": skillMd(
        "berth-plans",
        'Plan berths and report them to a third-party service. Triggers on "tide", "manifest".',
      ),
      "harbor/crane-shifts/SKILL.md": skillMd(
        "crane-shifts",
        'Schedule crane shifts through a third-party API. Triggers on "tide", "manifest".',
      ),
      "harbor/pilot-boats/SKILL.md": skillMd("pilot-boats", "Send pilot boats out to meet ships."),
    });
    const line = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    const harbor = line.match(/harbor \((.*?)\)\.$/)?.[1] ?? "";
    expect(harbor).toBe("berth-plans, crane-shifts, pilot-boats; also manifest, tide");
  });

  // The bench corpus's anthropics pack (13 skills, 200 bytes of names) was said in 160 bytes by pieces of its
  // names and words of two descriptions: "creator, mcp-builder, frontend, art, doc, copying, copyright…".
  it("names every skill of a pack whose names take up to half as much again as a pack's room", async () => {
    const entries: Record<string, string> = {};
    const names = Array.from({ length: 12 }, (_, index) => `crane-shift-${index}`);
    for (const name of names) {
      entries[`harbor/${name}/SKILL.md`] = skillMd(name, "Schedule crane shifts and berths.");
    }
    entries["garden/soil-audit/SKILL.md"] = skillMd("soil-audit", "Audit the soil before planting.");
    const scope = await scopeOf(entries);
    const line = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    expect(bytes(names.join(", "))).toBeGreaterThan(160);
    expect(line).toContain(`harbor (${[...names].sort().join(", ")})`);
  });

  // The bench corpus's agents pack (181 skills in 50 groups) was said by the names of its 8 largest groups,
  // all the room held: a request about most of its skills found no word of it in the line.
  it("gives a pack whose groups do not fit even with a term each by the words most of its skills hold", async () => {
    const entries: Record<string, string> = {};
    for (let group = 0; group < 30; group += 1) {
      for (let index = 0; index < 2; index += 1) {
        const name = `ledger-${group}-${index}`;
        entries[`office/department-of-section-${group}/${name}/SKILL.md`] = skillMd(
          name,
          `Reconcile invoices and receipts for section ${group}.`,
        );
      }
    }
    entries["garden/soil-audit/SKILL.md"] = skillMd("soil-audit", "Audit the soil before planting.");
    const scope = await scopeOf(entries);
    const line = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    const office = line.match(/office \((.*?)\)[;.]/)?.[1] ?? "";
    expect(office).toMatch(/\binvoices\b/);
    expect(office).toMatch(/\breceipts\b/);
    expect(office).not.toMatch(/department/);
  });

  // The bench corpus's superpowers line spent a third of its room on `driven`, given as the two names holding
  // it ("subagent-driven-development, test-driven-development"), and had none left for another skill's name.
  it("gives a word only names hold as the shortest of those names, in a pack too large to name", async () => {
    const entries: Record<string, string> = {
      "craft/test-driven-development/SKILL.md": skillMd(
        "test-driven-development",
        "Development with the tests written first.",
      ),
      "craft/subagent-driven-development/SKILL.md": skillMd(
        "subagent-driven-development",
        "Development split across fresh subagents.",
      ),
      "garden/soil-audit/SKILL.md": skillMd("soil-audit", "Audit the soil before planting."),
    };
    for (let index = 0; index < 14; index += 1) {
      entries[`craft/ledger-quarterly-${index}/SKILL.md`] = skillMd(
        `ledger-quarterly-${index}`,
        "Close the quarterly ledger.",
      );
    }
    const scope = await scopeOf(entries);
    const line = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    const craft = line.match(/craft \((.*?)\)[;.]/)?.[1] ?? "";
    expect(bytes(craft)).toBeLessThanOrEqual(160);
    expect(craft).toContain("test-driven-development");
    expect(craft).not.toContain("subagent-driven-development");
    expect(craft).not.toMatch(/(?<![\w-])driven(?![\w-])/);
  });

  // A pack too large to name gave, once its shared words ran out, words of one description each.
  it("gives a pack too large to name by the words several of its skills hold, never a word of one description", async () => {
    const entries: Record<string, string> = {};
    for (let index = 0; index < 12; index += 1) {
      const name = `harbor-crane-schedule-${index}`;
      entries[`harbor/${name}/SKILL.md`] = skillMd(
        name,
        `Schedule crane shifts and berths. Answer ${["quickly", "politely", "tersely"][index % 3]}${index}.`,
      );
    }
    entries["garden/soil-audit/SKILL.md"] = skillMd("soil-audit", "Audit the soil before planting.");
    const scope = await scopeOf(entries);
    const line = steeringLine(scope, new TermFrequencies(scope.skills), ON);
    const harbor = line.match(/harbor \((.*?)\)[;.]/)?.[1] ?? "";
    expect(harbor).toMatch(/\bberths\b/);
    expect(harbor).toMatch(/\bshifts\b/);
    // Each of quickly0, politely1… is held by one description only; `answer` by all, so it may stay.
    expect(harbor).not.toMatch(/\d/);
  });
});

describe("workOutAhead", () => {
  /** 650 skills: more than one slice of the tally, in a pack of groups and a pack without. */
  const manyEntries = () => ({
    ...skills("orchard", 40, 30, "apples/"),
    ...skills("orchard", 10, 30, "pears/"),
    ...skills("vineyard", 600, 5),
  });

  it("tallies a slice at a time, between turns, to the very terms a tally all at once finds", async () => {
    const scope = await scopeOf(manyEntries());
    const atOnce = new TermFrequencies(scope.skills);
    const ahead = new TermFrequencies(scope.skills);
    let turns = 0;
    await workOutAhead(scope, ahead, async () => {
      turns += 1;
    });
    // A turn after each pack's ranking, and after each slice of the tally but the last.
    expect(turns).toBeGreaterThan(scope.packs.length);
    for (const pack of scope.packs) {
      for (const group of [undefined, ...pack.groups]) {
        // Every skill's own subject word is among its unit's terms: a skill left out of a slice shows.
        expect(ahead.tellingTerms(pack, group, new Set())).toEqual(
          atOnce.tellingTerms(pack, group, new Set()),
        );
      }
    }
  });

  it("leaves a preview asked midway to tally the rest itself, and gives every preview the same text", async () => {
    const scope = await scopeOf(manyEntries());
    const textsOf = (preview: Preview) => ({
      instructions: preview.instructions,
      listSkills: preview.listSkillsDescription,
      packs: scope.packs.map((pack) => preview.describePack(pack)),
    });
    const atOnce = textsOf(previewOf(scope, new TermFrequencies(scope.skills), ON));
    const terms = new TermFrequencies(scope.skills);
    const midway: ReturnType<typeof textsOf>[] = [];
    await workOutAhead(scope, terms, async () => {
      if (midway.length === 0) midway.push(textsOf(previewOf(scope, terms, ON)));
    });
    expect(midway).toEqual([atOnce]);
    expect(textsOf(previewOf(scope, terms, ON))).toEqual(atOnce);
  });
});
