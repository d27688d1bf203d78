/**
 * A cursor pages the listing that gave it, and no other: the same list in another scope (X-Skill-Pack,
 * ?pack=), another folder, or another list read a cursor as a place in its own order and answered what
 * follows there, skipping whatever came before without a word. Every scope is named alike on every
 * replica, so the cursors of one scope, however its client spells it, page on anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireRequest } from "../helpers/requests.js";
import { ERAS, post, type RunningServer, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree, type TreeEntry } from "../helpers/skill-tree.js";

const numbered = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
// Pack "big" holds 30 skills of its own, a group of 120 and 50 pack files; pack "aaa", sorted first, 5
// skills and a pack file.
const OWN = numbered("own", 30);
const GROUPED = numbered("grouped", 120);
const AAA = numbered("first", 5);
const DOCS = numbered("doc", 50).map((name) => `big/docs/${name}.md`);
const TREE: Record<string, TreeEntry> = Object.fromEntries([
  ...OWN.map((name) => [`big/${name}/SKILL.md`, skillMd(name)]),
  ...GROUPED.map((name) => [`big/grp/${name}/SKILL.md`, skillMd(name)]),
  ...AAA.map((name) => [`aaa/${name}/SKILL.md`, skillMd(name)]),
  ...DOCS.map((path) => [path, `# ${path}\n`]),
  ["aaa/notes.md", "# Notes\n"],
]);

let tree: TempTree;
let replicas: RunningServer[] = [];
beforeAll(async () => {
  tree = await makeTree(TREE);
  // Two replicas of one deployment: a cursor one gives, the other takes.
  replicas = await Promise.all([startServer(tree.dir), startServer(tree.dir)]);
});
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  await tree.remove();
});

type Era = (typeof ERAS)[number];
interface Ask {
  readonly method: string;
  readonly params?: Record<string, unknown>;
  /** Sent as X-Skill-Pack. */
  readonly pack?: string;
  /** Added to /mcp: `?pack=…`. */
  readonly query?: string;
  readonly replica?: number;
}
interface Page {
  readonly items: string[];
  readonly nextCursor: string | undefined;
  readonly error: { code: number; message: string } | undefined;
}

async function ask(era: Era, { method, params = {}, pack, query = "", replica = 0 }: Ask): Promise<Page> {
  const server = replicas[replica];
  if (server === undefined) throw new Error("no replica");
  const { body, headers } = wireRequest(era, 1, method, params);
  const answer = await post(`${server.url}/mcp${query}`, body, {
    ...headers,
    ...(pack === undefined ? {} : { "x-skill-pack": pack }),
  });
  const { result, error } = answer.json as {
    result?: Record<string, { name?: string; uri?: string }[]> & { nextCursor?: string };
    error?: { code: number; message: string };
  };
  const listed = result?.skills ?? result?.prompts ?? result?.resources ?? [];
  return {
    items: listed.map((entry) => entry.uri ?? entry.name ?? ""),
    nextCursor: result?.nextCursor,
    error,
  };
}

/** The first page's cursor of a listing. */
async function firstCursor(era: Era, listing: Ask): Promise<string> {
  const { nextCursor } = await ask(era, listing);
  if (nextCursor === undefined) throw new Error(`${listing.method} has one page`);
  return nextCursor;
}

/** Every page of a listing, each page asked as `next` says (another spelling, another replica). */
async function walk(era: Era, listing: Ask, next: Ask = listing): Promise<string[]> {
  let page = await ask(era, listing);
  const items = [...page.items];
  for (let pages = 1; page.nextCursor !== undefined; pages++) {
    if (page.error !== undefined || pages > 5) throw new Error(`page ${pages}: ${page.error?.message}`);
    page = await ask(era, { ...next, params: { ...next.params, cursor: page.nextCursor } });
    items.push(...page.items);
  }
  expect(page.error).toBeUndefined();
  return items;
}

const SKILLS_LIST = { method: "skills/list" };
const PROMPTS_LIST = { method: "prompts/list" };
const GROUP_FOLDER = { method: "resources/directory/read", params: { uri: "skill://big/grp" } };
const RESOURCES_LIST = { method: "resources/list" };

