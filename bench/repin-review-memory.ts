/**
 * What the repin review costs in memory on a bump that changes many large files: builds a scratch upstream
 * repository whose second commit edits `--files` text files of `--mib` MiB each (spread over 8 skills),
 * a site pinning its first commit, runs `fetch-skills --update --summary --findings` on it (as the weekly
 * workflow does) under `/usr/bin/time -v`
 * and prints the peak resident memory of the fetcher's own process (where the review runs) and of every
 * process of the run (git's included), and the review's counts. Asserts nothing.
 *
 *   npx tsx bench/repin-review-memory.ts [--files 40] [--mib 4] [--root <checkout>]
 *
 * `--packs <n> --added <m>` measures a bump over many packs instead: n sources of one upstream, each of
 * whose second commit adds m skills whose SKILL.md holds some 20 KB of distinct lines (what the review
 * keeps the bodies of).
 *
 * `--links <n>` measures a bump of a skill holding a file of 252 findings (test/helpers/many-findings.ts)
 * and n symlinks to it: `--bump links` adds the links, `--bump edit` (the default) keeps them and edits the
 * skill's SKILL.md. The fetcher copies each link as a file of the same bytes, which the review audits.
 *
 * `--root` runs another checkout's fetcher (through this checkout's tsx): a before and after in one command.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { manyFindings } from "../test/helpers/many-findings.js";
import { numberAbove0, readCommandLine, wholeNumber } from "./command-line.js";
import { ROOT } from "./processes.js";

const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
/** Prints the fetcher's own peak (in KiB) as it exits: `time -v` gives the largest of it and its git's. */
const OWN_PEAK = `data:text/javascript,process.on("exit",()=>process.stderr.write("own peak: "+process.resourceUsage().maxRSS+"\\n"))`;
const SKILLS = 8;

const COMMAND = {
  name: "bench/repin-review-memory",
  usage:
    "usage: npx tsx bench/repin-review-memory.ts [--files 40] [--mib 4] [--root <checkout>] [--packs 1 --added 0] [--links 0 --bump edit|links]",
};
const { values } = readCommandLine(COMMAND, {
  files: { type: "string", default: "40" },
  mib: { type: "string", default: "4" },
  root: { type: "string", default: ROOT },
  packs: { type: "string", default: "1" },
  added: { type: "string", default: "0" },
  links: { type: "string", default: "0" },
  bump: { type: "string", default: "edit" },
});
const packs = wholeNumber(COMMAND, "--packs", values.packs);
const added = wholeNumber(COMMAND, "--added", values.added, 0);
const files = wholeNumber(COMMAND, "--files", values.files, 0);
const bytes = numberAbove0(COMMAND, "--mib", values.mib) * 1024 * 1024;
const root = path.resolve(values.root);
const links = wholeNumber(COMMAND, "--links", values.links, 0);
const addsLinks = values.bump === "links";
/** 21 lines of each of 12 rules: 252 findings, 84 of them high. */
const HOSTILE = manyFindings(21);

function git(dir: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
    cwd: dir,
    stdio: "ignore",
  });
}

/** A text file of `bytes`, every `every`th line edited with `mark`: many lines, each distinct. */
function text(file: number, every: number, mark: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const edited = every > 0 && line % every === 0 ? ` ${mark}` : "";
    const next = `file ${file} line ${line}: a reference line of a large skill${edited}\n`;
    lines.push(next);
    size += next.length;
  }
  return lines.join("").slice(0, bytes);
}

async function commit(repo: string, version: number): Promise<void> {
  if (added > 0) return commitPacks(repo, version);
  if (links > 0) return commitLinks(repo, version);
  for (let skill = 0; skill < SKILLS; skill++) {
    const folder = path.join(repo, "skills", `big-${skill}`);
    await mkdir(path.join(folder, "references"), { recursive: true });
    await writeFile(
      path.join(folder, "SKILL.md"),
      `---\nname: big-${skill}\ndescription: Large references, version ${version}.\n---\n# Big ${skill}\n`,
    );
  }
  for (let file = 0; file < files; file++) {
    const where = path.join(repo, "skills", `big-${file % SKILLS}`, "references", `file-${file}.md`);
    await writeFile(where, text(file, version === 1 ? 0 : 50, "edited"));
  }
  git(repo, "add", "--all");
  git(repo, "commit", "--quiet", "-m", `version ${version}`);
}

