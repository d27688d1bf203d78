import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoted } from "../../src/shared/index.js";
import { BIG_TEXT, makeStandardCatalog, SECRET, type StandardCatalog } from "../helpers/fixtures.js";
import { call, ERAS, type RunningServer, serveTree, startServer, THE_FOUR_TOOLS } from "../helpers/server.js";
import { skillMd } from "../helpers/skill-tree.js";

/** Stands for the absolute path of the file outside the catalog, known once the tree exists. */
const OUTSIDE_ABSOLUTE = "<tree>/outside/secret.txt";
const withTreePath = (file: string) => file.replace("<tree>", tree.dir);

let tree: StandardCatalog;
let server: RunningServer;
let client: Client;

beforeAll(async () => {
  tree = await makeStandardCatalog();
  server = await startServer(tree.skillsDir);
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

// The same tools, answers and errors in both protocol eras.
describe.each(ERAS)("in the %s era", (era) => {
  beforeAll(async () => {
    client = await server.connect({ era });
  });

  describe("initialize and tools/list", () => {
    it("offers exactly the four read-only tools", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(THE_FOUR_TOOLS);
      for (const tool of tools) {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
        expect(tool.description?.length).toBeGreaterThan(20);
      }
      const readSkill = tools.find((tool) => tool.name === "read_skill");
      expect(readSkill?.inputSchema.required).toEqual(["skill"]);
      expect(Object.keys(readSkill?.inputSchema.properties ?? {})).toEqual(["skill", "file"]);
    });

    // OpenAI's strict mode refuses `default` and length bounds: a host passing these schemas on in strict
    // mode (the OpenAI Agents SDK's convert_schemas_to_strict) failed every request; VS Code warned.
    it("lists argument schemas without the keywords OpenAI's strict mode refuses, defaults told in words", async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) {
        for (const property of Object.values(tool.inputSchema.properties ?? {})) {
          expect(Object.keys(property as object).sort()).toEqual(["description", "type"]);
        }
      }
      const readSkill = tools.find((tool) => tool.name === "read_skill");
      expect(readSkill?.inputSchema.properties?.file).toEqual({
        type: "string",
        description: 'Path inside the skill (default SKILL.md); "_manifest" lists its files',
      });
    });

    it("explains in the initialize instructions to search, then read and follow a skill", () => {
      expect(client.getInstructions()).toMatch(/list_skills\(query=.*read_skill\(skill\) and follow it/s);
    });
  });

  describe("list_packs", () => {
    it("lists each pack with its skill count and each group under it", async () => {
      const { text, isError } = await call(client, "list_packs");
      expect(isError).toBe(false);
      // Each pack line goes on with what the pack is for (see test/preview/preview.test.ts).
      expect(
        text
          .split("\n")
          .map((line) => line.replace(/ — .*/, ""))
          .slice(0, 7),
      ).toEqual([
        "alpha: 3 skills, 1 pack file",
        "beta: 5 skills, 2 pack files",
        "  docs: 2",
        "  tools: 2",
        "gamma: 1 skill",
        "  tools: 1",
        expect.stringMatching(/^Next: list_skills/),
      ]);
    });
  });

  describe("list_skills", () => {
    it("lists every visible skill as name: description, sorted, qualifying names packs share", async () => {
      const { text } = await call(client, "list_skills");
      const lines = text.split("\n");
      expect(lines.slice(0, -1)).toEqual([
        "drill: Drill holes in walls.",
        "editor: Edit documentation deep in a tree.",
        "hammer: Drive nails with a hammer.",
        "one: First alpha skill for parsing invoices.",
        "saw: Cut planks with a saw.",
        "alpha/shared-name: Alpha's copy of a shared name.",
        "beta/shared-name: Beta's copy of a shared name.",
        "two: Second alpha skill about webhooks.",
        "writer: Write documentation pages.",
      ]);
      expect(lines.at(-1)).toMatch(/^Next: read_skill/);
    });

    it("narrows to a pack, a group or pack/group", async () => {
      expect((await call(client, "list_skills", { pack: "gamma" })).text).toMatch(/^drill: .*\nNext:/);
      expect((await call(client, "list_skills", { pack: "docs" })).text).toMatch(
        /^editor: .*\nwriter: .*\nNext:/,
      );
      expect((await call(client, "list_skills", { pack: "beta/tools" })).text).toMatch(
        /^hammer: .*\nsaw: .*\nNext:/,
      );
    });

    it("searches by query words, ignoring case and hyphens, qualifying names packs share", async () => {
      const documentation = (await call(client, "list_skills", { query: "DOCUMENTATION" })).text.split("\n");
      expect(documentation.slice(0, -1).sort()).toEqual([
        "editor: Edit documentation deep in a tree.",
        "writer: Write documentation pages.",
      ]);
      expect(documentation.at(-1)).toMatch(/^Next: read_skill/);
      expect((await call(client, "list_skills", { query: "sharedname beta" })).text).toMatch(
        /^beta\/shared-name:/,
      );
      expect((await call(client, "list_skills", { query: "holes", pack: "beta" })).text).toMatch(
        /^No skill in "beta" matches "holes"/,
      );
    });

    it("answers a skill's name given as pack with the call that reads the skill", async () => {
      expect(await call(client, "list_skills", { pack: "Hammer" })).toEqual({
        isError: true,
        text: '"Hammer" is a skill, not a pack or group: read_skill(skill="hammer").',
      });
      const scoped = await server.connect({ era, headers: { "X-Skill-Pack": "alpha" } });
      expect((await call(scoped, "list_skills", { pack: "hammer" })).text).toMatch(/^Unknown pack or group/);
    });

    // A folder path got the list of packs, and the model had to work out which one the path meant.
    it("answers a folder path or skill:// URI given as pack with the call it stands for", async () => {
      const unknown = (pack: string, call: string) => ({
        isError: true,
        text: `Unknown pack or group ${JSON.stringify(pack)}. Did you mean ${call}?`,
      });
      expect(await call(client, "list_skills", { pack: "skills/beta" })).toEqual(
        unknown("skills/beta", 'list_skills(pack="beta")'),
      );
      expect(await call(client, "list_skills", { pack: "beta\\tools" })).toEqual(
        unknown("beta\\tools", 'list_skills(pack="beta/tools")'),
      );
      expect(await call(client, "list_skills", { pack: "skill://beta/tools" })).toEqual(
        unknown("skill://beta/tools", 'list_skills(pack="beta/tools")'),
      );
      // A folder no group has: a search of the pack for its words.
      expect(await call(client, "list_skills", { pack: "alpha/parsing-invoices" })).toEqual(
        unknown("alpha/parsing-invoices", 'list_skills(pack="alpha", query="parsing invoices")'),
      );
      // A slip in a group's name is told as such, not searched for.
      expect((await call(client, "list_skills", { pack: "beta/tool" })).text).toBe(
        'Unknown pack or group "beta/tool". Did you mean "beta/tools"? Call list_packs to see them.',
      );
      expect(await call(client, "list_skills", { pack: "alpha, skills/gamma", query: "holes" })).toEqual(
        unknown("skills/gamma", 'list_skills(pack="alpha,gamma", query="holes")'),
      );
      expect(await call(client, "list_skills", { pack: "skill://beta/tools/hammer" })).toEqual({
        isError: true,
        text: '"skill://beta/tools/hammer" is a path of skill hammer: read_skill(skill="hammer").',
      });
      expect(await call(client, "list_skills", { pack: "beta/shared/guide.md" })).toEqual({
        isError: true,
        text: '"beta/shared/guide.md" is a path of pack beta: read_pack_file(pack="beta", file="shared/guide.md").',
      });
      // What the model sent is quoted back escaped: a control character reads as its code point.
      expect(await call(client, "list_skills", { pack: "alpha/parsing\u001b[31minvoices" })).toEqual(
        unknown(
          "alpha/parsing{U+001B}[31minvoices",
          'list_skills(pack="alpha", query="parsing 31minvoices")',
        ),
      );
    });

    it("names the valid selectors when the pack is unknown or ambiguous", async () => {
      // The packs, not every group: on the bench corpus, 30 selectors and "26 more" took 175 tokens and
      // left out the group a model asking for "python" wanted (agents/python-development).
      expect(await call(client, "list_skills", { pack: "delta" })).toEqual({
        isError: true,
        text: 'Unknown pack or group "delta". Packs: alpha, beta, gamma. Call list_packs to see them.',
      });
      // The close one suffices: the list of every selector cost 150 tokens more on the bench corpus.
      expect(await call(client, "list_skills", { pack: "Gama" })).toEqual({
        isError: true,
        text: 'Unknown pack or group "Gama". Did you mean "gamma"? Call list_packs to see them.',
      });
      expect(await call(client, "list_skills", { pack: " , " })).toEqual({
        isError: true,
        text: 'No pack or group in " , ", only commas and spaces: name one, or leave it out for no narrowing. Packs: alpha, beta, gamma. Call list_packs to see them.',
      });
      const ambiguous = await call(client, "list_skills", { pack: "tools" });
      expect(ambiguous).toMatchObject({
        isError: true,
        text: expect.stringContaining("beta/tools, gamma/tools"),
      });
    });
  });

  describe("read_skill", () => {
    it("returns SKILL.md with a hint to the files it may cite", async () => {
      const { text, isError } = await call(client, "read_skill", { skill: "two" });
      expect(isError).toBe(false);
      expect(text).toMatch(/^---\nname: two\n/);
      expect(text).toContain('6 files: read_skill(skill="two", file="_manifest")');
      expect(text).toContain('read_pack_file(pack="alpha")');
    });

    it("lists the manifest with sizes and reads a listed file", async () => {
      const manifest = await call(client, "read_skill", { skill: "two", file: "_manifest" });
      expect(manifest.text).toContain("Files of skill two (6):");
      expect(manifest.text).toContain("references/guide.md (15 B)");
      expect(manifest.text).not.toMatch(/\.hidden|\.env|link-out|link-abs|^SKILL\.md/m);
      expect((await call(client, "read_skill", { skill: "two", file: "references/guide.md" })).text).toBe(
        "# Guide to two\n",
      );
      expect((await call(client, "read_skill", { skill: "two", file: "link-in.md" })).text).toBe(
        "# Guide to two\n",
      );
    });

    it("accepts pack/name, and asks for it when packs share a name", async () => {
      const ambiguous = await call(client, "read_skill", { skill: "shared-name" });
      expect(ambiguous).toMatchObject({
        isError: true,
        text: expect.stringContaining("alpha/shared-name, beta/shared-name"),
      });
      expect((await call(client, "read_skill", { skill: "beta/shared-name" })).text).toContain("Beta's copy");
    });

    // Claude Code names a plugin's skill `plugin:skill`, and skills cite one another so ("REQUIRED
    // SUB-SKILL: Use superpowers:executing-plans"): a model following one was told there is no such skill,
    // and offered look-alikes, at times another skill first (scientific-brainstorming for
    // superpowers:brainstorming).
    it.each([
      ["alpha:two", "Second alpha skill"],
      ["beta:hammer", "Drive nails"],
      ["beta:shared-name", "Beta's copy"],
      ["beta/tools:saw", "Cut planks"],
      ["docs:Editor", "Edit documentation"],
      ["a-plugin-named-otherwise:writer", "Write documentation"],
      // A group's selector and a skill's name, as list_skills(pack) shows them together: it was answered
      // with the call that reads the skill, a turn spent for nothing.
      ["beta/tools/hammer", "Drive nails"],
      ["docs/editor", "Edit documentation"],
      ["beta/docs/editor", "Edit documentation"],
    ])("reads %j, a skill named as its plugin's or group's, as that skill", async (skill, description) => {
      const { text, isError } = await call(client, "read_skill", { skill });
      expect(isError).toBe(false);
      expect(text).toContain(description);
    });

    it("reads no skill of another pack for a plugin's name of one it lacks", async () => {
      const { text, isError } = await call(client, "read_skill", { skill: "gamma:hammer" });
      expect(isError).toBe(true);
      expect(text).toMatch(/^No skill "gamma:hammer"\./);
      const scoped = await server.connect({ era, headers: { "X-Skill-Pack": "alpha" } });
      expect((await call(scoped, "read_skill", { skill: "beta:hammer" })).text).toMatch(
        /^No skill "beta:hammer"\./,
      );
    });

    it("suggests close names for an unknown skill", async () => {
      const { text, isError } = await call(client, "read_skill", { skill: "hamer" });
      expect(isError).toBe(true);
      expect(text).toMatch(/No skill "hamer"\. Did you mean: hammer/);
    });

    // read_skill("guide") offered hammer, whose SKILL.md cites shared/guide.md: no name a model had in mind.
    it("suggests no skill whose name is nothing like the unknown one", async () => {
      const { text, isError } = await call(client, "read_skill", { skill: "guide" });
      expect(isError).toBe(true);
      expect(text).toBe(
        'No skill "guide". Call list_skills to see the skills, or list_skills(query) to search.',
      );
    });

    // A model told of a pack or group asks read_skill for it; it was offered skills its name resembles.
    it.each([
      ["beta", "beta"],
      ["docs", "docs"],
      ["beta/tools", "beta/tools"],
    ])("answers a pack or group %j with the call that lists its skills", async (skill, pack) => {
      expect(await call(client, "read_skill", { skill })).toEqual({
        isError: true,
        text: `"${pack}" is a pack or group, not a skill: list_skills(pack="${pack}") lists its skills.`,
      });
    });

    // A model that swapped the tools, or took a name from skill:// resources or a file listing, was sent to
    // list the pack's skills or offered skills of similar names, and lost the file it asked for.
    it.each([
      ["beta", "shared/guide.md", 'read_pack_file(pack="beta", file="shared/guide.md")'],
      ["beta", "guide.md", 'read_pack_file(pack="beta", file="shared/guide.md")'],
      ["alpha", "two/references/guide.md", 'read_skill(skill="two", file="references/guide.md")'],
    ])("answers pack %j with a file %j with the call that reads it", async (skill, file, next) => {
      expect(await call(client, "read_skill", { skill, file })).toEqual({
        isError: true,
        text: `"${skill}" is a pack, not a skill: ${next}.`,
      });
    });

    it.each([
      [
        "alpha/two/",
        "references/guide.md",
        "skill two",
        'read_skill(skill="two", file="references/guide.md")',
      ],
      ["skill://beta/tools/hammer/SKILL.md", "SKILL.md", "skill hammer", 'read_skill(skill="hammer")'],
      ["skill://beta/docs/deep/down/editor/", "SKILL.md", "skill editor", 'read_skill(skill="editor")'],
      // The URI the server publishes names a skill by pack, group and name, whatever folders lie between
      // (plugins/<plugin>/skills/<name> in a marketplace): it was met with "No skill" and look-alikes.
      ["skill://beta/docs/editor/SKILL.md", "SKILL.md", "skill editor", 'read_skill(skill="editor")'],
      [
        "/alpha/two/references/guide.md",
        "SKILL.md",
        "skill two",
        'read_skill(skill="two", file="references/guide.md")',
      ],
      [
        "beta/shared/guide.md",
        "SKILL.md",
        "pack beta",
        'read_pack_file(pack="beta", file="shared/guide.md")',
      ],
    ])(
      "answers the path %j, file %j, with the call that reads what it names",
      async (skill, file, owner, next) => {
        expect(await call(client, "read_skill", { skill, file })).toEqual({
          isError: true,
          text: `"${skill}" is a path of ${owner}: ${next}.`,
        });
      },
    );

    it("names no pack or group outside the caller's scope as one", async () => {
      const scoped = await server.connect({ era, headers: { "X-Skill-Pack": "alpha" } });
      const { text } = await call(scoped, "read_skill", { skill: "beta" });
      expect(text).toMatch(/^No skill "beta"\./);
      expect(text).not.toMatch(/pack or group/);
    });

    it("describes binary files instead of dumping them", async () => {
      const { text, isError } = await call(client, "read_skill", { skill: "two", file: "assets/logo.png" });
      expect(isError).toBe(false);
      expect(text).toMatch(
        /^assets\/logo\.png is a PNG image of \d+ B; binary files are not shown as text\.$/,
      );
    });

    it("cuts files over the size cap and says so", async () => {
      const { text } = await call(client, "read_skill", { skill: "two", file: "big.txt" });
      expect(text.length).toBeLessThan(BIG_TEXT.length);
      expect(text.startsWith("line 0 of a long reference file\n")).toBe(true);
      expect(text).toMatch(
        /\[big\.txt is cut here: showing the first 25\d\.\d KiB of 4\d\d\.\d KiB; the tools serve no more of it\.\]$/,
      );
    });

    it("points to read_pack_file for pack paths a skill cites", async () => {
      const { text, isError } = await call(client, "read_skill", {
        skill: "hammer",
        file: "../../shared/guide.md",
      });
      expect(isError).toBe(true);
      expect(text).toContain('read_pack_file(pack="beta", file="shared/guide.md")');
    });

    const hostilePaths = [
      "../../beta/shared/guide.md",
      "../../../outside/secret.txt",
      "link-out.md",
      "link-abs.md",
      "/etc/passwd",
      OUTSIDE_ABSOLUTE,
      "references/../../one/SKILL.md",
      "references/guide.md\0.png",
      "..\\..\\..\\outside\\secret.txt",
      "..\\one\\SKILL.md",
      ".env",
      ".hidden/secret.md",
      "%2e%2e/%2e%2e/outside/secret.txt",
      "file:///etc/passwd",
    ];
    it.each(hostilePaths)("refuses %j exactly like a missing file", async (requested) => {
      const file = withTreePath(requested);
      const result = await call(client, "read_skill", { skill: "two", file });
      const missing = await call(client, "read_skill", { skill: "two", file: "no-such-file.md" });
      expect(result.isError).toBe(true);
      expect(result.text).not.toContain(SECRET);
      expect(result.text).not.toContain("root:");
      expect(result.text.replace(quoted(file), '"X"')).toBe(missing.text.replace('"no-such-file.md"', '"X"'));
    });

    // A SKILL.md cites a folder ("see references/"): the model was told there is no such file, and to list
    // every file of the skill, a call more (and for a vendored tree, hundreds of lines) to find a few.
    it.each([
      ["references", "Files of skill two in references/ (1):\nreferences/guide.md (15 B)"],
      ["references/", "Files of skill two in references/ (1):\nreferences/guide.md (15 B)"],
      ["./nested", "Files of skill two in nested/ (1):\nnested/inner/notes.md (21 B)"],
      ["references///", "Files of skill two in references/ (1):\nreferences/guide.md (15 B)"],
    ])("lists the files in a folder %j asked for as a file", async (file, listing) => {
      expect(await call(client, "read_skill", { skill: "two", file })).toEqual({
        isError: false,
        text: `${listing}\nNext: read_skill(skill="two", file="<path>").`,
      });
    });

    // Models guess paths: as a SKILL.md written on Windows cites them, from the skill's root, URL-encoded,
    // in another case, or by the file's name; the answer was "No file" and a manifest call to find it.
    it.each([
      ["references\\guide.md", 'read_skill(skill="two", file="references/guide.md")'],
      ["/references/guide.md", 'read_skill(skill="two", file="references/guide.md")'],
      ["references%2Fguide.md", 'read_skill(skill="two", file="references/guide.md")'],
      ["References/Guide.md", 'read_skill(skill="two", file="references/guide.md")'],
      ["guide.md", 'read_skill(skill="two", file="references/guide.md")'],
      ["/SKILL.md", 'read_skill(skill="two")'],
      ["skill.md", 'read_skill(skill="two")'],
      // Copied from the SKILL.md's link or code span: it was "No file" and a manifest call.
      ["references/guide.md#setup", 'read_skill(skill="two", file="references/guide.md")'],
      ["`references/guide.md`", 'read_skill(skill="two", file="references/guide.md")'],
    ])("answers a missing %j with the call that reads the one file it stands for", async (file, next) => {
      expect(await call(client, "read_skill", { skill: "two", file })).toEqual({
        isError: true,
        text: `No file ${quoted(file)} in skill two: ${next}.`,
      });
    });

    // A model holding a skill:// URI (from resources/list or skills/list) read it as a file of the wrong
    // skill and was told only that the skill has no such file.
    it.each([
      [
        "skill://alpha/two/references/guide.md",
        'skill two: read_skill(skill="two", file="references/guide.md")',
      ],
      ["beta/tools/hammer/SKILL.md", 'skill hammer: read_skill(skill="hammer")'],
      ["skill://beta/shared/guide.md", 'pack beta: read_pack_file(pack="beta", file="shared/guide.md")'],
      ["skill://beta/docs/editor/SKILL.md", 'skill editor: read_skill(skill="editor")'],
      // Slashes around a path are not part of it, however many.
      ["skill://beta/shared/guide.md///", 'pack beta: read_pack_file(pack="beta", file="shared/guide.md")'],
      ["skill:////beta/docs/editor///", 'skill editor: read_skill(skill="editor")'],
    ])("answers a path %j of another skill or pack with the call that reads it", async (file, next) => {
      expect(await call(client, "read_skill", { skill: "one", file })).toEqual({
        isError: true,
        text: `"${file}" is a path of ${next}.`,
      });
    });

    it("answers a path to a skill beside it with the call that reads that skill", async () => {
      expect(await call(client, "read_skill", { skill: "two", file: "../one/SKILL.md" })).toEqual({
        isError: true,
        text: '"../one/SKILL.md" belongs to skill one: read_skill(skill="one").',
      });
      const editor = await call(client, "read_skill", {
        skill: "writer",
        file: "../deep/down/editor/SKILL.md",
      });
      expect(editor.text).toBe(
        '"../deep/down/editor/SKILL.md" belongs to skill editor: read_skill(skill="editor").',
      );
    });

    // Skills cite a file of another skill of their pack from the pack's folder, or from a folder above it
    // (K-Dense's market-research-reports runs "python skills/scientific-schematics/scripts/…"): the model
    // was told the citing skill has no such file, or sent to the citing skill's own SKILL.md.
    it.each([
      ["two/references/guide.md", "two", 'read_skill(skill="two", file="references/guide.md")'],
      ["skills/two/scripts/run.sh", "two", 'read_skill(skill="two", file="scripts/run.sh")'],
      ["plugins/beta/tools/hammer/SKILL.md", "hammer", 'read_skill(skill="hammer")'],
    ])("answers a path %j of another skill's file with the call that reads it", async (file, owner, next) => {
      const asker = owner === "hammer" ? "saw" : "one";
      expect(await call(client, "read_skill", { skill: asker, file })).toEqual({
        isError: true,
        text: `"${file}" belongs to skill ${owner}: ${next}.`,
      });
    });

    // Superpowers' executing-plans cites "../using-superpowers/references/": the model was sent to list
    // the citing skill's own files, which could never hold it.
    it.each([
      ["../two/", 'read_skill(skill="two")'],
      ["../two/references/", 'read_skill(skill="two", file="references")'],
      ["../two/nested", 'read_skill(skill="two", file="nested")'],
      ["../two/references///", 'read_skill(skill="two", file="references")'],
    ])("answers a folder %j of a skill beside it with the call that reads it", async (file, next) => {
      expect(await call(client, "read_skill", { skill: "one", file })).toEqual({
        isError: true,
        text: `"${file}" belongs to skill two: ${next}.`,
      });
    });

    it("sends no model to list the files of a skill that has none", async () => {
      expect(await call(client, "read_skill", { skill: "one", file: "references/guide.md" })).toEqual({
        isError: true,
        text:
          'No file "references/guide.md" in skill one, which has no files besides SKILL.md. ' +
          'Other skills with that path: read_skill(skill="two", file="references/guide.md").',
      });
    });
  });

  describe("read_pack_file", () => {
    it("lists pack files by default and reads one", async () => {
      const manifest = await call(client, "read_pack_file", { pack: "beta" });
      expect(manifest.text.split("\n")).toEqual([
        "Pack files of beta (2):",
        "shared/deep/note.md (12 B)",
        "shared/guide.md (20 B)",
        expect.stringMatching(/^Next: read_pack_file/),
      ]);
      expect((await call(client, "read_pack_file", { pack: "beta", file: "shared/guide.md" })).text).toBe(
        "# Beta shared guide\n",
      );
    });

    it("says when a pack has no pack-level files", async () => {
      expect((await call(client, "read_pack_file", { pack: "gamma" })).text).toContain("no pack-level files");
    });

    it("lists the pack files in a folder asked for as a file", async () => {
      expect(await call(client, "read_pack_file", { pack: "beta", file: "shared/" })).toEqual({
        isError: false,
        text:
          "Pack files of beta in shared/ (2):\nshared/deep/note.md (12 B)\nshared/guide.md (20 B)\n" +
          'Next: read_pack_file(pack="beta", file="<path>").',
      });
    });

    // A model asked for a file a skill cites of a pack without pack files, and was told to list them: a
    // call more, answered that there are none.
    it("says so when a missing file is asked of a pack without pack files", async () => {
      expect(await call(client, "read_pack_file", { pack: "gamma", file: "shared/guide.md" })).toEqual({
        isError: true,
        text: 'No pack file "shared/guide.md" in gamma, which has no pack-level files; its skills\' files are read with read_skill.',
      });
    });

    it("points to the list of pack files for a missing one", async () => {
      expect(await call(client, "read_pack_file", { pack: "beta", file: "shared/missing.md" })).toEqual({
        isError: true,
        text: 'No pack file "shared/missing.md" in beta. read_pack_file(pack="beta") lists its files.',
      });
    });

    it("refuses files of skills, pointing to read_skill", async () => {
      const { text, isError } = await call(client, "read_pack_file", {
        pack: "alpha",
        file: "two/references/guide.md",
      });
      expect(isError).toBe(true);
      expect(text).toContain('read_skill(skill="two", file="references/guide.md")');
    });

    it.each([
      ["tools/hammer", "hammer"],
      ["tools/hammer/", "hammer"],
      // The path of its skill:// URI, by group and name: the skill's folder is docs/deep/down/editor.
      ["docs/editor", "editor"],
      ["docs/editor/SKILL.md", "editor"],
    ])(
      "answers a skill's folder or path %j given as file with the call that reads the skill",
      async (file, name) => {
        expect(await call(client, "read_pack_file", { pack: "beta", file })).toEqual({
          isError: true,
          text: `"${file}" belongs to skill ${name}: read_skill(skill="${name}", file="SKILL.md").`,
        });
      },
    );

    // The URI the server publishes names the skill by its group, not by the folders that hold it.
    it("answers a skill's skill:// URI given as file with the call that reads the skill", async () => {
      const file = "skill://beta/docs/editor/SKILL.md";
      expect(await call(client, "read_pack_file", { pack: "beta", file })).toEqual({
        isError: true,
        text: `"${file}" is a path of skill editor: read_skill(skill="editor").`,
      });
    });

    // list_packs shows groups under their packs: a group given as pack was answered "No pack", with a list
    // of packs that did not say which one holds it.
    it("answers a group given as pack with its pack", async () => {
      expect(await call(client, "read_pack_file", { pack: "beta/tools" })).toEqual({
        isError: true,
        text: '"beta/tools" is a group of pack beta; pack files are a pack\'s: read_pack_file(pack="beta") lists them.',
      });
      expect(await call(client, "read_pack_file", { pack: "gamma/tools" })).toEqual({
        isError: true,
        text: '"gamma/tools" is a group of pack gamma, which has no pack-level files; its skills\' files are read with read_skill.',
      });
      // Two packs have a group "tools": no one pack to name.
      expect((await call(client, "read_pack_file", { pack: "tools" })).text).toMatch(/^No pack "tools"/);
    });

    // A folder read gives a group's skill:// URI: given as pack, it was "No pack", where its plain name
    // got its pack.
    it("answers a group's skill:// URI given as pack with its pack, in the caller's scope only", async () => {
      for (const pack of ["skill://beta/tools", "skill://Beta/tools/"]) {
        expect(await call(client, "read_pack_file", { pack })).toEqual({
          isError: true,
          text: `"${pack}" is a group of pack beta; pack files are a pack's: read_pack_file(pack="beta") lists them.`,
        });
      }
      expect((await call(client, "read_pack_file", { pack: "skill://gamma/tools" })).text).toBe(
        '"skill://gamma/tools" is a group of pack gamma, which has no pack-level files; its skills\' files are read with read_skill.',
      );
      // A group outside the caller's scope reads as one that does not exist.
      const scoped = await server.connect({ era, headers: { "X-Skill-Pack": "alpha" } });
      expect((await call(scoped, "read_pack_file", { pack: "skill://beta/tools" })).text).toBe(
        (await call(scoped, "read_pack_file", { pack: "skill://no-such-pack/tools" })).text.replace(
          "no-such-pack",
          "beta",
        ),
      );
    });

    it("answers a skill's name given as pack with the call that reads its file", async () => {
      expect(await call(client, "read_pack_file", { pack: "two", file: "references/guide.md" })).toEqual({
        isError: true,
        text: '"two" is a skill, not a pack: read_skill(skill="two", file="references/guide.md").',
      });
      expect((await call(client, "read_pack_file", { pack: "hammer" })).text).toBe(
        '"hammer" is a skill, not a pack: read_skill(skill="hammer", file="_manifest").',
      );
      const scoped = await server.connect({ era, headers: { "X-Skill-Pack": "alpha" } });
      expect((await call(scoped, "read_pack_file", { pack: "hammer" })).text).toMatch(/^No pack "hammer"/);
      // Nor is the folder of a pack outside the caller's scope named.
      expect((await call(scoped, "read_pack_file", { pack: "skill://beta" })).text).toBe(
        (await call(scoped, "read_pack_file", { pack: "skill://no-such-pack" })).text.replace(
          "no-such-pack",
          "beta",
        ),
      );
    });

    it.each([
      ["beta/shared/guide.md", "_manifest", 'pack beta: read_pack_file(pack="beta", file="shared/guide.md")'],
      [
        "skill://beta/shared/deep/note.md",
        "_manifest",
        'pack beta: read_pack_file(pack="beta", file="shared/deep/note.md")',
      ],
      ["skill://beta/tools/hammer/SKILL.md", "_manifest", 'skill hammer: read_skill(skill="hammer")'],
      ["skill://beta/docs/editor/SKILL.md", "_manifest", 'skill editor: read_skill(skill="editor")'],
      [
        "skill://alpha/two",
        "references/guide.md",
        'skill two: read_skill(skill="two", file="references/guide.md")',
      ],
      // The pack's own folder, or a folder of its pack files: they were "No pack" and every pack's name.
      ["skill://beta", "_manifest", 'pack beta: read_pack_file(pack="beta")'],
      ["/Beta/", "shared/guide.md", 'pack beta: read_pack_file(pack="beta", file="shared/guide.md")'],
      ["beta/shared", "_manifest", 'pack beta: read_pack_file(pack="beta", file="shared/")'],
      ["skill://beta/shared/", "guide.md", 'pack beta: read_pack_file(pack="beta", file="shared/guide.md")'],
    ])(
      "answers the path %j given as pack, file %j, with the call that reads what it names",
      async (pack, file, next) => {
        expect(await call(client, "read_pack_file", { pack, file })).toEqual({
          isError: true,
          text: `"${pack}" is a path of ${next}.`,
        });
      },
    );

    it("names the visible packs for an unknown pack", async () => {
      const { text, isError } = await call(client, "read_pack_file", { pack: "delta" });
      expect(isError).toBe(true);
      expect(text).toContain("Packs: alpha, beta, gamma");
    });

    const hostilePaths = [
      "../alpha/README.md",
      "../../outside/secret.txt",
      "/etc/passwd",
      "shared/../../alpha/README.md",
      "shared/../../../outside/secret.txt",
      "shared/guide.md\0",
      "..\\..\\outside\\secret.txt",
      ".",
      "shared/..",
      OUTSIDE_ABSOLUTE,
    ];
    it.each(hostilePaths)("refuses %j exactly like a missing file", async (requested) => {
      const file = withTreePath(requested);
      const result = await call(client, "read_pack_file", { pack: "beta", file });
      const missing = await call(client, "read_pack_file", { pack: "beta", file: "no-such-file.md" });
      expect(result.isError).toBe(true);
      expect(result.text).not.toContain(SECRET);
      expect(result.text.replace(quoted(file), '"X"')).toBe(missing.text.replace('"no-such-file.md"', '"X"'));
    });

    it.each([
      ["shared\\guide.md", "shared/guide.md"],
      ["/shared/guide.md", "shared/guide.md"],
      ["note.md", "shared/deep/note.md"],
      ["beta/shared/guide.md", "shared/guide.md"],
    ])(
      "answers a missing %j with the call that reads the one pack file it stands for",
      async (file, meant) => {
        expect(await call(client, "read_pack_file", { pack: "beta", file })).toEqual({
          isError: true,
          text: `No pack file ${quoted(file)} in beta: read_pack_file(pack="beta", file="${meant}").`,
        });
      },
    );
  });

  describe("argument validation", () => {
    it("rejects wrong arguments saying which, what they must be and what they are for", async () => {
      expect(await call(client, "read_skill", { skill: 42 })).toEqual({
        isError: true,
        text:
          'Invalid arguments for read_skill: "skill" must be a string, not a number ' +
          "(Skill name, or pack/name when several packs share it).",
      });
      expect(await call(client, "read_pack_file", {})).toEqual({
        isError: true,
        text: 'Invalid arguments for read_pack_file: "pack" is required, a string (Pack name from list_packs).',
      });
      const long = await call(client, "list_skills", { query: "word ".repeat(300), pack: [1] });
      expect(long.isError).toBe(true);
      expect(long.text).toContain('"pack" must be a string, not an array');
      expect(long.text).toContain('"query" is too long: at most 1000 characters');
    });

    it("rejects an unknown tool, naming the four", async () => {
      expect(await call(client, "write_skill", {})).toEqual({
        isError: true,
        text: 'Unknown tool "write_skill". The tools are: list_packs, list_skills, read_skill, read_pack_file.',
      });
    });

    // Regression: a name a slip, a case or a host's prefix away from a tool was told only the list of four,
    // and the name came back whole, however long, with its quotes and newlines unescaped.
    it.each([
      ["list_skill", "list_skills"],
      ["listSkills", "list_skills"],
      ["Read-Pack-File", "read_pack_file"],
      ["mcp__skills__read_skill", "read_skill"],
      ["skills.list_packs", "list_packs"],
    ])("rejects %j, naming the tool it stands for", async (name, meant) => {
      expect(await call(client, name, {})).toEqual({
        isError: true,
        text: `Unknown tool "${name}". Did you mean: ${meant}? The tools are: list_packs, list_skills, read_skill, read_pack_file.`,
      });
    });

    it("rejects a long or odd name, quoted escaped and cut", async () => {
      const { text } = await call(client, `a"\n${"x".repeat(5000)}`, {});
      expect(text).toBe(
        `Unknown tool "a\\"{U+000A}${"x".repeat(97)}…". The tools are: list_packs, list_skills, read_skill, read_pack_file.`,
      );
    });

    it("cuts a long name between characters, never inside an emoji", async () => {
      const { text } = await call(client, `${"a".repeat(99)}😀b`, {});
      expect(text).toBe(
        `Unknown tool "${"a".repeat(99)}😀…". The tools are: list_packs, list_skills, read_skill, read_pack_file.`,
      );
    });
  });
});

