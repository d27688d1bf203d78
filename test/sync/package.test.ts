/**
 * The npm package as users get it: `npm pack` of a copy of the repository (its prepack builds it), the
 * tarball installed into an empty folder from the npm registry, and its `skills-mcp` command run: help,
 * a real sync, and `--stdio` serving the bundled examples. Slow (an install), so its steps get generous
 * time limits, but never an unbounded wait.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/process.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { readTree, type Served, serveCatalog, tempFolder } from "./helpers.js";

/** Each step of packing and installing gets this long at most. */
const STEP_MS = 10 * 60_000;
/** What the repository holds besides the package's sources: never copied, never packed. */
const NOT_COPIED = new Set([".git", "node_modules", "dist", "coverage", "skills", ".skills-cache"]);

/** The environment without what `npm test` sets for its own run, so that npm here starts clean. */
function cleanEnv(): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !entry[0].toLowerCase().startsWith("npm_"),
  );
  return Object.fromEntries(kept);
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      { cwd, env: cleanEnv(), timeout: STEP_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

let work: Awaited<ReturnType<typeof tempFolder>>;
let packed: { files: string[]; tarball: string };
let bin: string;
let consumer: string;
let server: Served;
beforeAll(async () => {
  work = await tempFolder();
  const copy = path.join(work.dir, "repository");
  const top = path.resolve(ROOT);
  await cp(top, copy, {
    recursive: true,
    filter: (source) => path.dirname(source) !== top || !NOT_COPIED.has(path.basename(source)),
  });
  // The build needs the compiler, from the repository's own dependencies.
  await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work.dir], copy);
  const [report] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (report === undefined) throw new Error(`npm pack said nothing: ${stdout}`);
  packed = { files: report.files.map((file) => file.path), tarball: path.join(work.dir, report.filename) };

  consumer = path.join(work.dir, "consumer");
  await mkdir(consumer);
  await writeFile(path.join(consumer, "package.json"), '{ "private": true }\n');
  await run("npm", ["install", packed.tarball, "--no-audit", "--no-fund", "--prefer-offline"], consumer);
  bin = path.join(consumer, "node_modules", ".bin", "skills-mcp");

  const skills = path.join(work.dir, "skills");
  await writeTree(skills, { "team/review-code/SKILL.md": skillMd("review-code", "Review code changes.") });
  server = await serveCatalog(skills);
}, 3 * STEP_MS);
afterAll(async () => {
  await server?.close();
  await work?.remove();
});

describe("the npm package", () => {
  it("holds the bundled command and the bundled examples, and nothing of development", () => {
    expect(packed.files).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "dist/main.js",
        "dist/THIRD-PARTY-NOTICES.txt",
        "examples/skills/design/color-palettes/SKILL.md",
      ]),
    );
    // `sync` is a chunk of its own, loaded only when asked for.
    expect(packed.files.filter((file) => /^dist\/chunks\/sync-\w+\.js$/.test(file))).toHaveLength(1);
    const development = packed.files.filter(
      (file) =>
        !/^(dist\/.*\.js|dist\/THIRD-PARTY-NOTICES\.txt|examples\/skills\/.*|package\.json|README\.md)$/.test(
          file,
        ),
    );
    expect(development).toEqual([]);
  });

  // The bundle holds its dependencies: `npx skills-mcp` fetches one package.
  it("installs alone, without a package of its own dependencies", async () => {
    const installed = await readdir(path.join(consumer, "node_modules"));
    expect(installed.filter((name) => !name.startsWith("."))).toEqual(["skills-mcp"]);
  });

  it("runs `skills-mcp --help` and `skills-mcp sync --help`", async () => {
    expect((await run(bin, ["--help"], work.dir)).stdout).toMatch(/^Usage: skills-mcp /);
    expect((await run(bin, ["sync", "--help"], work.dir)).stdout).toMatch(
      /^Usage: skills-mcp sync <server URL>/,
    );
  });

  it("syncs from a server", async () => {
    const target = path.join(work.dir, "installed");
    const { stderr } = await run(bin, ["sync", server.url, "--to", target], work.dir);
    expect(stderr).toMatch(/1 added, 0 updated, 0 removed, 0 skipped/);
    expect(await readTree(target)).toEqual({
      "review-code/SKILL.md": skillMd("review-code", "Review code changes."),
    });
    expect(await readdir(target)).toContain(".skills-mcp-sync.json");
  });

  it("serves the bundled examples over stdio", async () => {
    const client = new Client({ name: "package-test", version: "1" });
    // In a folder without ./skills, so that the server serves the examples the package ships.
    const transport = new StdioClientTransport({
      command: bin,
      args: ["--stdio"],
      cwd: consumer,
      env: cleanEnv(),
      stderr: "ignore",
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        "list_packs",
        "list_skills",
        "read_skill",
        "read_pack_file",
      ]);
      const packs = await client.callTool({ name: "list_packs", arguments: {} });
      expect(JSON.stringify(packs.content)).toMatch(/design.*workflows/);
    } finally {
      await client.close();
    }
  });
});