/** Each pack with one skill, and in version 2 `added` more whose SKILL.md is some 20 KB of distinct lines. */
async function commitPacks(repo: string, version: number): Promise<void> {
  for (let pack = 0; pack < packs; pack++) {
    const skills = version === 1 ? 1 : 1 + added;
    for (let skill = 0; skill < skills; skill++) {
      const name = `skill-${pack}-${skill}`;
      const folder = path.join(repo, `pack-${pack}`, name);
      await mkdir(folder, { recursive: true });
      const body = Array.from({ length: 440 }, (_, line) => `Step ${line} of ${name}: a line of its body.\n`);
      await writeFile(
        path.join(folder, "SKILL.md"),
        `---\nname: ${name}\ndescription: Skill ${skill} of pack ${pack}.\n---\n# ${name}\n\n${body.join("")}`,
      );
    }
  }
  git(repo, "add", "--all");
  git(repo, "commit", "--quiet", "-m", `version ${version}`);
}

/** A skill holding the file of 252 findings and `links` symlinks to it (from version 2 only with `--bump links`). */
async function commitLinks(repo: string, version: number): Promise<void> {
  const folder = path.join(repo, "skills", "linked");
  await mkdir(path.join(folder, "references"), { recursive: true });
  await writeFile(
    path.join(folder, "SKILL.md"),
    `---\nname: linked\ndescription: Many links to one file, version ${version}.\n---\n# Linked\n`,
  );
  await writeFile(path.join(folder, "references", "hostile.md"), HOSTILE);
  // Made once: the working tree keeps them for the next commit.
  const linksNow = addsLinks ? version === 2 : version === 1;
  for (let link = 0; linksNow && link < links; link++) {
    await symlink("hostile.md", path.join(folder, "references", `link-${link}.md`));
  }
  await commitAll(repo, version);
}

async function commitAll(repo: string, version: number): Promise<void> {
  git(repo, "add", "--all");
  git(repo, "commit", "--quiet", "-m", `version ${version}`);
}

/** The sources of the site: one of all the big files, or one per pack. */
function manifest(repo: string, first: string): string {
  const url = pathToFileURL(repo).href;
  if (added === 0) return `[[source]]\nname = "big"\nrepo = "${url}"\nref = "${first}"\npath = "skills"\n`;
  return Array.from(
    { length: packs },
    (_, pack) => `[[source]]\nname = "p${pack}"\nrepo = "${url}"\nref = "${first}"\npath = "pack-${pack}"\n`,
  ).join("\n");
}

const dir = await mkdtemp(path.join(tmpdir(), "repin-review-memory-"));
try {
  const repo = path.join(dir, "upstream");
  await mkdir(repo);
  git(repo, "init", "--quiet", "--initial-branch=main");
  await commit(repo, 1);
  const first = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
  await commit(repo, 2);
  const site = path.join(dir, "site");
  await mkdir(site);
  await writeFile(path.join(site, "skills.toml"), manifest(repo, first));
  const run = spawnSync(
    "/usr/bin/time",
    [
      "-v",
      process.execPath,
      "--import",
      OWN_PEAK,
      "--import",
      TSX_LOADER,
      path.join(root, "scripts/fetch-skills/index.ts"),
      "--update",
      "--summary",
      "pr.md",
      "--findings",
      "findings.json",
    ],
    { cwd: site, encoding: "utf8" },
  );
  const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1];
  const own = /^own peak: (\d+)$/m.exec(run.stderr)?.[1];
  if (run.status !== 0 || peak === undefined || own === undefined) {
    console.error(run.stderr);
    process.exitCode = 1;
  } else {
    const summary = await readFile(path.join(site, "pr.md"), "utf8");
    const findingsBytes = (await stat(path.join(site, "findings.json"))).size;
    console.log(
      added > 0
        ? `${root}: ${packs} packs adding ${added} SKILL.md files each`
        : links > 0
          ? `${root}: ${links} links to a file of 252 findings, ${addsLinks ? "added" : "kept, SKILL.md edited"}`
          : `${root}: ${files} changed files of ${values.mib} MiB`,
    );
    const mib = (kib: string) => `${Math.round(Number(kib) / 1024)} MiB`;
    console.log(`peak resident memory: the fetcher ${mib(own)}, any process of the run ${mib(peak)}`);
    const seconds = (kind: string) => new RegExp(`${kind} time \\(seconds\\): (\\S+)`).exec(run.stderr)?.[1];
    const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)/.exec(run.stderr)?.[1];
    console.log(
      `wall time ${wall ?? "unknown"}, CPU ${seconds("User")} s user and ${seconds("System")} s system, summary ${summary.length.toLocaleString("en-US")} characters, findings ${findingsBytes.toLocaleString("en-US")} bytes`,
    );
    for (const line of summary.split("\n")) {
      if (/^- (Skills|SKILL\.md files|Supporting files):/.test(line)) console.log(line);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