// A pack that is one skill has no pack files: read_pack_file answered "no pack file" and sent the model to a
// listing of none.
describe("a pack that is itself a skill", () => {
  const served = serveTree({
    "solo/SKILL.md": skillMd("solo", "A pack that is one skill."),
    "solo/references/r.md": "# R\n",
  });

  it.each([
    ["SKILL.md", 'read_skill(skill="solo", file="SKILL.md")'],
    ["references/r.md", 'read_skill(skill="solo", file="references/r.md")'],
  ])("points read_pack_file for %j to read_skill", async (file, next) => {
    expect(await call(served.client, "read_pack_file", { pack: "solo", file })).toEqual({
      isError: true,
      text: `"${file}" belongs to skill solo: ${next}.`,
    });
  });
});

describe("a path that is a skill's file and ends with a pack file's path", () => {
  const served = serveTree({
    "q/s/SKILL.md": skillMd("s"),
    "q/s/references/r.md": "# Skill's R\n",
    "q/references/r.md": "# Pack's R\n",
  });

  it("is answered with the skill's file, not the pack file it ends with", async () => {
    expect(await call(served.client, "read_pack_file", { pack: "q", file: "s/references/r.md" })).toEqual({
      isError: true,
      text: '"s/references/r.md" belongs to skill s: read_skill(skill="s", file="references/r.md").',
    });
  });
});

