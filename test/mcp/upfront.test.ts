/**
 * What a model sees before its first call (issue 23): the instructions and list_skills's description
 * written for the caller's scope, list_skills marked to load up front, the skills that models may not
 * invoke kept out of every listing, the extra arguments n8n's MCP Client Tool sends accepted, and the
 * optional ones that strict-mode models send as null or "" read as not given.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, ERAS, httpSettings, type RunningServer, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

const flagged = (name: string, description: string, flag: string) =>
  `---\nname: ${name}\ndescription: ${description}\n${flag}\n---\n\n# ${name}\n`;

/** Names that appear nowhere else, so that a text naming one of them can only have taken it from there. */
const TREE = {
  "cooking/baking/sourdough-bread/SKILL.md": skillMd(
    "sourdough-bread",
    "Bake sourdough bread with a levain starter and long fermentation.",
  ),
  "cooking/baking/croissant-lamination/SKILL.md": skillMd(
    "croissant-lamination",
    "Laminate croissant dough with butter folds.",
  ),
  "cooking/grilling/charcoal-brisket/SKILL.md": skillMd(
    "charcoal-brisket",
    "Smoke a brisket over charcoal until the bark sets.",
  ),
  "finance/tax-returns/SKILL.md": skillMd(
    "tax-returns",
    "File quarterly tax returns with depreciation schedules.",
  ),
  "finance/payroll-runs/SKILL.md": skillMd(
    "payroll-runs",
    "Run payroll with withholding and pension deductions.",
  ),
  "finance/ledger-close/SKILL.md": flagged(
    "ledger-close",
    "Close the general ledger at month end with reconciliations.",
    "disable-model-invocation: true",
  ),
  "finance/audit-helper/SKILL.md": flagged(
    "audit-helper",
    "Prepare workpapers for the external auditor.",
    "user-invocable: false",
  ),
};

/** The packs, groups and skills of TREE, by the scope that holds them. */
const NAMES = {
  cooking: ["cooking", "baking", "grilling", "sourdough-bread", "croissant-lamination", "charcoal-brisket"],
  finance: ["finance", "tax-returns", "payroll-runs", "audit-helper"],
};

let tree: TempTree;
let server: RunningServer;

