import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess } from "../helpers/process.js";
import { call, connectTo } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream, manifestOf, runFetcher, writeManifest } from "./helpers.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

describe("the server on a fetched skills folder", () => {
  it("serves ./skills as fetched, with the pinned commits in /health", async () => {
    const kit = await makeUpstream(path.join(tree.dir, "kit"), [
      {
        "skills/review/SKILL.md": skillMd("review", "Review a design.", "Read shared/checklist.md first.\n"),
        "skills/build/screen/SKILL.md": skillMd("screen", "Build a screen."),
        "shared/checklist.md": "# Checklist\n",
      },
    ]);
    const solo = await makeUpstream(path.join(tree.dir, "solo"), [{ "hammer/SKILL.md": skillMd("hammer") }]);
    const kitRef = kit.commits[0] ?? "";
    const soloRef = solo.commits[0] ?? "";
    const site = await mkdtemp(path.join(tree.dir, "site-"));
    await writeManifest(
      site,
      manifestOf([
        { name: "kit", repo: kit.url, ref: kitRef, path: "skills", extras: ["shared"] },
        { name: "solo", repo: solo.url, ref: soloRef },
      ]),
    );
    expect((await runFetcher([], site)).code).toBe(0);

    // No SKILLS_DIR: the server picks up ./skills in its working folder, as after `npm run fetch-skills`.
    const server = await startServerProcess({ SKILLS_DIR: "" }, site);
    let client: Client | undefined;
    try {
      const health = await (await fetch(`${server.url}/health`)).json();
      expect(health).toMatchObject({
        status: "ok",
        packs: ["kit", "solo"],
        skills: 3,
        sources: [
          { name: "kit", ref: kitRef },
          { name: "solo", ref: soloRef },
        ],
      });

      client = await connectTo(new URL("/mcp", server.url));
      const packs = await call(client, "list_packs");
      expect(packs.text).toContain("kit");
      const review = await call(client, "read_skill", { skill: "review" });
      expect(review.text).toContain("Read shared/checklist.md first.");
      const cited = await call(client, "read_skill", { skill: "review", file: "shared/checklist.md" });
      expect(cited.text).toContain('read_pack_file(pack="kit", file="shared/checklist.md")');
      const checklist = await call(client, "read_pack_file", { pack: "kit", file: "shared/checklist.md" });
      expect(checklist).toEqual({ text: expect.stringContaining("# Checklist"), isError: false });
    } finally {
      await client?.close();
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});
