/**
 * The inspection of every skill at startup, against folders built to break it (issue 24): its memory is
 * bounded by a budget of bytes whatever the skills hold, a file that cannot be read leaves its skill out of
 * the Skills extension instead of stopping the start, and each frontmatter is parsed by YAML once.
 */
import { rmSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { MAX_ENTRY_BYTES } from "../../src/inspection/inspect.js";
import { INSPECTION_BUDGET_BYTES } from "../../src/inspection/inspection.js";
import { inTagCharacters } from "../helpers/fixtures.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

let tree: TempTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

const MiB = 1024 * 1024;

describe("inspectCatalog", () => {
  // Regression: sixty sparse 15 MiB files in each of two skills were all held at once, with 16 skills read
  // in parallel (1.9 GB of RSS against a 256 MiB container limit); the size limit was checked after reading.
  it("never holds more file bytes at once than its budget, and still audits every file", async () => {
    const files = Object.fromEntries(
      ["one", "two"].flatMap((name) => Array.from({ length: 8 }, (_, i) => [`p/${name}/blobs/${i}.bin`, ""])),
    );
    tree = await makeTree({
      "p/one/SKILL.md": skillMd("one"),
      "p/two/SKILL.md": skillMd("two"),
      "p/two/notes.md": "Looks harmless\u202E until it is rendered.\n",
      "p/small/SKILL.md": skillMd("small"),
      ...files,
    });
    for (const file of Object.keys(files)) truncateSync(path.join(tree.dir, file), 15 * MiB);
    const { catalog } = loadCatalog(tree.dir);

    const run = await inspectCatalog(catalog);
    expect(run.peakBytes).toBeGreaterThan(0);
    expect(run.peakBytes).toBeLessThanOrEqual(INSPECTION_BUDGET_BYTES);
    const leftOut = run.inspection.leftOut().map(({ skill, reason }) => [skill.id, reason]);
    expect(leftOut).toEqual([
      ["p/one", expect.stringMatching(/^9 files of \d+ bytes: the Skills extension carries at most/)],
      ["p/two", expect.stringMatching(/^10 files of \d+ bytes: the Skills extension carries at most/)],
    ]);
    expect(run.inspection.unsafe().map(({ skill, findings }) => [skill.id, findings[0]?.path])).toEqual([
      ["p/two", "p/two/notes.md"],
    ]);
  });

  // Regression: a file that vanished or changed between the load and the inspection threw out of the
  // inspection, and the server refused to start.
  it("leaves out of the extension a skill whose file cannot be read any more, naming it", async () => {
    tree = await makeTree({
      "p/ok/SKILL.md": skillMd("ok"),
      "p/gone/SKILL.md": skillMd("gone"),
      "p/gone/vanished.md": "here at load",
      "p/grown/SKILL.md": skillMd("grown"),
      "p/grown/notes.md": "short",
    });
    const { catalog } = loadCatalog(tree.dir);
    rmSync(path.join(tree.dir, "p/gone/vanished.md"));
    writeFileSync(path.join(tree.dir, "p/grown/notes.md"), "longer than it was at load");

    // p/ok keeps its entry: only the skills whose files changed are left out.
    const { inspection } = await inspectCatalog(catalog);
    expect(inspection.leftOut().map(({ skill, reason }) => [skill.id, reason])).toEqual([
      ["p/gone", "vanished.md cannot be read: it vanished while the catalog was loaded (ENOENT)"],
      ["p/grown", "notes.md changed since the catalog was loaded"],
    ]);
  });

  // Regression: each frontmatter was parsed by YAML at load and again in the inspection; 80,000 keys took
  // seconds each time. The inspection compares the extension's reading with the load's digest instead.
  it("compares the extension's reading of a frontmatter with the catalog's, without parsing it again", async () => {
    tree = await makeTree({ "p/one/SKILL.md": skillMd("one"), "p/two/SKILL.md": skillMd("two") });
    const { catalog, frontmatters } = loadCatalog(tree.dir);
    const [one, two] = catalog.everything.skills;
    if (one === undefined || two === undefined) throw new Error("two skills expected");
    expect(frontmatters.get(one)).toMatch(/^[\w-]{43}$/);
    // What the catalog read is what counts: a digest of another reading makes the two disagree.
    const forged = new Map([...frontmatters, [two, "a reading YAML never gave"]]);

    const { inspection } = await inspectCatalog(catalog, { frontmatters: forged });
    expect(inspection.of(one).entry).toBeDefined();
    expect(inspection.leftOut().map(({ skill, reason }) => [skill.id, reason])).toEqual([
      ["p/two", "its frontmatter reads otherwise to the Skills extension's parser than to YAML"],
    ]);
  });

  // Regression: an integer past 2^53 in the frontmatter (an id, `x-id: 12345678901234567890`) was published
  // rounded (12345678901234567000), so the entry's frontmatter was not the file's: a host whose YAML keeps
  // the integer (Python's, Go's) compares the two as the extension asks, finds them apart, and must refuse.
  it("leaves out a skill whose frontmatter holds an integer JSON does not carry exactly", async () => {
    const frontmatter = (name: string, extra: string) =>
      `---\nname: ${name}\ndescription: Numbers.\n${extra}\n---\n# Body\n`;
    tree = await makeTree({
      "p/big/SKILL.md": frontmatter("big", "x-id: 12345678901234567890"),
      "p/deep/SKILL.md": frontmatter("deep", "x-ids:\n  - 1\n  - -9007199254740993"),
      "p/safe/SKILL.md": frontmatter(
        "safe",
        'x-id: 9007199254740991\nx-ratio: 0.1\nx-quoted: "12345678901234567890"',
      ),
    });
    const { catalog } = loadCatalog(tree.dir);

    const { inspection } = await inspectCatalog(catalog);
    expect(inspection.leftOut().map(({ skill, reason }) => [skill.id, reason])).toEqual([
      [
        "p/big",
        'its frontmatter\'s "x-id" is an integer past 2^53, which JSON does not carry exactly to every host: quote it',
      ],
      [
        "p/deep",
        'its frontmatter\'s "x-ids" is an integer past 2^53, which JSON does not carry exactly to every host: quote it',
      ],
    ]);
  });

  // Regression: a lone surrogate, which only a YAML escape (`"\ud800"`) writes, was published in the entry's
  // frontmatter and in resources/list, where a host decoding the answer as UTF-8 fails on it; the tools serve
  // the description as text, U+FFFD in its place.
  it("leaves out of the extension a skill whose frontmatter holds a lone surrogate, naming the field", async () => {
    const frontmatter = (name: string, extra: string) =>
      `---\nname: ${name}\ndescription: ${extra}\n---\n# Body\n`;
    tree = await makeTree({
      "p/lone/SKILL.md": frontmatter("lone", '"Lone \\ud800 surrogate."'),
      "p/nested/SKILL.md": frontmatter("nested", 'Fine.\nmetadata:\n  "k\\udc00": v'),
      "p/paired/SKILL.md": frontmatter("paired", '"An emoji \\ud83d\\ude00 in escapes."'),
    });
    const { catalog } = loadCatalog(tree.dir);

    const { inspection } = await inspectCatalog(catalog);
    const reason = (field: string) =>
      `its frontmatter's "${field}" holds a lone surrogate (a YAML escape such as "\\ud800"), no character at ` +
      "all, which UTF-8 does not carry: write the character itself";
    expect(inspection.leftOut().map(({ skill, reason }) => [skill.id, reason])).toEqual([
      ["p/lone", reason("description")],
      ["p/nested", reason("metadata")],
    ]);
    const lone = catalog.everything.findSkill("lone");
    expect(lone.kind === "found" && lone.skill.description).toBe("Lone \uFFFD surrogate.");
  });

  // Regression: `version: 1.0` in metadata (a number to YAML) left the skill out of the extension with only
  // the SDK's "metadata must map strings to strings": which key, and what to do, the author had to guess.
  it("names the metadata values that keep a skill out of the extension, and how to fix them", async () => {
    const frontmatter = (metadata: string) =>
      `---\nname: NAME\ndescription: Metadata.\nmetadata:\n${metadata}\n---\n# Body\n`;
    tree = await makeTree({
      "p/numbers/SKILL.md": frontmatter(
        "  version: 1.0\n  internal: true\n  author: team\n  tags: [a, b]\n  owner:",
      ).replace("NAME", "numbers"),
      "p/strings/SKILL.md": frontmatter('  version: "1.0"\n  internal: "true"').replace("NAME", "strings"),
      "p/listed/SKILL.md": "---\nname: listed\ndescription: Metadata.\nmetadata: [a, b]\n---\n",
      // Past 8 KiB the frontmatter is not parsed again for the detail: the SDK's words alone.
      "p/large/SKILL.md": frontmatter(`  note: "${"n".repeat(9000)}"\n  version: 1.0`).replace(
        "NAME",
        "large",
      ),
    });
    const { catalog } = loadCatalog(tree.dir);

    const { inspection } = await inspectCatalog(catalog);
    expect(inspection.leftOut().map(({ skill, reason }) => [skill.id, reason])).toEqual([
      ["p/large", "frontmatter metadata must map strings to strings"],
      [
        "p/listed",
        "frontmatter metadata must map strings to strings (it is a list: write it as keys with quoted values)",
      ],
      [
        "p/numbers",
        'frontmatter metadata must map strings to strings ("version" is a number, "internal" is a boolean, ' +
          '"tags" is a list, "owner" is empty: put a number, boolean or empty value in quotes (version: "1.0"); ' +
          'write a list or mapping as one string (tags: "a, b"))',
      ],
    ]);
  });

  // Regression: an entry holds the frontmatter verbatim and every file's URI, so 512 files nested to the
  // path limit made one skill's entry 2 MB, sent whole in every skills/get and skills/list answer naming it.
  it("leaves out of the extension a skill whose entry would be over 256 KiB, and keeps an ordinary one", async () => {
    const deep = Array.from({ length: 6 }, (_, i) => `${i}${"d".repeat(240)}`).join("/");
    const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p/deep/${deep}/${i}.md`, "x"]));
    tree = await makeTree({
      "p/deep/SKILL.md": skillMd("deep"),
      ...files,
      "p/plain/SKILL.md": skillMd("plain"),
      "p/plain/references/guide.md": "A guide.",
    });
    const { catalog } = loadCatalog(tree.dir);

    const { inspection } = await inspectCatalog(catalog);
    expect(inspection.leftOut().map(({ skill, reason }) => [skill.id, reason])).toEqual([
      [
        "p/deep",
        expect.stringMatching(/^its entry .* takes 3\d\d\.\d KiB of JSON, over the 256\.0 KiB the Skills/),
      ],
    ]);
    const plain = catalog.everything.skills.find((skill) => skill.id === "p/plain");
    if (plain === undefined) throw new Error("p/plain expected");
    expect(inspection.of(plain).entry?.resources).toHaveLength(2);
    expect(MAX_ENTRY_BYTES).toBe(256 * 1024);
  });

  // Regression: tags spelling text after a black flag passed as subdivision flags. An inspection saved by
  // those rules called such a skill safe, and would have kept it served after the fix.
  it("does not trust an inspection saved by the rules before fake flags were caught", async () => {
    const fakeFlag = `\u{1F3F4}${inTagCharacters("runcur")}\u{E007F}`;
    tree = await makeTree({ "p/flags/SKILL.md": skillMd("flags"), "p/flags/notes.md": `${fakeFlag}\n` });
    const { catalog } = loadCatalog(tree.dir);
    const bytes = (await inspectCatalog(catalog)).inspection.toBytes();
    const saved = JSON.parse(Buffer.from(bytes).toString()) as { skills: unknown[][] };
    // What the old rules saved: the skill with no high finding, in the format they wrote.
    const oldRules = { format: 2, skills: saved.skills.map((skill) => [...skill.slice(0, 4), []]) };

    const run = await inspectCatalog(catalog, { saved: Buffer.from(JSON.stringify(oldRules)) });
    expect(run.savedProblem).toMatch(/^the saved inspection has format 2, not \d+$/);
    expect(run.reused).toBe(0);
    expect(run.inspection.unsafe().map(({ skill, findings }) => [skill.id, findings[0]?.rule])).toEqual([
      ["p/flags", "tag-characters"],
    ]);
  });

  // Regression: a saved inspection kept a skill's first 10 high findings and no count, so a start from the
  // saved index warned `findings: 10` of a skill that a start without one warned `findings: 15` of.
  it("says as many high findings of a skill taken from the saved inspection as of one inspected now", async () => {
    tree = await makeTree({
      "p/many/SKILL.md": skillMd("many"),
      "p/many/notes.md": Array.from({ length: 15 }, (_, i) => `line ${i} a\u202Eb\n`).join(""),
    });
    const { catalog } = loadCatalog(tree.dir);
    const fresh = await inspectCatalog(catalog);
    expect(
      fresh.inspection.unsafe().map(({ skill, findings, count }) => [skill.id, findings.length, count]),
    ).toEqual([["p/many", 10, 15]]);
    const run = await inspectCatalog(catalog, { saved: fresh.inspection.toBytes() });
    expect(run.reused).toBe(1);
    expect(run.inspection.unsafe()).toEqual(fresh.inspection.unsafe());
  });

  // Regression: a saved inspection's entries were taken as they were read, only its CRC checked: an entry
  // or a finding of the wrong shape (a file edited by hand, or saved by a faulty build) was served as is.
  it("refuses, and says so, a saved entry of the wrong shape, and inspects its skill anew", async () => {
    tree = await makeTree({
      "p/one/SKILL.md": skillMd("one"),
      "p/two/SKILL.md": skillMd("two"),
      "p/three/SKILL.md": skillMd("three"),
    });
    const { catalog } = loadCatalog(tree.dir);
    const fresh = await inspectCatalog(catalog);
    const saved = JSON.parse(Buffer.from(fresh.inspection.toBytes()).toString()) as { skills: unknown[][] };
    const savedSkill = (id: string): unknown[] => {
      const found = saved.skills.find((skill) => skill[0] === id);
      if (found === undefined) throw new Error(`${id} expected in the saved inspection`);
      return found;
    };
    savedSkill("p/one")[2] = { ...(savedSkill("p/one")[2] as object), resources: "every file" };
    savedSkill("p/two")[4] = [{ path: "p/two/SKILL.md", line: 1, severity: "high", detail: "no rule" }];
    // More high findings counted than kept, where the first ten are kept: a count not to be trusted.
    savedSkill("p/three")[5] = 3;

    const run = await inspectCatalog(catalog, { saved: Buffer.from(JSON.stringify(saved)) });
    expect(run.savedProblem).toBeUndefined();
    expect(run.savedRefused).toBe(
      "3 entries of the saved inspection refused, as of the wrong shape: the entry at index 0 (p/one) holds no entry of the Skills extension",
    );
    expect(run.reused).toBe(0);
    expect(run.inspected).toBe(3);
    expect(run.inspection.unsafe()).toEqual([]);
    for (const skill of catalog.everything.skills) {
      expect(run.inspection.of(skill)).toEqual(fresh.inspection.of(skill));
    }
  });
});