// Names are lowercase by rule, but one that breaks it is served (with a warning): read_skill, which takes a
// name in any case, found "PDF-Helper" only as written.
describe("a skill or pack whose name is not lowercase", () => {
  const served = serveTree({
    "Team/PDF-Helper/SKILL.md": skillMd("PDF-Helper", "Fill PDF forms."),
    "Team/other/SKILL.md": skillMd("other", "Another skill."),
  });

  it.each(["pdf-helper", "PDF-HELPER", "team/pdf-helper", "Team/PDF-Helper"])(
    "is read by read_skill as %j",
    async (skill) => {
      const { text, isError } = await call(served.client, "read_skill", { skill });
      expect(isError).toBe(false);
      expect(text).toMatch(/^---\nname: PDF-Helper\n/);
    },
  );
});

// n8n's skills cite another skill's file by its path inside that skill ("see n8n-node-configuration-official
// `references/MERGE_NODE.md`"), K-Dense's skills run scientific-schematics' `scripts/generate_schematic.py`:
// asked of the citing skill, the model was told only "No file", though a skill in scope held that path.
describe("a file of another skill asked by its path inside that skill", () => {
  const served = serveTree({
    "p/asker/SKILL.md": skillMd("asker"),
    "p/asker/notes.md": "# Notes\n",
    "p/config/SKILL.md": skillMd("config"),
    "p/config/references/MERGE_NODE.md": "# Merge\n",
    "p/empty/SKILL.md": skillMd("empty"),
    "q/config/SKILL.md": skillMd("config", "Another config."),
    "q/config/references/MERGE_NODE.md": "# Merge of q\n",
    ...Object.fromEntries(
      ["a", "b", "c", "d"].flatMap((name) => [
        [`p/${name}/SKILL.md`, skillMd(name)],
        [`p/${name}/references/examples.md`, "# Examples\n"],
      ]),
    ),
    "p/a/README.md": "# A\n",
    "p/b/README.md": "# B\n",
  });

  it("names each skill in scope holding that path, with the call that reads it", async () => {
    const next = (skill: string) => `read_skill(skill="${skill}", file="references/MERGE_NODE.md")`;
    expect(
      await call(served.client, "read_skill", { skill: "asker", file: "references/MERGE_NODE.md" }),
    ).toEqual({
      isError: true,
      text:
        'No file "references/MERGE_NODE.md" in skill asker (1 file besides SKILL.md). ' +
        'read_skill(skill="asker", file="_manifest") lists them. ' +
        `Other skills with that path: ${next("p/config")}, ${next("q/config")}.`,
    });
    const fromEmpty = await call(served.client, "read_skill", {
      skill: "empty",
      file: "./references/MERGE_NODE.md",
    });
    expect(fromEmpty.text).toBe(
      'No file "./references/MERGE_NODE.md" in skill empty, which has no files besides SKILL.md. ' +
        `Other skills with that path: ${next("p/config")}, ${next("q/config")}.`,
    );
  });

  it("names the pack's skills holding a path asked of the pack", async () => {
    expect(
      await call(served.client, "read_pack_file", { pack: "p", file: "references/MERGE_NODE.md" }),
    ).toEqual({
      isError: true,
      text:
        'No pack file "references/MERGE_NODE.md" in p, which has no pack-level files; its skills\' files are read ' +
        'with read_skill. Skills of p with that path: read_skill(skill="p/config", file="references/MERGE_NODE.md").',
    });
  });

  it("names no skill outside the caller's scope", async () => {
    const scoped = await served.server.connect({ query: "?pack=p" });
    const { text } = await call(scoped, "read_skill", { skill: "asker", file: "references/MERGE_NODE.md" });
    expect(text).toMatch(
      /Other skills with that path: read_skill\(skill="config", file="references\/MERGE_NODE.md"\)\.$/,
    );
    await scoped.close();
  });

  // A path four skills hold, or a bare name any skill may hold, says nothing of which one is meant.
  it.each(["references/examples.md", "README.md"])("names no skill for a common path %j", async (file) => {
    const { text } = await call(served.client, "read_skill", { skill: "asker", file });
    expect(text).toBe(
      `No file "${file}" in skill asker (1 file besides SKILL.md). read_skill(skill="asker", file="_manifest") lists them.`,
    );
  });
});

