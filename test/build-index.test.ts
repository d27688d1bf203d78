/**
 * `--build-index` and the saved index, through the real process: the file it writes, and what a server
 * started next does with it (loads it when it fits the catalog, builds its own otherwise, and says which).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "./helpers/fixtures.js";
import {
  logLines,
  MAIN,
  pidOf,
  ROOT,
  runServer,
  ServerProcesses,
  stdioServerProcess,
  TEST_ENV,
} from "./helpers/process.js";
import { call, connectClient } from "./helpers/remote.js";
import { skillMd } from "./helpers/skill-tree.js";

let tree: StandardCatalog;
let savedIndex: string;
const servers = new ServerProcesses();
beforeEach(async () => {
  tree = await makeStandardCatalog();
  savedIndex = path.join(tree.skillsDir, ".search-index");
});
afterEach(async () => {
  await servers.stopAll();
  await tree.remove();
});

type LogLine = Record<string, unknown>;

async function buildIndexFile(env: Record<string, string> = {}): Promise<LogLine> {
  const result = await runServer({ SKILLS_DIR: tree.skillsDir, ...env }, ["--build-index"]);
  expect(result).toMatchObject({ code: 0, stderr: "" });
  const saved = logLines(result.stdout).find((line) => line.msg === "index saved");
  expect(saved).toMatchObject({
    file: savedIndex,
    skills: expect.any(Number),
    bytes: expect.any(Number),
    parts: ["documents", "search", "inspection", "terms"],
  });
  return saved as LogLine;
}

/** Starts a server and waits for its `ready` line; returns its log so far and a search through MCP. */
async function start(env: Record<string, string> = {}) {
  const server = await servers.startReady({ SKILLS_DIR: tree.skillsDir, ...env });
  const lines = logLines(server.output());
  const search = async (query: string) => {
    const client = await connectClient(server.url);
    try {
      return (await call(client.client, "list_skills", { query })).text;
    } finally {
      await client.close();
    }
  };
  return { lines, search, ready: lines.find((line) => line.msg === "ready"), url: server.url };
}

/** The line saying that a saved index (or its search index) was found and not used. */
function notUsed(lines: readonly LogLine[]): LogLine | undefined {
  return lines.find((line) => /^saved (search )?index not used/.test(String(line.msg)));
}

