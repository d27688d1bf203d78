/**
 * What the fetcher's git store holds, by two measures. The bound: a `file://` upstream of `--mib` MiB of
 * random bytes (which no pack compresses) is fetched `--runs` times under a bound of `--bound` MiB, and a
 * process of its own lists the store's pack folder every 2 ms: the most it ever held is how far the fetch
 * passed its bound before it was stopped. The packs: an upstream of 40 skills (and `--base` MiB of random
 * bytes in its first commit) gets one commit per fetch, and `fetch-skills --cache` fetches each in turn,
 * `--fetches` times: the packs the store holds, its size and each fetch's time. Asserts nothing.
 *
 *   npx tsx bench/fetch-store.ts [--mib 64] [--bound 4] [--runs 3] [--fetches 60] [--base 0]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { run } from "../scripts/fetch-skills/cli.js";
import { BOUNDED_FETCH_CONFIG, boundedFetch } from "../scripts/fetch-skills/fetch-bound.js";
import { gitAt } from "../scripts/fetch-skills/git.js";
import { readCommandLine, wholeNumber } from "./command-line.js";

const COMMAND = {
  name: "bench/fetch-store",
  usage: "usage: npx tsx bench/fetch-store.ts [--mib 64] [--bound 4] [--runs 3] [--fetches 60] [--base 0]",
};
const { values } = readCommandLine(COMMAND, {
  mib: { type: "string", default: "64" },
  bound: { type: "string", default: "4" },
  runs: { type: "string", default: "3" },
  fetches: { type: "string", default: "60" },
  base: { type: "string", default: "0" },
});
const MIB = 1024 * 1024;
const upstreamMib = wholeNumber(COMMAND, "--mib", values.mib);
const boundMib = wholeNumber(COMMAND, "--bound", values.bound);
const runs = wholeNumber(COMMAND, "--runs", values.runs);
const fetches = wholeNumber(COMMAND, "--fetches", values.fetches);
// Zero is a base of nothing, which wholeNumber (≥ 1) would refuse.
const baseMib = values.base === "0" ? 0 : wholeNumber(COMMAND, "--base", values.base);

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
    cwd: dir,
    encoding: "utf8",
  }).trim();
}

function randomFile(file: string, mib: number): void {
  execFileSync("sh", ["-c", `head -c ${mib * MIB} /dev/urandom > '${file}'`]);
}

/** The bytes of the files under `folder`. */
async function bytesUnder(folder: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/** Lists `folder` every 2 ms in a process of its own; `peak()` stops it and says the most its files held. */
function watchPeak(folder: string): { peak(): Promise<number> } {
  const lister = `const fs = require("node:fs"); let peak = 0;
setInterval(() => { let sum = 0; for (const name of (() => { try { return fs.readdirSync(process.argv[1]) } catch { return [] } })()) {
  try { sum += fs.statSync(process.argv[1] + "/" + name).size } catch {} } peak = Math.max(peak, sum) }, 2);
process.on("SIGTERM", () => { process.stdout.write(String(peak)); process.exit(0) });`;
  const child = spawn(process.execPath, ["-e", lister, folder], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const closed = new Promise((resolve) => child.on("close", resolve));
  return {
    async peak() {
      child.kill("SIGTERM");
      await closed;
      return Number(output);
    },
  };
}

async function benchBound(root: string): Promise<void> {
  const upstream = path.join(root, "noise");
  await mkdir(upstream);
  git(upstream, "init", "--quiet");
  git(upstream, "config", "pack.window", "0");
  for (let file = 0; file < 4; file++) randomFile(path.join(upstream, `noise-${file}.bin`), upstreamMib / 4);
  git(upstream, "add", "--all");
  git(upstream, "commit", "--quiet", "-m", "noise");
  const ref = git(upstream, "rev-parse", "HEAD");
  console.log(`a fetch of ${upstreamMib} MiB of random bytes under a bound of ${boundMib} MiB:`);
  for (let attempt = 1; attempt <= runs; attempt++) {
    const store = path.join(root, `store-${attempt}`);
    git(root, "init", "--quiet", "--bare", store);
    const watched = watchPeak(path.join(store, "objects", "pack"));
    const started = performance.now();
    const cpu = process.cpuUsage();
    const outcome = await boundedFetch(store, boundMib * MIB, false, undefined, (signal) =>
      gitAt(store, signal).raw([
        ...BOUNDED_FETCH_CONFIG,
        "fetch",
        "--quiet",
        "--depth=1",
        pathToFileURL(upstream).href,
        ref,
      ]),
    ).then(
      () => "fetched",
      (error: unknown) => (error instanceof Error ? error.name : String(error)),
    );
    const { user, system } = process.cpuUsage(cpu);
    const peak = await watched.peak();
    console.log(
      `  run ${attempt}: ${outcome} after ${Math.round(performance.now() - started)} ms, ` +
        `the pack folder held at most ${(peak / MIB).toFixed(1)} MiB, ` +
        `the fetcher's CPU ${Math.round((user + system) / 1000)} ms`,
    );
  }
}

async function benchPacks(root: string): Promise<void> {
  const upstream = path.join(root, "skills-upstream");
  const site = path.join(root, "site");
  await mkdir(site);
  await mkdir(upstream);
  git(upstream, "init", "--quiet");
  if (baseMib > 0) randomFile(path.join(upstream, "base.bin"), baseMib);
  const skillMd = (skill: number, version: number) =>
    `---\nname: skill-${skill}\ndescription: Does things.\n---\n${"Some text. ".repeat(1000)}\nVersion ${version}.\n`;
  for (let skill = 0; skill < 40; skill++) {
    await mkdir(path.join(upstream, "skills", `skill-${skill}`), { recursive: true });
    await writeFile(path.join(upstream, "skills", `skill-${skill}`, "SKILL.md"), skillMd(skill, 0));
  }
  console.log(`${fetches} fetches into one --cache store, each of a new commit changing one skill:`);
  for (let fetch = 1; fetch <= fetches; fetch++) {
    const skill = fetch % 40;
    await writeFile(path.join(upstream, "skills", `skill-${skill}`, "SKILL.md"), skillMd(skill, fetch));
    git(upstream, "add", "--all");
    git(upstream, "commit", "--quiet", "-m", `version ${fetch}`);
    const ref = git(upstream, "rev-parse", "HEAD");
    const manifest = `[[source]]\nname = "pack"\nrepo = "${pathToFileURL(upstream).href}"\nref = "${ref}"\npath = "skills"\n`;
    await writeFile(path.join(site, "skills.toml"), manifest);
    let stderr = "";
    const started = performance.now();
    const code = await run(["--cache", "cache"], {
      cwd: site,
      env: {},
      stdout: () => undefined,
      stderr: (text) => {
        stderr += text;
      },
      now: () => new Date(),
    });
    const ms = Math.round(performance.now() - started);
    if (code !== 0) throw new Error(`fetch ${fetch} failed: ${stderr}`);
    const [store = ""] = await readdir(path.join(site, "cache"));
    const packs = (await readdir(path.join(site, "cache", store, "objects", "pack"))).filter((name) =>
      name.endsWith(".pack"),
    );
    const kib = Math.round((await bytesUnder(path.join(site, "cache", store))) / 1024);
    console.log(`  fetch ${fetch}: ${packs.length} packs, the store ${kib} KiB, ${ms} ms`);
  }
}

const root = await mkdtemp(path.join(tmpdir(), "bench-fetch-store-"));
try {
  await benchBound(root);
  await benchPacks(root);
} finally {
  await rm(root, { recursive: true, force: true });
}