describe.each(ERAS)("cursors in the %s era", (era) => {
  it("page each listing to its end, each item once, on either replica and in any spelling of the scope", async () => {
    const everything = await walk(era, SKILLS_LIST, { ...SKILLS_LIST, replica: 1 });
    expect(everything).toHaveLength(155);
    expect(new Set(everything).size).toBe(155);
    const big = await walk(
      era,
      { ...SKILLS_LIST, pack: "big" },
      { ...SKILLS_LIST, pack: " big,", replica: 1 },
    );
    expect(big).toEqual(everything.filter((uri) => uri.startsWith("skill://big/")));
    const byQuery = await walk(era, { ...SKILLS_LIST, pack: "big" }, { ...SKILLS_LIST, query: "?pack=big" });
    expect(byQuery).toEqual(big);
    // The group by its name, then by pack/group, and within pack big by the group's name.
    const group = await walk(
      era,
      { ...SKILLS_LIST, pack: "grp" },
      { ...SKILLS_LIST, pack: "big", query: "?pack=big/grp" },
    );
    expect(group).toHaveLength(120);
    const prompts = await walk(
      era,
      { ...PROMPTS_LIST, pack: "big" },
      { ...PROMPTS_LIST, pack: "big", replica: 1 },
    );
    expect(new Set(prompts).size).toBe(150);
    const children = await walk(era, GROUP_FOLDER, { ...GROUP_FOLDER, params: { uri: "skill://big/grp/" } });
    expect(children).toEqual(GROUPED.map((name) => `skill://big/grp/${name}`));
  });

  it("are refused in another scope, with what to call instead", async () => {
    const everywhere = await firstCursor(era, SKILLS_LIST);
    const inBig = await firstCursor(era, { ...SKILLS_LIST, pack: "big" });
    const refusal = {
      code: -32602,
      message:
        "Invalid cursor: it pages skills/list in another scope (X-Skill-Pack or ?pack=) than this request's; " +
        "call skills/list without a cursor to list from the start.",
    };
    for (const wrong of [
      { ...SKILLS_LIST, pack: "big", params: { cursor: everywhere } },
      { ...SKILLS_LIST, query: "?pack=big", params: { cursor: everywhere } },
      { ...SKILLS_LIST, params: { cursor: inBig } },
      { ...SKILLS_LIST, pack: "big/grp", params: { cursor: inBig }, replica: 1 },
    ]) {
      expect(await ask(era, wrong)).toMatchObject({ items: [], error: refusal });
    }
    const prompts = await firstCursor(era, { ...PROMPTS_LIST, pack: "big" });
    expect((await ask(era, { ...PROMPTS_LIST, params: { cursor: prompts } })).error).toEqual({
      code: -32602,
      message:
        "Invalid cursor: it pages prompts/list in another scope (X-Skill-Pack or ?pack=) than this request's; " +
        "call prompts/list without a cursor to list from the start.",
    });
  });

  it("are refused by another folder, or the same folder in another scope", async () => {
    const children = await firstCursor(era, GROUP_FOLDER);
    const refusal = {
      code: -32602,
      message:
        "Invalid cursor: it pages resources/directory/read in another folder or scope (X-Skill-Pack or ?pack=) " +
        "than this request's; call resources/directory/read of skill://big without a cursor to list from the start.",
    };
    const otherFolder = {
      method: "resources/directory/read",
      params: { uri: "skill://big", cursor: children },
    };
    expect((await ask(era, otherFolder)).error).toEqual(refusal);
    const otherScope = { ...GROUP_FOLDER, pack: "grp", params: { ...GROUP_FOLDER.params, cursor: children } };
    expect((await ask(era, otherScope)).error).toEqual({
      code: -32602,
      message: refusal.message.replace("skill://big ", "skill://big/grp "),
    });
  });

  it("are refused by another list, and one this server never gave is told apart", async () => {
    const prompts = await firstCursor(era, PROMPTS_LIST);
    expect((await ask(era, { ...SKILLS_LIST, params: { cursor: prompts } })).error).toEqual({
      code: -32602,
      message:
        "Invalid cursor: it is one of prompts/list, not of skills/list; " +
        "call skills/list without a cursor to list from the start.",
    });
    const skills = await firstCursor(era, SKILLS_LIST);
    expect(
      (await ask(era, { ...GROUP_FOLDER, params: { ...GROUP_FOLDER.params, cursor: skills } })).error,
    ).toEqual({
      code: -32602,
      message:
        "Invalid cursor: it is one of skills/list, not of resources/directory/read; " +
        "call resources/directory/read of skill://big/grp without a cursor to list from the start.",
    });
    // A URI where a cursor goes, and a cursor of the base64 kind earlier versions gave.
    for (const cursor of [
      "skill://big/own-000/SKILL.md",
      Buffer.from("page:skill://aaa").toString("base64url"),
    ]) {
      expect((await ask(era, { ...SKILLS_LIST, params: { cursor } })).error).toEqual({
        code: -32602,
        message:
          "Invalid cursor: not one this server gave for skills/list; " +
          "call skills/list without a cursor to list from the start.",
      });
    }
  });

  // Regression: a folder's cursor held its place as the read that gave it spelled the pack, and was
  // compared so: a host that read the first page as skill://BIG/grp and the next as skill://big/grp (or
  // back) got an empty page, or the first page again, without an error.
  it("page a folder to its end whatever case each read spells its pack in", async () => {
    const spelled = (uri: string) => ({ ...GROUP_FOLDER, params: { uri } });
    const expected = GROUPED.map((name) => `skill://big/grp/${name}`);
    expect(await walk(era, spelled("skill://BIG/grp"), GROUP_FOLDER)).toEqual([
      ...expected.slice(0, 100).map((uri) => uri.replace("skill://big/", "skill://BIG/")),
      ...expected.slice(100),
    ]);
    expect(await walk(era, GROUP_FOLDER, spelled("skill://Big/grp/"))).toEqual([
      ...expected.slice(0, 100),
      ...expected.slice(100).map((uri) => uri.replace("skill://big/", "skill://Big/")),
    ]);
  });

  // Regression: a skills/list or folder cursor whose place was changed (emptied, or naming what no page of
  // the listing ends at) was answered a page from wherever it sorted, the first page again or none, as if
  // it were valid; prompts/list and resources/list refused theirs.
  it("are refused when their place names nothing a page of their listing ends at", async () => {
    const skills = await firstCursor(era, SKILLS_LIST);
    const children = await firstCursor(era, GROUP_FOLDER);
    const head = (cursor: string) => cursor.slice(0, cursor.indexOf("~") + 1);
    for (const cursor of ["", "zzz", "../../etc/passwd", "big/own-000", "/SKILL.md"].map(
      (place) => `${head(skills)}${place}`,
    )) {
      expect((await ask(era, { ...SKILLS_LIST, params: { cursor } })).error, cursor).toEqual({
        code: -32602,
        message:
          "Invalid cursor: not one this server gave for skills/list; " +
          "call skills/list without a cursor to list from the start.",
      });
    }
    for (const cursor of ["", "zzz", "big/grp", "big/grp/", "big/own-000/SKILL.md", "big/grp/a/b"].map(
      (place) => `${head(children)}${place}`,
    )) {
      const read = { ...GROUP_FOLDER, params: { ...GROUP_FOLDER.params, cursor } };
      expect((await ask(era, read)).error, cursor).toEqual({
        code: -32602,
        message:
          "Invalid cursor: not one this server gave for resources/directory/read; " +
          "call resources/directory/read of skill://big/grp without a cursor to list from the start.",
      });
    }
  });

  // resources/list named the first 50 skills and the first 50 pack files, and took no cursor: the rest of
  // a large catalog was in no listing.
  it("page resources/list too: every skill's SKILL.md by URI, then every pack file, each once", async () => {
    const skills = await walk(era, SKILLS_LIST);
    const packFiles = ["skill://aaa/notes.md", ...DOCS.map((path) => `skill://${path}`)];
    expect(await walk(era, RESOURCES_LIST, { ...RESOURCES_LIST, replica: 1 })).toEqual([
      ...skills,
      ...packFiles,
    ]);
    expect(
      await walk(era, { ...RESOURCES_LIST, pack: "big" }, { ...RESOURCES_LIST, query: "?pack=big" }),
    ).toEqual([...skills.filter((uri) => uri.startsWith("skill://big/")), ...packFiles.slice(1)]);
    const inBig = await firstCursor(era, { ...RESOURCES_LIST, pack: "big" });
    expect((await ask(era, { ...RESOURCES_LIST, params: { cursor: inBig } })).error).toEqual({
      code: -32602,
      message:
        "Invalid cursor: it pages resources/list in another scope (X-Skill-Pack or ?pack=) than this request's; " +
        "call resources/list without a cursor to list from the start.",
    });
    const skillsCursor = await firstCursor(era, SKILLS_LIST);
    expect((await ask(era, { ...RESOURCES_LIST, params: { cursor: skillsCursor } })).error).toEqual({
      code: -32602,
      message:
        "Invalid cursor: it is one of skills/list, not of resources/list; " +
        "call resources/list without a cursor to list from the start.",
    });
    expect((await ask(era, { ...RESOURCES_LIST, params: { cursor: "skill://aaa/notes.md" } })).error).toEqual(
      {
        code: -32602,
        message:
          "Invalid cursor: not one this server gave for resources/list; " +
          "call resources/list without a cursor to list from the start.",
      },
    );
  });
});