describe("--build-index", () => {
  it("saves the index in the skills folder, and a server started next loads it instead of building", async () => {
    const saved = await buildIndexFile();
    expect(saved.skills).toBe(9);
    expect(existsSync(savedIndex)).toBe(true);

    const { lines, search, ready } = await start();
    expect(lines.find((line) => line.msg === "search index loaded from the saved index")).toMatchObject({
      level: 30,
      file: savedIndex,
      skills: 9,
      bytes: expect.any(Number),
      ms: expect.any(Number),
    });
    expect(lines.some((line) => line.msg === "search index built")).toBe(false);
    // Every skill's digests come from the saved index too: no file is read again.
    expect(lines.find((line) => line.msg === "skills inspected")).toMatchObject({ inspected: 0, reused: 9 });
    expect(ready).toMatchObject({ index: "loaded" });
    expect(await search("drive nails")).toMatch(/^hammer: Drive nails with a hammer\./);
    // The catalog skips hidden files: the index is not a pack, nor a file of one.
    expect(lines.find((line) => line.msg === "catalog loaded")).toMatchObject({
      packs: ["alpha", "beta", "gamma"],
      skills: 9,
    });
  });

  it("has a server started from it name each skill whose SKILL.md search holds only the first words of", async () => {
    // Regression: only the build said so (its own log), so that an operator who reads the server's log never
    // learned that a search would not find the skill by its later words.
    // Made-up words the stemmer leaves alone, one per number: its base-26 digits as the letters a to z.
    const words = Array.from(
      { length: 5000 },
      (_, i) =>
        `zq${[...i.toString(26)].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 26))).join("")}x`,
    );
    await mkdir(path.join(tree.skillsDir, "gamma", "word-flood"));
    await writeFile(
      path.join(tree.skillsDir, "gamma", "word-flood", "SKILL.md"),
      skillMd("word-flood", "Floods the search index with made-up words.", `${words.join(" ")}\n`),
    );
    await buildIndexFile();
    const { lines, ready } = await start();
    expect(ready).toMatchObject({ index: "loaded" });
    expect(lines.filter((line) => line.skill === "gamma/word-flood")).toEqual([
      expect.objectContaining({
        level: 40,
        limit: 4096,
        msg:
          "gamma/word-flood: SKILL.md holds more than 4,096 distinct words: search indexes its first ones " +
          "only (its name and description whole)",
      }),
    ]);
  });

  it("saves the previews' tally of terms: a server started next reads it, and says what one that tallies says", async () => {
    const tallying = await start();
    const previewsOf = async (url: string) => {
      const client = await connectClient(url);
      try {
        const { tools } = await client.client.listTools();
        const listSkills = tools.find((tool) => tool.name === "list_skills")?.description;
        return {
          instructions: client.client.getInstructions(),
          listSkills,
          packs: (await call(client.client, "list_packs", {})).text,
        };
      } finally {
        await client.close();
      }
    };
    const tallied = await previewsOf(tallying.url);
    await servers.stopAll();
    await buildIndexFile();

    const { lines, url } = await start();
    expect(
      lines.find((line) => String(line.msg).startsWith("previews' terms found in the saved index")),
    ).toMatchObject({
      level: 30,
      file: savedIndex,
      msg: "previews' terms found in the saved index: read once serving, not tallied",
    });
    // Over stdio too, where "after listening", as the line said, was no moment at all: it listens on nothing.
    const stdio = stdioServerProcess({ ...process.env, ...TEST_ENV, SKILLS_DIR: tree.skillsDir });
    expect(await stdio.end()).toBe(0);
    expect(logLines(stdio.stderr()).map((line) => line.msg)).toContain(
      "previews' terms found in the saved index: read once serving, not tallied",
    );
    expect(lines.some((line) => String(line.msg).startsWith("saved terms of the previews not used"))).toBe(
      false,
    );
    expect(tallied.listSkills).toMatch(/alpha/);
    expect(await previewsOf(url)).toEqual(tallied);
  });

  it("without a saved index, builds one at startup and says there was none", async () => {
    const { lines, search, ready } = await start();
    expect(lines.find((line) => String(line.msg).startsWith("no saved index"))).toMatchObject({
      file: savedIndex,
    });
    expect(lines.find((line) => line.msg === "search index built")).toMatchObject({ skills: 9 });
    expect(lines.find((line) => line.msg === "skills inspected")).toMatchObject({ inspected: 9, reused: 0 });
    expect(ready).toMatchObject({ index: "built" });
    expect(await search("drive nails")).toMatch(/^hammer: /);
  });

  it("is not used once a SKILL.md changed: the server says so and builds its own", async () => {
    await buildIndexFile();
    const saw = path.join(tree.skillsDir, "beta/tools/saw/SKILL.md");
    const later = new Date(Date.now() + 60_000);
    await utimes(saw, later, later);

    const { lines, search, ready } = await start();
    expect(notUsed(lines)).toMatchObject({
      level: 30,
      file: savedIndex,
      problem: expect.stringMatching(/^built from another catalog: .*modification time of its SKILL\.md/),
      msg: expect.stringMatching(/^saved search index not used, building the index: built from another/),
    });
    expect(ready).toMatchObject({ index: "built" });
    expect(await search("cut planks")).toMatch(/^saw: /);
    // Only the changed skill is read again for the Skills extension.
    expect(lines.find((line) => line.msg === "skills inspected")).toMatchObject({ inspected: 1, reused: 8 });
  });

  it("reads again only the skill whose supporting file changed, and serves its new digests", async () => {
    await buildIndexFile();
    const guide = path.join(tree.skillsDir, "alpha/two/references/guide.md");
    await writeFile(guide, "# A longer guide than before\n");
    const { lines, ready, url } = await start();
    expect(ready).toMatchObject({ index: "loaded" });
    expect(lines.find((line) => line.msg === "skills inspected")).toMatchObject({ inspected: 1, reused: 8 });
    const connected = await connectClient(url, {}, { era: "modern" });
    try {
      const skills = new SkillsClient(connected.client);
      const { skill } = await skills.get("skill://alpha/two/SKILL.md");
      // The SDK's client checks the file's size and digest against the entry before it returns it.
      const read = await skills.read(skill, "references/guide.md");
      expect(read).toMatchObject({ verified: true, text: "# A longer guide than before\n" });
    } finally {
      await connected.close();
    }
  });

  it("is not used when SKILL_PACKS loads another part of the skills; one saved with it is", async () => {
    await buildIndexFile();
    const narrowed = await start({ SKILL_PACKS: "beta/tools" });
    expect(notUsed(narrowed.lines)).toMatchObject({
      level: 30,
      problem: "built from another catalog: 9 skills, where 2 are loaded",
    });
    expect(narrowed.ready).toMatchObject({ index: "built" });
    expect(await narrowed.search("drive nails and drill holes")).toMatch(/^hammer: [^\n]*\n(?!drill)/);

    const saved = await buildIndexFile({ SKILL_PACKS: "beta/tools" });
    expect(saved.skills).toBe(2);
    const matching = await start({ SKILL_PACKS: "beta/tools" });
    expect(matching.ready).toMatchObject({ index: "loaded" });
    expect(notUsed(matching.lines)).toBeUndefined();
  });

  it("is not used when it is garbage or cut short: the server warns, starts and searches", async () => {
    await writeFile(savedIndex, "this is not an index");
    const garbage = await start();
    expect(notUsed(garbage.lines)).toMatchObject({ level: 40, problem: "not a saved index of skills-mcp" });
    expect(garbage.ready).toMatchObject({ index: "built" });
    expect(await garbage.search("cut planks")).toMatch(/^saw: /);

    const { bytes } = await buildIndexFile();
    await writeFile(savedIndex, (await readFile(savedIndex)).subarray(0, Number(bytes) - 100));
    const truncated = await start();
    expect(notUsed(truncated.lines)).toMatchObject({
      level: 40,
      problem: expect.stringMatching(/^truncated or damaged/),
    });
    expect(await truncated.search("cut planks")).toMatch(/^saw: /);
  });

  // Regression (issue 24): a same-length edit of a part was served as is; only a torn file was noticed.
  it("is not used when an edit that keeps its length damaged a part: the server warns and works it out", async () => {
    await buildIndexFile();
    const file = await readFile(savedIndex);
    const at = file.indexOf("Drive nails with a hammer.");
    expect(at).toBeGreaterThan(0);
    file.write("Drive bolts", at);
    await writeFile(savedIndex, file);

    const damaged = await start();
    expect(notUsed(damaged.lines)).toMatchObject({
      level: 40,
      problem: expect.stringMatching(/^damaged: its part "\w+" does not match its checksum$/),
    });
    expect(damaged.ready).toMatchObject({ index: "built" });
    expect(await damaged.search("hammer")).toMatch(/^hammer: Drive nails with a hammer\./);
  });

  // Regression (issue 24): a run killed between writing and renaming left .search-index.<uuid>.tmp behind.
  it("removes the temporary files that a killed run left, and only those", async () => {
    const uuid = "0b6c2f7e-4d1a-4c3b-9e8f-123456789abc";
    const names = {
      stale: `.search-index.${uuid}.tmp`,
      fresh: `.search-index.${uuid.replace("0b6c", "1c7d")}.tmp`,
      other: `.search-index.notes.tmp`,
      elsewhere: `other.${uuid}.tmp`,
    };
    for (const name of Object.values(names)) await writeFile(path.join(tree.skillsDir, name), "partial");
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    for (const name of [names.stale, names.other, names.elsewhere]) {
      await utimes(path.join(tree.skillsDir, name), hourAgo, hourAgo);
    }

    const result = await runServer({ SKILLS_DIR: tree.skillsDir }, ["--build-index"]);
    expect(result.code).toBe(0);
    expect(logLines(result.stdout).find((line) => Array.isArray(line.removed))).toMatchObject({
      removed: [names.stale],
    });
    const left = (await readdir(tree.skillsDir)).filter((name) => name.endsWith(".tmp")).sort();
    expect(left).toEqual([names.other, names.fresh, names.elsewhere].sort());
  });

  // Its log lines were queued and written at exit by a synchronous flush that retries a closed pipe
  // forever: `--build-index | head -1` never ended, and no signal but SIGKILL stopped it.
  it("ends, with the index saved, when what reads its log stops reading (| head -1)", async () => {
    // The bundled examples, whose lines reach the closed pipe while some are still queued at exit.
    const examples = path.join(tree.dir, "examples");
    await cp(path.join(ROOT, "examples/skills"), examples, { recursive: true });
    // Through a shell, as an operator types it; the pipeline's status is head's, so the server's is kept.
    const status = path.join(tree.dir, "status");
    const command = `{ "${process.execPath}" "${MAIN[0]}" --build-index; echo $? > "${status}"; } | head -1 >/dev/null`;
    const shell = spawn("sh", ["-c", command], {
      env: { ...process.env, ...TEST_ENV, SKILLS_DIR: examples, NODE_OPTIONS: "" },
      stdio: "ignore",
      detached: true,
    });
    const pid = pidOf(shell);
    const timer = setTimeout(() => process.kill(-pid, "SIGKILL"), 30_000);
    const code = await new Promise<number | null>((resolve) => shell.once("exit", resolve));
    clearTimeout(timer);
    // Ended by itself, not by the timer's SIGKILL.
    expect(code).toBe(0);
    expect(await readFile(status, "utf8")).toBe("0\n");
    expect(existsSync(path.join(examples, ".search-index"))).toBe(true);
  });

  it("exits 1 with one line when it cannot write the file", async () => {
    await mkdir(path.join(savedIndex, "in-the-way"), { recursive: true });
    const result = await runServer({ SKILLS_DIR: tree.skillsDir }, ["--build-index"]);
    expect(result.code).toBe(1);
    // It ended with Node's own words and the path of its temporary file, where the reason was a folder.
    expect(result.stderr).toBe(
      `skills-mcp: Cannot save the index to ${savedIndex}: a folder of that name is in the way (EISDIR); remove it\n`,
    );
  });
});
