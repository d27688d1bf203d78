/**
 * Issue 24: every file a view lists can be read through that view. A file named `_manifest` (the name that
 * asks read_skill and read_pack_file for the list) or holding a backslash (which paths and URIs refuse) was
 * listed by the manifests and the Skills extension, and no read could reach it. A name holding characters
 * no reader sees (a bidi override, tag characters, a newline forging a manifest line) was listed raw.
 */
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type RunningServer, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

let tree: TempTree;
let server: RunningServer;
let client: Client;
beforeAll(async () => {
  tree = await makeTree({
    "p/ok/SKILL.md": skillMd("ok"),
    "p/ok/notes.md": "# Notes\n",
    "p/ok/_manifest": "a file that read_skill's listing name hides",
    "p/ok/back\\slash.md": "a name no path can hold",
    "p/ok/sub/_manifest": "readable: its path is sub/_manifest",
    "p/ok/doc\u202Edm.exe": "a name that reads backwards",
    "p/ok/x.md (1 B)\nfake.md": "a name that forges a manifest line",
    "p/_manifest": "a pack file that read_pack_file's listing name hides",
    "p/shared/guide.md": "# Guide\n",
    "p/shared/odd\\name.md": "a pack file no path can name",
    "p/shared/guide\u{E0020}\u{E0069}.md": "a pack file whose name hides text",
  });
  server = await startServer(tree.dir);
  client = await server.connect();
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

/** The paths a manifest answer lists: one `path (size)` line each, between its title and `Next:`. */
function listedPaths(manifest: string): string[] {
  return manifest
    .split("\n")
    .slice(1, -1)
    .map((line) => line.replace(/ \([^)]*\)$/, ""));
}

describe("files a view lists", () => {
  it("read_skill lists only files it can read", async () => {
    const manifest = await call(client, "read_skill", { skill: "ok", file: "_manifest" });
    expect(listedPaths(manifest.text)).toEqual(["notes.md", "sub/_manifest"]);
    for (const file of listedPaths(manifest.text)) {
      expect(await call(client, "read_skill", { skill: "ok", file })).toMatchObject({ isError: false });
    }
    expect((await call(client, "read_skill", { skill: "ok", file: "sub/_manifest" })).text).toBe(
      "readable: its path is sub/_manifest",
    );
  });

  it("read_pack_file lists only files it can read", async () => {
    const manifest = await call(client, "read_pack_file", { pack: "p" });
    expect(listedPaths(manifest.text)).toEqual(["shared/guide.md"]);
    expect(await call(client, "read_pack_file", { pack: "p", file: "shared/guide.md" })).toEqual({
      text: "# Guide\n",
      isError: false,
    });
  });

  it("the Skills extension's entry and resources/list name only files that read", async () => {
    const skills = new SkillsClient(client);
    const listing = await skills.list();
    const [entry] = listing.skills;
    if (entry === undefined || entry.resources === "dynamic") throw new Error("no entry for p/ok");
    expect(entry.resources.map((resource) => resource.uri)).toEqual([
      "skill://p/ok/SKILL.md",
      "skill://p/ok/notes.md",
      "skill://p/ok/sub/_manifest",
    ]);
    for (const { uri } of entry.resources) expect((await skills.read(entry, uri)).verified).toBe(true);
    const { resources } = await client.listResources();
    for (const { uri } of resources) expect((await client.readResource({ uri })).contents).toHaveLength(1);
    expect(resources.map((resource) => resource.uri)).toContain("skill://p/shared/guide.md");
  });
});
