/**
 * Every way into a skills folder goes through one startup (src/startup): the server, check-skills and the
 * in-memory client give the same catalog for the same SKILL_PACKS and the same saved index.
 *
 * Regression (issue 25): check-skills ignored SKILL_PACKS and checked every pack, and the in-memory client
 * never loaded a saved index, so both could report or answer otherwise than the server.
 */
import { execFile } from "node:child_process";
import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInMemory, mcpDepsOf } from "../../scripts/in-memory-client.js";
import { builtScript } from "../helpers/built-scripts.js";
import { logLines, ROOT, runServer, ServerProcesses } from "../helpers/process.js";
import { call, connectClient } from "../helpers/remote.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

const run = promisify(execFile);
/** A narrower selection than the folder: pack gamma and group beta/other are not loaded. */
const ENV = { SKILL_PACKS: "alpha,beta/tools" };

let tree: TempTree;
const servers = new ServerProcesses();
beforeAll(async () => {
  tree = await makeTree({
    "alpha/hammer/SKILL.md": skillMd(
      "hammer",
      "Drive nails with a hammer.",
      "# Hammer\nPound the nails flush.\n",
    ),
    "alpha/saw/SKILL.md": skillMd("saw", "Cut planks to length.", "# Saw\nMeasure twice.\n"),
    "alpha/hidden/SKILL.md": skillMd("hidden", "Hides a note.", "Be nice.\u202E\n"),
    "beta/tools/drill/SKILL.md": skillMd("drill", "Bore holes in walls.", "# Drill\nPick the bit.\n"),
    "beta/other/level/SKILL.md": skillMd("level", "Check a shelf is flat."),
    "gamma/rake/SKILL.md": skillMd("rake", "Gather leaves."),
  });
  const saved = await runServer({ ...ENV, SKILLS_DIR: tree.dir }, ["--build-index"]);
  expect(saved).toMatchObject({ code: 0 });
  // An edit that keeps the file's size and time: what the saved index holds is served, which only a start
  // that takes it from the saved index can serve.
  const hammer = path.join(tree.dir, "alpha/hammer/SKILL.md");
  const { mtime } = await stat(hammer);
  await writeFile(hammer, (await readFile(hammer, "utf8")).replace("Pound the nails", "Pound the bolts"));
  await utimes(hammer, mtime, mtime);
});
afterAll(async () => {
  await servers.stopAll();
  await tree.remove();
});

/** What a model is told of the catalog: the packs, each pack's skills, and a search of the saved text. */
async function answers(callTool: (name: string, args?: Record<string, unknown>) => Promise<string>) {
  return {
    packs: await callTool("list_packs"),
    alpha: await callTool("list_skills", { pack: "alpha" }),
    beta: await callTool("list_skills", { pack: "beta" }),
    nails: await callTool("list_skills", { query: "nails" }),
    bolts: await callTool("list_skills", { query: "bolts" }),
  };
}

describe("one startup for the server, check-skills and the in-memory client", () => {
  it("serves, reports and answers the same catalog for the same SKILL_PACKS and saved index", async () => {
    const server = await servers.startReady({ ...ENV, SKILLS_DIR: tree.dir });
    expect(logLines(server.output()).find((line) => line.msg === "ready")).toMatchObject({ index: "loaded" });
    const health = (await (await fetch(`${server.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({
      packs: ["alpha", "beta"],
      skills: 3,
      unsafeSkills: { leftOut: 1, served: 0 },
    });
    const leftOut = logLines(server.output()).flatMap((line) =>
      String(line.msg).endsWith("left out as unsafe: alpha/hidden/SKILL.md:6: bidi-control")
        ? [line.skill]
        : [],
    );
    expect(leftOut).toEqual(["alpha/hidden"]);

    const remote = await connectClient(server.url);
    let served: Awaited<ReturnType<typeof answers>>;
    try {
      served = await answers(async (name, args) => (await call(remote.client, name, args)).text);
    } finally {
      await remote.close();
    }
    // The saved index was used: its search index holds the text as it was saved.
    expect(served.nails).toMatch(/^hammer: /);
    expect(served.bolts).not.toMatch(/hammer/);
    expect(served.alpha).not.toContain("hidden");
    expect(served.packs).not.toContain("gamma");

    const inMemory = await connectInMemory(await mcpDepsOf(tree.dir, { env: ENV }));
    try {
      expect(await answers(async (name, args) => (await call(inMemory, name, args)).text)).toEqual(served);
    } finally {
      await inMemory.close();
    }

    // Its bundle, built from the same sources (test/helpers/built-scripts.ts): under tsx, the process
    // compiled the server's modules anew.
    const checked = await run(process.execPath, [builtScript("scripts/check-skills.ts"), tree.dir], {
      cwd: ROOT,
      env: { ...process.env, ...ENV },
    });
    // Counted as /health counts them: the skills loaded, less those the server leaves out as unsafe.
    expect(checked.stdout).toContain(
      "3 skills in 2 packs (alpha 2, beta 1); 0 left out, 0 warnings; 1 unsafe skill left out (Audit, below).",
    );
    expect(checked.stdout).toContain(
      "A high finding makes 1 skill unsafe; the server leaves it out (UNSAFE_SKILLS=serve would serve it): `alpha/hidden`.",
    );
  });
});