// Plugins nest skills as `<plugin>/skills/<skill>`, and skills cite a sibling's file from the folder holding
// both (agents' pptx-quality-gates runs `pptx-reference-deck-analysis/scripts/validate_package.py`), or a
// plugin file where the plugin is installed (`.claude/plugins/<plugin>/policies/…`): read_skill answered
// "No file", though read_pack_file took the second path.
describe("a skill of a plugin citing a sibling's file or a plugin file", () => {
  const served = serveTree({
    "p/deck/skills/gates/SKILL.md": skillMd("gates"),
    "p/deck/skills/analysis/SKILL.md": skillMd("analysis"),
    "p/deck/skills/analysis/scripts/validate.py": "print(1)\n",
    "p/deck/policies/deck.cedar": "permit;\n",
    "p/deck/agents/reviewer.md": "# Reviewer\n",
    "p/other/skills/lone/SKILL.md": skillMd("lone"),
    "p/commands-only/commands/c.md": "# C\n",
  });

  // wshobson/agents keeps each plugin's agents and commands beside its skills: every skill was sent to the
  // whole pack's list, 391 files of 50 plugins and 6,400 tokens, none of which it cites.
  it("points a skill to the pack files of its group's folder when it holds some", async () => {
    const gates = await call(served.client, "read_skill", { skill: "gates" });
    expect(gates.text).toMatch(/\[pack files it cites: read_pack_file\(pack="p", file="deck\/"\)\]$/);
    const lone = await call(served.client, "read_skill", { skill: "lone" });
    expect(lone.text).toMatch(/\[pack files it cites: read_pack_file\(pack="p"\)\]$/);
  });

  it.each([
    ["analysis/scripts/validate.py", 'read_skill(skill="analysis", file="scripts/validate.py")'],
    ["analysis/scripts/", 'read_skill(skill="analysis", file="scripts")'],
  ])("answers the sibling's path %j with the call that reads it", async (file, next) => {
    expect(await call(served.client, "read_skill", { skill: "gates", file })).toEqual({
      isError: true,
      text: `"${file}" belongs to skill analysis: ${next}.`,
    });
  });

  // Models pass the paths skills cite as the skill (`brainstorming/SKILL.md`, `skills/<name>/…`): they were
  // told there is no such skill, with `scientific-brainstorming` suggested before `brainstorming`.
  it.each([
    ["analysis/scripts/validate.py", "SKILL.md", 'read_skill(skill="analysis", file="scripts/validate.py")'],
    ["skills/analysis/SKILL.md", "SKILL.md", 'read_skill(skill="analysis")'],
    ["analysis/", "_manifest", 'read_skill(skill="analysis", file="_manifest")'],
    ["analysis/scripts", "validate.py", 'read_skill(skill="analysis", file="scripts/validate.py")'],
  ])("answers a path %j given as the skill with the call that reads it", async (skill, file, next) => {
    expect(await call(served.client, "read_skill", { skill, file })).toEqual({
      isError: true,
      text: `"${skill}" is a path of skill analysis: ${next}.`,
    });
  });

  it("takes a skill's name before a path the skill lacks for no path of it", async () => {
    const { text } = await call(served.client, "read_skill", { skill: "analysis/nothing.md" });
    expect(text).toMatch(/^No skill "analysis\/nothing.md"/);
  });

  it("takes a sibling's name alone for no sibling", async () => {
    const { text } = await call(served.client, "read_skill", { skill: "gates", file: "analysis/" });
    expect(text).toMatch(/^No file "analysis\/" in skill gates/);
  });

  it("answers a plugin file cited where the plugin is installed with the call that reads it", async () => {
    const file = ".claude/plugins/deck/policies/deck.cedar";
    expect(await call(served.client, "read_skill", { skill: "gates", file })).toEqual({
      isError: true,
      text: `"${file}" is a file of pack p, not of the skill: read_pack_file(pack="p", file="deck/policies/deck.cedar").`,
    });
  });

  // Regression: read_skill, read_pack_file and list_skills quoted the caller's text raw, so a NUL or a bidi
  // override came back as sent, where the unknown-pack errors write each as {U+…}.
  describe("the caller's text in an error", () => {
    const HIDDEN = "\u0000\u202e";
    const SHOWN = "{U+0000}{U+202E}";
    /** What `answer` said, and which characters of HIDDEN it holds raw (none, when written out). */
    const told = (answer: { text?: string }) => ({
      text: answer.text ?? "",
      raw: [...(answer.text ?? "")].filter((character) => HIDDEN.includes(character)),
    });

    it("is written out by read_skill", async () => {
      const unknown = told(await call(client, "read_skill", { skill: `zz${HIDDEN}` }));
      expect(unknown.text).toContain(`No skill "zz${SHOWN}"`);
      expect(unknown.raw).toEqual([]);
      const missing = told(await call(client, "read_skill", { skill: "hammer", file: `zz${HIDDEN}.md` }));
      expect(missing.text).toContain(`No file "zz${SHOWN}.md"`);
      expect(missing.raw).toEqual([]);
    });

    it("is written out by read_pack_file", async () => {
      const missing = told(await call(client, "read_pack_file", { pack: "beta", file: `zz${HIDDEN}.md` }));
      expect(missing.text).toContain(`No pack file "zz${SHOWN}.md"`);
      expect(missing.raw).toEqual([]);
    });

    it("is written out by list_skills", async () => {
      const none = told(await call(client, "list_skills", { query: `qqzzxxvv wwkkjj${HIDDEN}` }));
      expect(none.text).toContain(`"qqzzxxvv wwkkjj${SHOWN}"`);
      expect(none.raw).toEqual([]);
    });
  });
});