beforeAll(async () => {
  tree = await makeTree(TREE);
  server = await startServer(tree.dir);
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

/** The instructions and the whole tools/list a client of `options` is given before its first call. */
async function upfront(client: Client): Promise<{ instructions: string; listSkills: string; tools: string }> {
  const { tools } = await client.listTools();
  const listSkills = tools.find((tool) => tool.name === "list_skills")?.description ?? "";
  return { instructions: client.getInstructions() ?? "", listSkills, tools: JSON.stringify(tools) };
}

it("counts the skills each invocation flag sets in /health", async () => {
  const health = (await (await fetch(`${server.url}/health`)).json()) as Record<string, unknown>;
  expect(health.invocationFlags).toEqual({ disableModelInvocation: 1, notUserInvocable: 1 });
});

describe.each(ERAS)("in the %s era", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await server.connect({ era });
  });

  it("marks list_skills, and only list_skills, to load up front (anthropic/alwaysLoad)", async () => {
    const { tools } = await client.listTools();
    const marked = tools.filter((tool) => tool._meta?.["anthropic/alwaysLoad"] === true);
    expect(marked.map((tool) => tool.name)).toEqual(["list_skills"]);
    expect(tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name)).toEqual([
      "list_skills",
    ]);
  });

  it("tells the model when to look, that these skills are the organization's, and each skill when they fit", async () => {
    const { instructions, listSkills } = await upfront(client);
    expect(instructions).toMatch(/organization's own skills/);
    expect(instructions).toMatch(/not your built-in skills/);
    expect(instructions).toMatch(/even one you already know how to do, call list_skills\(query=/);
    expect(instructions).toMatch(/^- cooking \(3 skills\): /m);
    expect(instructions).toMatch(/^- finance \(3 skills\): /m);
    expect(listSkills).toMatch(/not your built-in skills/);
    expect(listSkills).toContain("before any task in cooking, finance, even a familiar one");
    // Six skills fit: each as a full entry, as a model triggers on them.
    expect(listSkills).toContain(
      "sourdough-bread: Bake sourdough bread with a levain starter and long fermentation.",
    );
    expect(listSkills).toContain("audit-helper: Prepare workpapers for the external auditor.");
    // Clients cut tool descriptions near 2 KB (the caps hold for any catalog: test/preview/preview.test.ts).
    expect(Buffer.byteLength(instructions)).toBeLessThan(2048);
    expect(Buffer.byteLength(listSkills)).toBeLessThan(2048);
  });

  // With every entry in list_skills, the instructions repeated their loose words ("levain, fermentation…"):
  // tokens on every turn that a host showing both texts already had.
  it("names each skill and group of a small scope in the instructions, without the words of its entries", async () => {
    const { instructions, listSkills } = await upfront(client);
    for (const name of [...NAMES.cooking, ...NAMES.finance])
      expect(instructions).toMatch(new RegExp(`\\b${name}\\b`));
    for (const word of [
      "levain",
      "fermentation",
      "dough",
      "bark",
      "depreciation",
      "withholding",
      "workpapers",
    ]) {
      expect(listSkills).toContain(word);
      expect(instructions).not.toMatch(new RegExp(`\\b${word}\\b`, "i"));
    }
  });

  it.each([
    ["X-Skill-Pack", { headers: { "X-Skill-Pack": "cooking" } }, "cooking", "finance"],
    ["?pack=", { query: "?pack=finance" }, "finance", "cooking"],
    ["a group", { headers: { "X-Skill-Pack": "cooking/baking" } }, "baking", "finance"],
  ] as const)(
    "writes the texts for a scope narrowed by %s, naming nothing outside it",
    async (_how, options, inside, outside) => {
      const scoped = await server.connect({ era, ...options });
      const { instructions, tools } = await upfront(scoped);
      const text = `${instructions}\n${tools}`;
      expect(text).toContain(inside);
      const outsideNames =
        inside === "baking" ? [...NAMES.finance, "grilling", "charcoal-brisket"] : NAMES[outside];
      for (const name of outsideNames) expect(text).not.toMatch(new RegExp(`\\b${name}\\b`));
    },
  );

  it("keeps a skill that disables model invocation out of every listing and search, but reads it by name", async () => {
    const listing = await call(client, "list_skills", { pack: "finance" });
    expect(listing.text).not.toContain("ledger-close");
    expect(listing.text).toContain("payroll-runs");
    const search = await call(client, "list_skills", { query: "close the general ledger reconciliations" });
    expect(search.text).not.toContain("ledger-close");
    const packs = await call(client, "list_packs");
    expect(packs.text).toMatch(/^finance: 3 skills/m);
    const { instructions, tools } = await upfront(client);
    expect(`${instructions}${tools}`).not.toContain("ledger-close");
    expect(`${instructions}${tools}`).not.toMatch(/reconciliation/);
    const read = await call(client, "read_skill", { skill: "ledger-close" });
    expect(read.isError).toBe(false);
    expect(read.text).toContain("# ledger-close");
    const typo = await call(client, "read_skill", { skill: "ledger-clse" });
    expect(typo.isError).toBe(true);
    expect(typo.text).not.toContain("ledger-close");
  });

  it("keeps a skill that disables model invocation a prompt, and makes none of a skill not user-invocable", async () => {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((prompt) => prompt.name);
    expect(names).toContain("ledger-close");
    expect(names).not.toContain("audit-helper");
    await expect(client.getPrompt({ name: "audit-helper" })).rejects.toThrow(/No prompt "audit-helper"/);
    // A slip of a prompt's name is told the prompt, a skill hidden from the model too, but never one
    // that is no prompt.
    await expect(client.getPrompt({ name: "ledger-clse" })).rejects.toThrow(/Did you mean: ledger-close\?/);
    await expect(client.getPrompt({ name: "audit-helpr" })).rejects.toThrow(/^(?![\s\S]*audit-helper)/);
    const prompt = await client.getPrompt({ name: "ledger-close" });
    expect(JSON.stringify(prompt.messages)).toContain("# ledger-close");
  });

  it("gives hosts of the Skills extension every skill with its flags in its frontmatter, to apply as for skills on disk", async () => {
    const skills = new SkillsClient(client);
    const listed = (await skills.list()).skills.map((skill) => skill.uri);
    expect(listed).toContain("skill://finance/ledger-close/SKILL.md");
    expect(listed).toContain("skill://finance/audit-helper/SKILL.md");
    const ledger = await skills.get("skill://finance/ledger-close/SKILL.md");
    expect(ledger.skill.frontmatter).toMatchObject({ "disable-model-invocation": true });
    const audit = await skills.get("skill://finance/audit-helper/SKILL.md");
    expect(audit.skill.frontmatter).toMatchObject({ "user-invocable": false });
  });

  // n8n's MCP Client Tool adds toolCallId (and at times the tool's name or a session id) to every call's
  // arguments (n8n issues #21500, #21716, #37308): strict servers refuse them and break the workflow.
  it.each([
    ["list_packs", { toolCallId: "call_0BCIShth4lxZuYr4coSp4E5E" }, /^cooking: 3 skills/m],
    [
      "list_skills",
      { query: "sourdough starter", tool: "list_skills", toolCallId: "call_tjbFFFLWX9u3AJIiioFVpZks" },
      /^sourdough-bread: /m,
    ],
    [
      "read_skill",
      { skill: "tax-returns", toolCallId: "call_0BCIShth4lxZuYr4coSp4E5E", sessionId: "a1b2c3" },
      /# tax-returns/,
    ],
    ["read_pack_file", { pack: "finance", toolCallId: "call_x", input: "" }, /no pack-level files/],
  ] as const)("accepts and ignores the extra arguments n8n sends to %s", async (tool, args, expected) => {
    const { text, isError } = await call(client, tool, { ...args });
    expect(isError).toBe(false);
    expect(text).toMatch(expected);
    // In silence: the model never named them, and a remark on them costs every n8n call tokens.
    const modelArgs = Object.fromEntries(
      Object.entries(args).filter(([key]) => !["toolCallId", "tool", "sessionId", "input"].includes(key)),
    );
    expect(text).toBe((await call(client, tool, modelArgs)).text);
  });

  it("passes over in silence the chat trigger's fields n8n adds to a call, and _meta left in the arguments", async () => {
    const args = {
      _meta: { correlationId: "abc-123" },
      query: "sourdough starter",
      sessionId: "a1b2c3",
      action: "sendMessage",
      chatInput: "bake bread",
    };
    const { text } = await call(client, "list_skills", args);
    expect(text).toBe((await call(client, "list_skills", { query: "sourdough starter" })).text);
  });

  // A model that guesses an argument's name had it dropped without a word: list_skills(search="…") listed
  // every skill as if nothing was asked, read_skill(name="…") said `"skill" is required`.
  describe("an argument under another name", () => {
    it.each([
      ["list_skills", { search: "sourdough starter" }, 'Read "search" as "query".', /^sourdough-bread: /m],
      ["list_skills", { q: "sourdough starter" }, 'Read "q" as "query".', /^sourdough-bread: /m],
      ["list_skills", { keywords: "brisket" }, 'Read "keywords" as "query".', /^charcoal-brisket: /m],
      [
        "list_skills",
        { description: "smoke a brisket over charcoal" },
        'Read "description" as "query".',
        /^charcoal-brisket: /m,
      ],
      ["list_skills", { Query: "brisket" }, 'Read "Query" as "query".', /^charcoal-brisket: /m],
      ["list_skills", { name: "tax-returns" }, 'Read "name" as "query".', /^tax-returns: /m],
      ["list_skills", { skill_name: "tax-returns" }, 'Read "skill_name" as "query".', /^tax-returns: /m],
      ["list_skills", { pack_name: "finance" }, 'Read "pack_name" as "pack".', /^payroll-runs: /m],
      ["read_skill", { name: "tax-returns" }, 'Read "name" as "skill".', /# tax-returns/],
      ["read_skill", { skill_name: "tax-returns" }, 'Read "skill_name" as "skill".', /# tax-returns/],
      [
        "read_skill",
        { skillName: "tax-returns", path: "SKILL.md" },
        'Read "skillName" as "skill", "path" as "file".',
        /# tax-returns/,
      ],
      [
        "read_pack_file",
        { name: "finance", file_path: "_manifest" },
        'Read "name" as "pack", "file_path" as "file".',
        /no pack-level files/,
      ],
    ] as const)("%s(%j) is answered as meant, saying how it was read", async (tool, args, note, expected) => {
      const { text, isError } = await call(client, tool, { ...args });
      expect(isError).toBe(false);
      const [first, ...rest] = text.split("\n");
      expect(first).toBe(note);
      expect(rest.join("\n")).toMatch(expected);
    });

    // `keywords` was read as query, then refused: "query" must be a string, not an array.
    it("reads a list of words as the query, and a list of packs as their comma list", async () => {
      const words = await call(client, "list_skills", { keywords: ["smoke", "brisket"] });
      expect(words).toEqual({
        isError: false,
        text: `Read "keywords" as "query".\n${(await call(client, "list_skills", { query: "smoke brisket" })).text}`,
      });
      const packs = await call(client, "list_skills", { pack: ["baking", "finance"], query: ["bread"] });
      expect(packs).toEqual(await call(client, "list_skills", { pack: "baking,finance", query: "bread" }));
      expect(packs.text).toMatch(/^sourdough-bread: /m);
      // A list that is not of strings is no query.
      expect((await call(client, "list_skills", { query: ["brisket", 3] })).text).toMatch(
        /"query" must be a string, not an array/,
      );
    });

    it("reads the argument given over another name for it, and says the other was ignored", async () => {
      const { text } = await call(client, "list_skills", { query: "brisket", search: "tax" });
      expect(text.split("\n")[0]).toBe('Ignored "search": list_skills takes pack and query.');
      expect(text).toMatch(/^charcoal-brisket: /m);
      expect(text).not.toMatch(/tax-returns/);
    });

    it.each([
      ["list_packs", { pack: "finance" }, 'Ignored "pack": list_packs takes no arguments.'],
      ["list_skills", { limit: 5 }, 'Ignored "limit": list_skills takes pack and query.'],
      [
        "read_pack_file",
        { pack: "finance", skill: "tax-returns" },
        'Ignored "skill": read_pack_file takes pack and file.',
      ],
    ] as const)(
      "%s(%j) answers as without it, first saying what the tool takes",
      async (tool, args, note) => {
        const { text } = await call(client, tool, { ...args });
        const known = Object.fromEntries(Object.entries(args).filter(([key]) => !note.includes(`"${key}"`)));
        expect(text).toBe(`${note}\n${(await call(client, tool, known)).text}`);
      },
    );

    // A client that sends the arguments one level down (the Hermes agent runtime sends {"arguments": {…}})
    // had every call answered as if it had none: a full listing, or "skill" is required.
    it.each([
      ["list_skills", { arguments: { query: "brisket" } }, { query: "brisket" }],
      ["list_skills", { params: { search: "brisket" }, toolCallId: "call_1" }, { search: "brisket" }],
      ["read_skill", { args: { skill: "tax-returns" } }, { skill: "tax-returns" }],
      [
        "read_skill",
        { skill: "tax-returns", arguments: { skill: "payroll-runs" } },
        { skill: "tax-returns" },
      ],
      // Encoded as JSON twice, as models write them: the search was answered with the whole listing.
      ["list_skills", { arguments: '{"query": "brisket"}' }, { query: "brisket" }],
      ["read_skill", { args: ' {"skill":"tax-returns","file":null}' }, { skill: "tax-returns" }],
    ] as const)("%s(%j) reads the arguments sent one level down", async (tool, args, meant) => {
      const answer = await call(client, tool, { ...args });
      expect(answer).toEqual(await call(client, tool, { ...meant }));
    });

    it("says how it read a misnamed argument in an error too", async () => {
      const { text, isError } = await call(client, "read_skill", { skill_name: 42 });
      expect(isError).toBe(true);
      expect(text).toBe(
        'Read "skill_name" as "skill".\nInvalid arguments for read_skill: "skill" must be a string, not a number ' +
          "(Skill name, or pack/name when several packs share it).",
      );
    });
  });

  // OpenAI's strict mode makes every argument required: models fill the ones they leave out with null or "".
  it.each([
    ["list_skills", { pack: null, query: null }, /^charcoal-brisket: .*\ncroissant-lamination: /m],
    ["list_skills", { pack: "", query: "sourdough starter" }, /^sourdough-bread: /],
    ["list_skills", { pack: "finance", query: null }, /^audit-helper: .*\npayroll-runs: /m],
    ["read_skill", { skill: "tax-returns", file: null }, /# tax-returns/],
    ["read_skill", { skill: "tax-returns", file: "" }, /# tax-returns/],
    ["read_pack_file", { pack: "finance", file: null }, /no pack-level files/],
    ["read_pack_file", { pack: "finance", file: "" }, /no pack-level files/],
  ] as const)(
    "reads %s's optional arguments sent as null or empty as not given: %j",
    async (tool, args, expected) => {
      const { text, isError } = await call(client, tool, { ...args });
      expect(isError).toBe(false);
      expect(text).toMatch(expected);
    },
  );

  it("still refuses a required argument sent as null, saying what it must be", async () => {
    const { text, isError } = await call(client, "read_skill", { skill: null, file: null });
    expect(isError).toBe(true);
    expect(text).toBe(
      'Invalid arguments for read_skill: "skill" must be a string, not null ' +
        "(Skill name, or pack/name when several packs share it).",
    );
  });
});

// An operator writes a pack's description for the whole pack: it may name groups and skills that a scope
// of some of its groups leaves out.
describe("an operator's description of a pack", () => {
  let described: RunningServer;
  beforeAll(async () => {
    const file = path.join(tree.dir, ".pack-descriptions.yaml");
    await writeFile(file, "cooking: Baking bread, and grilling such as charcoal-brisket.\n");
    described = await startServer(tree.dir, [], httpSettings(), { PACK_DESCRIPTIONS: file });
  });
  afterAll(async () => {
    await described.close();
  });

  it("is given to a scope holding the whole pack", async () => {
    const client = await described.connect({ headers: { "X-Skill-Pack": "cooking" } });
    expect((await call(client, "list_packs")).text).toContain(
      "cooking: 3 skills — Baking bread, and grilling such as charcoal-brisket.",
    );
    expect((await upfront(client)).instructions).toContain("Baking bread, and grilling");
  });

  // skills.toml describes the source; a deployment whose SKILL_PACKS loads one group serves less than that.
  it("from skills.toml is not given where SKILL_PACKS loads only some of the pack's groups", async () => {
    const fetched = await makeTree({
      ...TREE,
      "sources.json": JSON.stringify({
        sources: [{ name: "cooking", ref: "c".repeat(40), description: "Baking bread, and grilling." }],
      }),
    });
    const servers: RunningServer[] = [];
    try {
      for (const packs of ["cooking", "cooking/baking"]) {
        servers.push(await startServer(fetched.dir, [packs]));
      }
      const [whole, baking] = await Promise.all(servers.map((server) => server.connect()));
      if (whole === undefined || baking === undefined) throw new Error("two servers were started");
      expect((await call(whole, "list_packs")).text).toContain(
        "cooking: 3 skills — Baking bread, and grilling.",
      );
      const packs = (await call(baking, "list_packs")).text;
      expect(packs).toMatch(/^cooking: 2 skills — \S/);
      for (const text of [packs, (await upfront(baking)).instructions]) {
        expect(text).not.toMatch(/grilling/);
      }
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await fetched.remove();
    }
  });

  it("is not given to a scope of some of its groups, which gets its own skills' summary", async () => {
    const client = await described.connect({ headers: { "X-Skill-Pack": "cooking/baking" } });
    const { instructions, tools } = await upfront(client);
    const packs = (await call(client, "list_packs")).text;
    expect(packs).toMatch(/^cooking: 2 skills — \S/);
    for (const text of [packs, instructions, tools]) {
      expect(text).not.toMatch(/grilling|charcoal-brisket/);
    }
  });
});
