/**
 * Several replicas behind one Service, without sticky sessions: each page of a list may come from another
 * replica, and during a rolling update replicas serve catalogs a skill apart. Every cursor one mints must
 * walk on with another, listing each item they both serve once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireRequest } from "../helpers/requests.js";
import { ERAS, post, type RunningServer, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree, type TreeEntry } from "../helpers/skill-tree.js";

const SKILLS = 150;
const NAMES = Array.from({ length: SKILLS }, (_, i) => `skill-${String(i).padStart(3, "0")}`);
// Pack "other" makes X-Skill-Pack: big a scope narrower than the whole catalog.
const treeOf = (names: readonly string[]): Record<string, TreeEntry> => ({
  ...Object.fromEntries(names.map((name) => [`big/${name}/SKILL.md`, skillMd(name)])),
  "other/solo/SKILL.md": skillMd("solo"),
});
// The new image adds a skill that sorts before every other and removes one of the second page.
const OLD = NAMES;
const NEW = ["added-first", ...NAMES.filter((name) => name !== "skill-120")];

let trees: TempTree[] = [];
let replicas: RunningServer[] = [];
beforeAll(async () => {
  trees = await Promise.all([makeTree(treeOf(OLD)), makeTree(treeOf(NEW))]);
  replicas = await Promise.all(trees.map((tree) => startServer(tree.dir)));
});
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  await Promise.all(trees.map((tree) => tree.remove()));
});

const LISTS = [
  { method: "prompts/list", key: "prompts", params: {}, item: (name: string) => name },
  {
    method: "skills/list",
    key: "skills",
    params: {},
    item: (name: string) => `skill://big/${name}/SKILL.md`,
  },
  {
    method: "resources/directory/read",
    key: "resources",
    params: { uri: "skill://big" },
    item: (name: string) => `skill://big/${name}`,
  },
] as const;

/** Every page of a list, each asked of the next replica in turn, starting with replica `first`. */
async function walk(
  era: (typeof ERAS)[number],
  list: (typeof LISTS)[number],
  first: number,
  /** Sent as X-Skill-Pack. */
  pack?: string,
): Promise<string[]> {
  const items: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const replica = replicas[(first + page) % replicas.length];
    if (replica === undefined) throw new Error("no replica");
    const params = cursor === undefined ? list.params : { ...list.params, cursor };
    const { body, headers } = wireRequest(era, page, list.method, params);
    const answer = await post(
      `${replica.url}/mcp`,
      body,
      pack === undefined ? headers : { ...headers, "x-skill-pack": pack },
    );
    const { result } = answer.json as {
      result: Record<string, { name?: string; uri?: string }[]> & { nextCursor?: string };
    };
    items.push(...(result[list.key] ?? []).map((entry) => entry.uri ?? entry.name ?? ""));
    cursor = result.nextCursor;
    if (cursor === undefined) return items;
  }
  throw new Error("more than 10 pages");
}

describe.each(ERAS)("pages from replicas a skill apart (%s)", (era) => {
  // Regression: prompts/list's cursor was the index of the next page's first prompt, which a replica one
  // skill apart read as another prompt: a walk repeated one prompt (skill-099) or skipped one.
  it.each(LISTS)("$method lists each item both serve once, whichever replica starts", async (list) => {
    const both = OLD.filter((name) => NEW.includes(name)).map(list.item);
    for (const first of [0, 1]) {
      const items = await walk(era, list, first);
      expect(items.length).toBe(new Set(items).size);
      expect(items).toEqual(expect.arrayContaining(both));
    }
  });

  // A cursor names its scope, not the catalog: a pack held whole is the same scope on both replicas.
  it.each(LISTS)("$method pages on across the update within an X-Skill-Pack scope", async (list) => {
    const both = OLD.filter((name) => NEW.includes(name)).map(list.item);
    for (const first of [0, 1]) {
      const items = await walk(era, list, first, "big");
      expect(items.length).toBe(new Set(items).size);
      expect(items).toEqual(expect.arrayContaining(both));
    }
  });
});
