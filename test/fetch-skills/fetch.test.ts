import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/process.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import {
  ENTRY,
  FIXED_TIME,
  git,
  makeSite,
  makeUpstream,
  manifestOf,
  runFetcher,
  snapshot,
  spawnFetcher,
  writeManifest,
} from "./helpers.js";

const execFileAsync = promisify(execFile);
const SECRET = "BUILD-MACHINE-SECRET";
const HIDDEN_TOKEN = "ghp_hidden_token";

let tree: TempTree;
/** Upstream with a nested layout, extras, and symlinks of every kind; commits[1] changes a few files. */
let kit: { url: string; commits: string[] };
/** Upstream whose skills sit at the repository root. */
let solo: { dir: string; url: string; commits: string[] };
/** The id of an annotated tag of solo's first commit. */
let soloTag: string;

beforeAll(async () => {
  tree = await makeTree({ "outside/secret.txt": SECRET });
  kit = await makeUpstream(path.join(tree.dir, "kit"), [
    {
      "README.md": "# kit\n",
      "skills/review/SKILL.md": skillMd("review", "Review a design.", "Read shared/checklist.md first.\n"),
      "skills/review/references/guide.md": "guide v1\n",
      "skills/review/link-inside.md": { symlink: "../../shared/checklist.md" },
      "skills/review/linked-folder": { symlink: "../../shared/deep" },
      "skills/review/link-absolute.md": { symlink: path.join(tree.dir, "outside/secret.txt") },
      // From the checkout at <site>/.skills-fetch-*/work/kit/skills/review, six levels up is the temp tree.
      "skills/review/link-climbing.md": { symlink: "../../../../../../outside/secret.txt" },
      "skills/review/link-hidden": { symlink: "../../.github/token" },
      "skills/review/.env": "TOKEN=hidden\n",
      "skills/writing/drafting/SKILL.md": skillMd("drafting", "Draft long texts."),
      "skills/writing/drafting/inner/SKILL.md": skillMd("inner", "Nested in drafting."),
      "skills/.experimental/ghost/SKILL.md": skillMd("ghost"),
      "shared/checklist.md": "checklist v1\n",
      "shared/deep/policy.md": "policy\n",
      "prompts/brief.md": "brief\n",
      ".github/token": `${HIDDEN_TOKEN}\n`,
    },
    {
      "shared/checklist.md": "checklist v2\n",
      "skills/review/references/guide.md": "guide v2\n",
      "skills/new-skill/SKILL.md": skillMd("new-skill"),
    },
  ]);
  solo = await makeUpstream(path.join(tree.dir, "solo"), [
    { "hammer/SKILL.md": skillMd("hammer"), LICENSE: "MIT\n" },
    { "saw/SKILL.md": skillMd("saw") },
  ]);
  await git(solo.dir, "tag", "--annotate", "v1", "--message", "v1", solo.commits[0] ?? "");
  soloTag = await git(solo.dir, "rev-parse", "v1");
});
afterAll(() => tree.remove());

function kitSource(ref: string) {
  return { name: "kit", repo: kit.url, ref, path: "skills", extras: ["shared", "prompts"] };
}

function soloSource(ref: string, extra: Record<string, string> = {}) {
  return { name: "solo", repo: solo.url, ref, ...extra };
}

async function allEntries(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((entry) => entry.split(path.sep).join("/")).sort();
}

describe("fetch-skills: a pinned fetch", () => {
  it("copies path and extras at exactly the pinned commit, and writes sources.json", async () => {
    const [first] = kit.commits as [string, string];
    const site = await makeSite(tree.dir, [kitSource(first), soloSource(solo.commits[1] ?? "")]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const out = path.join(site, "skills");
    expect(await allEntries(path.join(out, "kit"))).toEqual([
      "prompts",
      "prompts/brief.md",
      "review",
      "review/SKILL.md",
      "review/link-inside.md",
      "review/linked-folder",
      "review/linked-folder/policy.md",
      "review/references",
      "review/references/guide.md",
      "shared",
      "shared/checklist.md",
      "shared/deep",
      "shared/deep/policy.md",
      "writing",
      "writing/drafting",
      "writing/drafting/SKILL.md",
      "writing/drafting/inner",
      "writing/drafting/inner/SKILL.md",
    ]);
    expect(await readFile(path.join(out, "kit/review/references/guide.md"), "utf8")).toBe("guide v1\n");
    // A symlink inside the repository becomes a plain copy of its target.
    const inside = path.join(out, "kit/review/link-inside.md");
    expect((await lstat(inside)).isSymbolicLink()).toBe(false);
    expect(await readFile(inside, "utf8")).toBe("checklist v1\n");
    expect(await allEntries(path.join(out, "solo"))).toEqual([
      "LICENSE",
      "hammer",
      "hammer/SKILL.md",
      "saw",
      "saw/SKILL.md",
    ]);

    const everything = Object.values(await snapshot(out)).join("\n");
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(HIDDEN_TOKEN);
    // Where each link leads, as the repository wrote it: a reviewer tells an attempt from a stray link.
    const absolute = JSON.stringify(path.join(tree.dir, "outside/secret.txt"));
    const climbing = '"../../../../../../outside/secret.txt"';
    expect(result.stderr).toContain(
      `kit: skipped skills/review/link-absolute.md: symlink pointing outside the repository, to ${absolute}`,
    );
    expect(result.stderr).toContain(
      `kit: skipped skills/review/link-climbing.md: symlink pointing outside the repository, to ${climbing}`,
    );
    expect(result.stderr).toContain(
      "kit: skipped skills/review/link-hidden: symlink leading into a hidden folder",
    );
    expect(result.stderr).toMatch(/^kit: [0-9a-f]{7} shallow fetch, 3 skills, \d+\.\d s$/m);
    expect(result.stderr).toMatch(/^solo: [0-9a-f]{7} shallow fetch, 2 skills, \d+\.\d s$/m);

    expect(JSON.parse(await readFile(path.join(out, "sources.json"), "utf8"))).toEqual({
      sources: [
        {
          name: "kit",
          repo: kit.url,
          ref: first,
          path: "skills",
          extras: ["shared", "prompts"],
          skills: 3,
          fetchedAt: FIXED_TIME.toISOString(),
          // By path in the pack, for the audit to report.
          skipped: [
            {
              path: "review/link-absolute.md",
              reason: `symlink pointing outside the repository, to ${absolute}`,
            },
            {
              path: "review/link-climbing.md",
              reason: `symlink pointing outside the repository, to ${climbing}`,
            },
            {
              path: "review/link-hidden",
              reason: 'symlink leading into a hidden folder, to "../../.github/token"',
            },
          ],
        },
        {
          name: "solo",
          repo: solo.url,
          ref: solo.commits[1],
          path: ".",
          extras: [],
          skills: 2,
          fetchedAt: FIXED_TIME.toISOString(),
          skipped: [],
        },
      ],
    });
    expect(result.stdout).toContain(`| kit | \`${first.slice(0, 7)}\` | 3 | shallow,`);
    expect(result.stdout).toContain("2 packs, 5 skills.");
    expect(await readdir(site)).toEqual(["skills", "skills.toml"]);
  });

  it("fetches an older pinned commit rather than the branch head, and the newer one when repinned", async () => {
    const [first, second] = kit.commits as [string, string];
    const site = await makeSite(tree.dir, [kitSource(first)]);
    expect((await runFetcher([], site)).code).toBe(0);
    const out = path.join(site, "skills/kit");
    expect(await readFile(path.join(out, "shared/checklist.md"), "utf8")).toBe("checklist v1\n");
    expect(await readdir(out)).not.toContain("new-skill");

    await writeManifest(site, manifestOf([kitSource(second)]));
    const result = await runFetcher([], site);
    expect(result.code).toBe(0);
    expect(await readFile(path.join(out, "shared/checklist.md"), "utf8")).toBe("checklist v2\n");
    expect(await readFile(path.join(out, "review/link-inside.md"), "utf8")).toBe("checklist v2\n");
    expect(await readdir(out)).toContain("new-skill");
    expect(result.stdout).toContain(`| kit | \`${second.slice(0, 7)}\` | 4 |`);
  });

  it("writes where --out and --manifest say, relative to the working folder", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    await rename(path.join(site, "skills.toml"), path.join(site, "pins.toml"));
    const result = await runFetcher(
      ["--manifest", "pins.toml", "--out", "build/packs", "--summary", "summary.md"],
      site,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await allEntries(path.join(site, "build/packs"))).toEqual([
      "solo",
      "solo/LICENSE",
      "solo/hammer",
      "solo/hammer/SKILL.md",
      "sources.json",
    ]);
    expect(await readFile(path.join(site, "summary.md"), "utf8")).toBe(result.stdout);
  });

  // The symlink was replaced by a folder and its target kept the old skills, which a server reading the
  // target went on serving.
  it("updates the folder a symlinked --out leads to, and keeps the symlink", async () => {
    const site = await makeSite(tree.dir, [
      { name: "kit", repo: kit.url, ref: kit.commits[0] ?? "", path: "skills" },
    ]);
    await mkdir(path.join(site, "data"));
    expect((await runFetcher(["--out", "data/skills"], site)).code).toBe(0);
    await symlink("data/skills", path.join(site, "skills"));

    await writeManifest(
      site,
      manifestOf([{ name: "kit", repo: kit.url, ref: kit.commits[1] ?? "", path: "skills" }]),
    );
    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect((await lstat(path.join(site, "skills"))).isSymbolicLink()).toBe(true);
    const sources = JSON.parse(await readFile(path.join(site, "data/skills/sources.json"), "utf8"));
    expect(sources.sources[0].ref).toBe(kit.commits[1]);
    expect((await readdir(site)).sort()).toEqual(["data", "skills", "skills.toml"]);
  });

  it("refuses a --cache inside a symlinked --out, which each run replaces where it leads", async () => {
    const site = await makeSite(tree.dir, [
      { name: "kit", repo: kit.url, ref: kit.commits[0] ?? "", path: "skills" },
    ]);
    await mkdir(path.join(site, "data"));
    expect((await runFetcher(["--out", "data/skills"], site)).code).toBe(0);
    await symlink("data/skills", path.join(site, "skills"));

    const result = await runFetcher(["--cache", "skills/.cache"], site);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("fetch-skills: --cache skills/.cache is inside --out skills");
    expect(await readdir(path.join(site, "data/skills"))).not.toContain(".cache");
  });

  it("copies a path inside a hidden folder when skills.toml names it, still skipping other hidden folders", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "dot-claude"), [
      {
        ".claude/skills/a/SKILL.md": skillMd("a"),
        ".claude/skills/a/notes.md": { symlink: "../shared/notes.md" },
        ".claude/skills/a/token": { symlink: "../../../.github/token" },
        ".claude/skills/shared/notes.md": "notes\n",
        ".github/token": `${HIDDEN_TOKEN}\n`,
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "dot", repo: repo.url, ref: repo.commits[0] ?? "", path: ".claude/skills" },
    ]);
    const result = await runFetcher([], site);
    expect(result.code, result.stderr).toBe(0);
    expect(await snapshot(path.join(site, "skills/dot"))).toEqual({
      "a/SKILL.md": skillMd("a"),
      "a/notes.md": "notes\n",
      "shared/notes.md": "notes\n",
    });
    expect(result.stderr).toContain(
      "dot: skipped .claude/skills/a/token: symlink leading into a hidden folder",
    );
  });

  it("warns when an extra holds a SKILL.md, since the server will serve it as a skill", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "extra-skill"), [
      { "skills/a/SKILL.md": skillMd("a"), "templates/example/SKILL.md": skillMd("example") },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "x", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills", extras: ["templates"] },
    ]);
    const result = await runFetcher([], site);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'x: warning: extra "templates" holds templates/example/SKILL.md; the server will serve it as a skill',
    );
  });

  it("keeps the other packs as they were with --source", async () => {
    const site = await makeSite(tree.dir, [
      kitSource(kit.commits[0] ?? ""),
      soloSource(solo.commits[0] ?? ""),
    ]);
    expect((await runFetcher([], site)).code).toBe(0);
    const before = await snapshot(path.join(site, "skills/kit"));

    await writeManifest(
      site,
      manifestOf([kitSource(kit.commits[1] ?? ""), soloSource(solo.commits[1] ?? "")]),
    );
    const result = await runFetcher(["--source", "solo"], site);

    expect(result.code, result.stderr).toBe(0);
    expect(await snapshot(path.join(site, "skills/kit"))).toEqual(before);
    expect(await readdir(path.join(site, "skills/solo"))).toEqual(["LICENSE", "hammer", "saw"]);
    expect(result.stderr).toContain(
      `kit: kept as fetched before (${kit.commits[0]?.slice(0, 7)}; skills.toml pins ${kit.commits[1]?.slice(0, 7)})`,
    );
    const sources = JSON.parse(await readFile(path.join(site, "skills/sources.json"), "utf8")).sources;
    expect(sources.map((source: { ref: string }) => source.ref)).toEqual([kit.commits[0], solo.commits[1]]);
  });
});

describe("fetch-skills: pack descriptions", () => {
  it("writes each source's description into sources.json, as skills.toml says it now", async () => {
    const site = await makeSite(tree.dir, [
      { ...kitSource(kit.commits[0] ?? ""), description: "Reviews and writing, by the kit's rules." },
      soloSource(solo.commits[0] ?? ""),
    ]);
    expect((await runFetcher([], site)).code).toBe(0);
    const read = async () =>
      JSON.parse(await readFile(path.join(site, "skills/sources.json"), "utf8")).sources as {
        name: string;
        description?: string;
      }[];
    expect((await read()).map(({ name, description }) => ({ name, description }))).toEqual([
      { name: "kit", description: "Reviews and writing, by the kit's rules." },
      { name: "solo", description: undefined },
    ]);
    // A pack kept as fetched before takes the description skills.toml gives it today.
    await writeManifest(
      site,
      manifestOf([
        { ...kitSource(kit.commits[0] ?? ""), description: "Reviews, rewritten." },
        soloSource(solo.commits[0] ?? ""),
      ]),
    );
    expect((await runFetcher(["--source", "solo"], site)).code).toBe(0);
    expect((await read())[0]?.description).toBe("Reviews, rewritten.");
  });
});

describe("fetch-skills: the cache", () => {
  let big: Awaited<ReturnType<typeof makeUpstream>>;
  beforeAll(async () => {
    const files: Record<string, string> = { "skills/bulk/SKILL.md": skillMd("bulk") };
    for (let i = 0; i < 150; i++) files[`skills/bulk/references/file-${i}.md`] = `reference ${i}\n`;
    big = await makeUpstream(path.join(tree.dir, "big"), [files]);
  });

  async function storeObjects(cache: string): Promise<{ objects: number; shallow: boolean }> {
    const [store] = await readdir(cache);
    const dir = path.join(cache, store ?? "");
    const counts = await git(dir, "count-objects", "-v");
    const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, "m").exec(counts)?.[1]);
    return {
      objects: value("count") + value("in-pack"),
      shallow: (await git(dir, "rev-parse", "--is-shallow-repository")) === "true",
    };
  }

  it("keeps a store per repository, so a rebuild fetches only what is new", async () => {
    const first = big.commits[0] ?? "";
    const site = await makeSite(tree.dir, [{ name: "big", repo: big.url, ref: first, path: "skills" }]);
    const cache = path.join(site, "cache");

    const cold = await runFetcher(["--cache", "cache"], site);
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stderr).toMatch(/^big: [0-9a-f]{7} shallow fetch, 1 skill,/m);
    const afterCold = await storeObjects(cache);
    expect(afterCold.objects).toBeGreaterThan(150);
    expect(afterCold.shallow).toBe(true);

    const warm = await runFetcher(["--cache", "cache"], site);
    expect(warm.stderr).toMatch(/^big: [0-9a-f]{7} from the cache, 1 skill,/m);
    expect((await storeObjects(cache)).objects).toBe(afterCold.objects);

    const second = await big.commit({ "skills/bulk/references/file-7.md": "reference seven, revised\n" });
    await writeManifest(site, manifestOf([{ name: "big", repo: big.url, ref: second, path: "skills" }]));
    const update = await runFetcher(["--cache", "cache"], site);
    expect(update.code, update.stderr).toBe(0);
    // One commit, the four trees on the changed file's path (root, skills, bulk, references) and the file.
    expect((await storeObjects(cache)).objects - afterCold.objects).toBe(6);
    expect(await readFile(path.join(site, "skills/big/bulk/references/file-7.md"), "utf8")).toBe(
      "reference seven, revised\n",
    );
  });

  it("serves a cached commit even when the origin is unreachable; without the cache that fails", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "flaky"), [{ "s/SKILL.md": skillMd("s") }]);
    const site = await makeSite(tree.dir, [
      { name: "flaky", repo: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);
    expect((await runFetcher(["--cache", "cache"], site)).code).toBe(0);
    await rename(upstream.dir, `${upstream.dir}-gone`);

    const cached = await runFetcher(["--cache", "cache"], site);
    expect(cached.code, cached.stderr).toBe(0);
    expect(cached.stderr).toMatch(/^flaky: [0-9a-f]{7} from the cache, 1 skill,/m);

    const uncached = await runFetcher([], site);
    expect(uncached.code).toBe(1);
    expect(uncached.stderr).toContain(`fetch-skills: source "flaky": cannot fetch ${upstream.url}:`);
    expect(uncached.stderr).toContain("does not appear to be a git repository");
  });

  // Regression: the image build's cache mount is a file system of its own, and a checkout whose index git
  // wrote beside the store and renamed into the work tree stopped the build ("fatal: unable to write new
  // index file"). /dev/shm is a tmpfs on Linux, the usual place apart from the temp folder.
  it("checks out from a cache on another file system than the work folder", async (context) => {
    const apart = await mkdtemp(path.join("/dev/shm", "fetch-skills-cache-")).catch(() => undefined);
    if (apart === undefined)
      return context.skip("no writable /dev/shm to hold the cache on a file system of its own");
    try {
      const site = await makeSite(tree.dir, [
        { name: "big", repo: big.url, ref: big.commits[0] ?? "", path: "skills" },
      ]);
      if ((await stat(apart)).dev === (await stat(site)).dev) {
        return context.skip(`/dev/shm and ${tree.dir} are one file system here: nothing to check`);
      }

      const cold = await runFetcher(["--cache", apart], site);
      expect(cold.code, cold.stderr).toBe(0);
      const warm = await runFetcher(["--cache", apart], site);

      expect(warm.code, warm.stderr).toBe(0);
      expect(warm.stderr).toMatch(/^big: [0-9a-f]{7} from the cache, 1 skill,/m);
      expect(await readFile(path.join(site, "skills/big/bulk/references/file-7.md"), "utf8")).toBe(
        "reference 7\n",
      );
    } finally {
      await rm(apart, { recursive: true, force: true });
    }
  });

  // A run stopped between creating a store and naming its remote left a store that failed every later
  // fetch ("'origin' does not appear to be a git repository"), a build cache that failed every build. No
  // store names a remote now, but one a run left just made must still be fetched into.
  it("recovers a store that a stopped run left just made, without its remote", async () => {
    const site = await makeSite(tree.dir, [
      { name: "big", repo: big.url, ref: big.commits[0] ?? "", path: "skills" },
    ]);
    const cache = path.join(site, "cache");
    expect((await runFetcher(["--cache", "cache"], site)).code).toBe(0);
    const [store] = await readdir(cache);
    await rm(path.join(cache, store ?? ""), { recursive: true });
    await git(site, "init", "--quiet", "--bare", path.join(cache, store ?? ""));

    const result = await runFetcher(["--cache", "cache"], site);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^big: [0-9a-f]{7} shallow fetch, 1 skill,/m);
  });

  // Regression: the image workflow builds linux/amd64 and linux/arm64 at once, and BuildKit shares a cache
  // mount between them unless told otherwise: two fetches in one store failed ("remote origin already
  // exists", "shallow.lock: File exists"), failing the build whenever skills.toml changed.
  it("gives the image build's fetch its cache mount to itself", async () => {
    const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
    const mount = /--mount=(type=cache,[^\s]*target=\/var\/cache\/skills-mcp[^\s]*)/.exec(dockerfile)?.[1];
    expect(mount?.split(",")).toContain("sharing=locked");
  });

  // A build cancelled mid-fetch left git's shallow.lock in the cache mount, where no one can remove it by
  // hand: every later build failed on "Unable to create '…/shallow.lock': File exists".
  it("removes the lock files a stopped build left in the store, and that alone, before the fetch", async () => {
    const steps = await imageFetchSteps();
    expect(steps).toEqual([
      "find /var/cache/skills-mcp -name '*.lock' -type f -delete",
      expect.stringMatching(/^npm run fetch-skills -- .*--cache \/var\/cache\/skills-mcp \|\| \{/),
    ]);

    // That step on a cache where a stopped fetch left its lock: the next fetch goes through.
    const site = await makeSite(tree.dir, [
      { name: "big", repo: big.url, ref: big.commits[0] ?? "", path: "skills" },
    ]);
    const cache = path.join(site, "cache");
    expect((await runFetcher(["--cache", "cache"], site)).code).toBe(0);
    const [store] = await readdir(cache);
    await writeFile(path.join(cache, store ?? "", "shallow.lock"), "");
    const next = await big.commit({ "skills/bulk/references/file-8.md": "reference eight, revised\n" });
    await writeManifest(site, manifestOf([{ name: "big", repo: big.url, ref: next, path: "skills" }]));
    const blocked = await runFetcher(["--cache", "cache"], site);
    expect(blocked.stderr).toContain("shallow.lock': File exists");
    await execFileAsync("sh", ["-c", steps[0]?.replace("/var/cache/skills-mcp", cache) ?? ""]);
    const result = await runFetcher(["--cache", "cache"], site);
    expect(result.code, result.stderr).toBe(0);
  });

  // Regression: a build that could not reach GitHub failed on git's "Could not resolve host" and the
  // fetcher's advice to run it again with --source, which a build cannot; docs/deployment.md's way out (a manifest of
  // mirrors) went unnamed.
  it("says, when the image build's fetch fails, how to build from mirrors", async () => {
    const [, fetch = ""] = await imageFetchSteps();
    const site = await makeSite(tree.dir, [
      { name: "gone", repo: path.join(tree.dir, "no-such-repository"), ref: "a".repeat(40) },
    ]);
    const command = fetch
      .replace("--manifest skills.toml", `--manifest ${path.join(site, "skills.toml")}`)
      .replace("--out /skills", `--out ${path.join(site, "out")}`)
      .replace("/var/cache/skills-mcp", path.join(site, "cache"));
    const failed = await execFileAsync("sh", ["-c", command], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('source "gone": cannot fetch');
    expect(failed.stderr).toContain(
      "--build-arg SKILLS_MANIFEST=mirror.toml (docs/deployment.md, Building without GitHub)",
    );
  });
});

/** The steps of the Dockerfile's RUN instruction that fetches the skills, its continued lines joined. */
async function imageFetchSteps(): Promise<string[]> {
  const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
  const lines = dockerfile.split("\n");
  const start = lines.findIndex((line) =>
    line.startsWith("RUN --mount=type=cache,target=/var/cache/skills-mcp"),
  );
  const end = lines.findIndex((line, index) => index >= start && !line.endsWith("\\"));
  const run = lines.slice(start + 1, end + 1).map((line) => line.replace(/\\$/, "").trim());
  return run
    .join(" ")
    .split("&&")
    .map((step) => step.trim());
}

describe("fetch-skills: servers that refuse a shallow fetch of an exact commit", () => {
  it("fetches shallow where allowed and falls back to a full fetch where not", async () => {
    const lenient = await makeUpstream(path.join(tree.dir, "lenient"), [
      { "a/SKILL.md": skillMd("a") },
      { "b/SKILL.md": skillMd("b") },
    ]);
    await git(lenient.dir, "config", "uploadpack.allowReachableSHA1InWant", "true");
    const strict = await makeUpstream(path.join(tree.dir, "strict"), [
      { "c/SKILL.md": skillMd("c") },
      { "d/SKILL.md": skillMd("d") },
    ]);
    // The older commits are no branch's tip, so only a server that allows it hands them out directly.
    const site = await makeSite(tree.dir, [
      { name: "lenient", repo: lenient.url, ref: lenient.commits[0] ?? "" },
      { name: "strict", repo: strict.url, ref: strict.commits[0] ?? "" },
    ]);
    // Protocol v2 lets any reachable commit be fetched; the checks that some servers make live in v0.
    const home = path.join(site, "home");
    await mkdir(home);
    await writeFile(path.join(home, ".gitconfig"), "[protocol]\n\tversion = 0\n");

    const result = await spawnFetcher(["--cache", "cache"], site, { HOME: home, XDG_CONFIG_HOME: home });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^lenient: [0-9a-f]{7} shallow fetch, 1 skill,/m);
    expect(result.stderr).toMatch(
      /^strict: [0-9a-f]{7} full fetch \(the server refused a shallow fetch of the commit\), 1 skill,/m,
    );
    expect(await readdir(path.join(site, "skills/strict"))).toEqual(["c"]);
    const stores = await readdir(path.join(site, "cache"));
    const shallow = async (name: string) => {
      const store = stores.find((entry) => entry.includes(name)) ?? "";
      return git(path.join(site, "cache", store), "rev-parse", "--is-shallow-repository");
    };
    expect(await shallow("lenient")).toBe("true");
    expect(await shallow("strict")).toBe("false");
  });
});

describe("fetch-skills: the refs a full fetch writes", () => {
  /** An environment whose git speaks protocol v0, where a server refuses a commit that is no ref's tip. */
  async function protocolV0(dir: string): Promise<Record<string, string>> {
    await mkdir(dir);
    await writeFile(path.join(dir, ".gitconfig"), "[protocol]\n\tversion = 0\n");
    return { HOME: dir, XDG_CONFIG_HOME: dir };
  }

  /** Every file below `dir`, as paths relative to it. */
  async function filesBelow(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  }

  // Regression: an upstream of 30,000 tags took 16.7 s and 90 MB, and left 30,023 files in the --cache store.
  it("refuses an upstream of more branches and tags than a full fetch may write, naming the count", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "many-tags"), [
      { "a/SKILL.md": skillMd("a") },
      { "b/SKILL.md": skillMd("b") },
    ]);
    const tip = upstream.commits[1] ?? "";
    // Written as git packs refs, one file, rather than by 10,001 git processes.
    const tags = Array.from({ length: 10_001 }, (_, index) => `${tip} refs/tags/t${index}\n`);
    await writeFile(path.join(upstream.dir, ".git/packed-refs"), tags.join(""));
    const env = await protocolV0(path.join(tree.dir, "many-tags-home"));
    const site = await makeSite(tree.dir, [
      { name: "many", repo: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);

    const result = await spawnFetcher(["--cache", "cache"], site, env);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `source "many": the server refused to fetch commit ${upstream.commits[0]} directly, and ` +
        `${upstream.url} has more than 10,000 branches and tags (at least 10,001), the most a full fetch may write`,
    );
    const [store = ""] = await readdir(path.join(site, "cache"));
    expect(await git(path.join(site, "cache", store), "for-each-ref")).toBe("");
  });

  it("keeps the refs of a full fetch in one file, and fetches a pin that only a tag holds", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "tag-only"), [
      { "a/SKILL.md": skillMd("a") },
      { "b/SKILL.md": skillMd("b") },
      { "c/SKILL.md": skillMd("c") },
    ]);
    // The pin is the tagged commit's parent: no branch holds it, and it is no ref's tip.
    await git(upstream.dir, "tag", "release", upstream.commits[2] ?? "");
    for (const name of ["v1", "v2", "v3"]) await git(upstream.dir, "tag", name, upstream.commits[0] ?? "");
    await git(upstream.dir, "reset", "--quiet", "--hard", upstream.commits[0] ?? "");
    const env = await protocolV0(path.join(tree.dir, "tag-only-home"));
    const site = await makeSite(tree.dir, [
      { name: "tagged", repo: upstream.url, ref: upstream.commits[1] ?? "" },
    ]);

    const result = await spawnFetcher(["--cache", "cache"], site, env);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^tagged: [0-9a-f]{7} full fetch/m);
    expect(await readdir(path.join(site, "skills/tagged"))).toEqual(["a", "b"]);
    const [store = ""] = await readdir(path.join(site, "cache"));
    const storeDir = path.join(site, "cache", store);
    expect(await git(storeDir, "for-each-ref", "--format=%(refname)", "refs/tags")).toBe(
      ["release", "v1", "v2", "v3"].map((name) => `refs/tags/${name}`).join("\n"),
    );
    // The one ref written after the fetch, `refs/sources/<name>`, is the only file of a ref.
    expect(await filesBelow(path.join(storeDir, "refs"))).toEqual(["tagged"]);
  });
});

describe("fetch-skills: a cached store after upstream renames its branches", () => {
  // Regression: the full fetch never pruned, so a branch renamed from `x` to `x/y` upstream left the cached
  // store's `refs/remotes/origin/x` in the way of `x/y`: every later full fetch of that repository failed
  // ("cannot lock ref"), for good.
  it("fetches again after a branch becomes a folder of branches, and a fetch past its bound keeps the store's refs", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "renaming"), [
      { "a/SKILL.md": skillMd("a") },
      { "b/SKILL.md": skillMd("b") },
    ]);
    // The pin is no branch's tip, so a server speaking protocol v0 refuses it and the fetch is a full one.
    await git(upstream.dir, "branch", "release", upstream.commits[1] ?? "");
    const home = path.join(upstream.dir, "..", "renaming-home");
    await mkdir(home);
    await writeFile(path.join(home, ".gitconfig"), "[protocol]\n\tversion = 0\n");
    const env = { HOME: home, XDG_CONFIG_HOME: home };
    const site = await makeSite(tree.dir, [
      { name: "renaming", repo: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);
    const first = await spawnFetcher(["--cache", "cache"], site, env);
    expect(first.stderr).toMatch(/^renaming: [0-9a-f]{7} full fetch/m);
    const [store = ""] = await readdir(path.join(site, "cache"));
    const refsAfterFirst = await git(path.join(site, "cache", store), "for-each-ref");
    expect(refsAfterFirst).toContain("refs/remotes/origin/release");

    await git(upstream.dir, "branch", "--quiet", "-D", "release");
    const noise = await upstream.commit({ "noise.bin": randomBytes(6 << 20) });
    await git(upstream.dir, "branch", "release/2", await upstream.commit({ "noise.bin": null }));
    await writeManifest(site, manifestOf([{ name: "renaming", repo: upstream.url, ref: noise }]));
    const refused = await spawnFetcher(["--cache", "cache", "--max-mib", "1"], site, env);
    expect(refused.stderr).toContain("brought more than 4 MiB");
    expect(await git(path.join(site, "cache", store), "for-each-ref")).toBe(refsAfterFirst);

    const second = await spawnFetcher(["--cache", "cache"], site, env);
    expect(second.code, second.stderr).toBe(0);
    expect(await git(path.join(site, "cache", store), "for-each-ref")).toContain(
      "refs/remotes/origin/release/2",
    );
  });
});

describe("fetch-skills: the build machine's git settings", () => {
  it("honours GIT_CONFIG_GLOBAL, so a build can rewrite URLs to private mirrors or add credentials", async () => {
    // The manifest names a host that does not exist; only the operator's insteadOf rule reaches the repo.
    const site = await makeSite(tree.dir, [
      { name: "solo", repo: "https://mirror.invalid/solo.git", ref: solo.commits[0] ?? "" },
    ]);
    const config = path.join(site, "gitconfig");
    await writeFile(config, `[url "${solo.url}"]\n\tinsteadOf = https://mirror.invalid/solo.git\n`);

    const rewritten = await spawnFetcher([], site, { GIT_CONFIG_GLOBAL: config });
    expect(rewritten.code, rewritten.stderr).toBe(0);
    expect(await readdir(path.join(site, "skills/solo"))).toEqual(["LICENSE", "hammer"]);

    const plain = await spawnFetcher(
      [],
      await makeSite(tree.dir, [
        { name: "solo", repo: "https://mirror.invalid/solo.git", ref: solo.commits[0] ?? "" },
      ]),
    );
    expect(plain.code).toBe(1);
  });
});

describe("fetch-skills: credentials in a repository URL", () => {
  it("keeps them out of sources.json, which ships in the image, and out of its messages", async () => {
    const secretUrl = "https://deploy:ghp_SECRET@mirror.invalid/solo.git";
    const site = await makeSite(tree.dir, [{ name: "solo", repo: secretUrl, ref: solo.commits[0] ?? "" }]);
    const config = path.join(site, "gitconfig");
    await writeFile(config, `[url "${solo.url}"]\n\tinsteadOf = ${secretUrl}\n`);

    const fetched = await spawnFetcher(["--cache", "cache"], site, { GIT_CONFIG_GLOBAL: config });
    expect(fetched.code, fetched.stderr).toBe(0);
    const stores = await readdir(path.join(site, "cache"), { recursive: true });
    expect(stores.length).toBeGreaterThan(0);
    expect(stores.filter((entry) => entry.includes("ghp_SECRET"))).toEqual([]);
    // Regression: the store's config named its remote by the URL, credentials and all, in the build cache.
    const [store] = await readdir(path.join(site, "cache"));
    expect(await readFile(path.join(site, "cache", store ?? "", "config"), "utf8")).not.toContain(
      "ghp_SECRET",
    );
    const written = await readFile(path.join(site, "skills/sources.json"), "utf8");
    expect(written).not.toContain("ghp_SECRET");
    expect(JSON.parse(written)).toMatchObject({
      sources: [{ name: "solo", repo: "https://mirror.invalid/solo.git" }],
    });

    const failed = await spawnFetcher(
      [],
      await makeSite(tree.dir, [{ name: "solo", repo: secretUrl, ref: solo.commits[0] ?? "" }]),
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("https://mirror.invalid/solo.git");
    expect(failed.stderr).not.toContain("ghp_SECRET");
  });
});

describe("fetch-skills: all or nothing", () => {
  const MISSING = "0123456789abcdef0123456789abcdef01234567";

  it.each([
    {
      title: "a commit the repository does not have",
      solo: () => soloSource(MISSING),
      message: () =>
        `source "solo": commit ${MISSING} is not in ${solo.url}: no branch or tag holds it. Check the source's ref`,
      git: "",
    },
    {
      title: "an annotated tag's id in place of a commit",
      solo: () => soloSource(soloTag),
      message: () =>
        `source "solo": ref ${soloTag} is the id of an annotated tag, not of a commit: pin the commit it tags, ${solo.commits[0]}`,
      git: "",
    },
    {
      title: "an unreachable repository",
      solo: () => ({ name: "solo", repo: `file://${tree.dir}/nowhere`, ref: MISSING }),
      message: () => `source "solo": cannot fetch file://${tree.dir}/nowhere:`,
      git: "does not appear to be a git repository",
    },
    {
      title: "a path missing at that commit",
      solo: () => soloSource(solo.commits[0] ?? "", { path: "skills" }),
      message: () => `source "solo": path "skills" does not exist in the repository at this commit`,
      git: "",
    },
    {
      title: "a missing extra",
      solo: () => ({ ...soloSource(solo.commits[0] ?? ""), path: "hammer", extras: ["shared"] }),
      message: () => `source "solo": extra "shared" does not exist in the repository at this commit`,
      git: "",
    },
  ])("leaves the previous skills folder intact after $title", async (failure) => {
    const site = await makeSite(tree.dir, [
      kitSource(kit.commits[0] ?? ""),
      soloSource(solo.commits[0] ?? ""),
    ]);
    expect((await runFetcher([], site)).code).toBe(0);
    const before = await snapshot(path.join(site, "skills"));

    await writeManifest(site, manifestOf([kitSource(kit.commits[1] ?? ""), failure.solo()]));
    const result = await runFetcher([], site);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`fetch-skills: ${failure.message()}`);
    expect(result.stderr).toContain(failure.git);
    // What git said of a commit it would not send directly only restated the message (twice).
    expect(result.stderr).not.toContain("not our ref");
    expect(result.stderr).toContain(
      `fetch-skills: nothing written; ${path.join(site, "skills")} is as it was`,
    );
    expect(result.stdout).toBe("");
    expect(await snapshot(path.join(site, "skills"))).toEqual(before);
    expect(await readdir(site)).toEqual(["skills", "skills.toml"]);
  });

  // Both were a stack trace, the first after the whole fetch: a volume mounted at --out (a container's
  // /skills) cannot be renamed away, and the new folder is built beside --out.
  it.skipIf(process.getuid?.() !== 0)(
    "says that a mount point cannot be replaced, and leaves what it holds",
    async () => {
      const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
      const out = path.join(site, "skills");
      await mkdir(out);
      await execFileAsync("mount", ["-t", "tmpfs", "tmpfs", out]);
      try {
        const result = await runFetcher([], site);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `fetch-skills: --out ${out} cannot be replaced by the new folder (EBUSY): it is a mount point; give a folder inside it\n`,
        );
        expect(result.stderr).toContain(`fetch-skills: nothing written; ${out} is as it was`);
        expect(await readdir(out)).toEqual([]);
      } finally {
        await execFileAsync("umount", [out]);
      }
    },
  );

  it("says that it cannot write beside --out when that folder is read-only", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    const readOnly = path.join(site, "read-only");
    await mkdir(readOnly);
    await chmod(readOnly, 0o555);
    await chmod(site, 0o755);
    await chmod(tree.dir, 0o755);
    // Root writes everywhere: the fetcher runs as nobody then.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const args = [...ENTRY, "--out", "read-only/skills"];
    const failed = await execFileAsync(process.execPath, args, { ...user, cwd: site }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(
      `fetch-skills: --out ${readOnly}/skills: cannot write in ${readOnly}, where the new folder is built before it is swapped in: permission denied (EACCES); give a folder this user may write in, or change its permissions\nfetch-skills: nothing written\n`,
    );
  });

  // It said "is not a folder (ENOTDIR)": a code, where a user needs to hear what stands there and what to do.
  it("says that --out is a file, and what to do", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    await writeFile(path.join(site, "skills"), "not a folder");
    const result = await runFetcher([], site);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `fetch-skills: --out ${path.join(site, "skills")} is a file, not a folder: remove it, or give another --out\nfetch-skills: nothing written; ${path.join(site, "skills")} is as it was\n`,
    );
  });

  // It said "…, where the new folder is built before it is swapped in: ENOENT", the code alone.
  it.skipIf(process.platform !== "linux")(
    "says why no folder can be made beside an --out in /proc",
    async () => {
      const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
      const result = await runFetcher(["--out", "/proc/skills"], site);
      expect(result.code).toBe(1);
      expect(result.stderr.split("\n")[0]).toBe(
        "fetch-skills: --out /proc/skills: cannot write in /proc, where the new folder is built before it is swapped in: no folder can be made in it (ENOENT, no such file or directory, though it is a folder): its file system takes none (as /proc), or it was deleted while in use",
      );
    },
  );

  // It said "cannot write in /dev/null, …: a file is already there (EEXIST); remove it, or give another
  // folder": advice to remove /dev/null, and no word of what was wrong with the path.
  it.each([
    ["--out", "notes/skills", "notes"],
    ["--cache", "notes/cache", "notes"],
    ["--summary", "notes/summary.md", "notes"],
  ])("says which part of %s %s is a file where a folder is needed", async (option, value, file) => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    await writeFile(path.join(site, "notes"), "mine");
    const result = await runFetcher([option, value], site);
    expect(result.stderr.split("\n")[0]).toBe(
      `fetch-skills: ${option} ${path.join(site, value)}: ${path.join(site, file)} is a file where the path needs a folder; give another ${option}`,
    );
    expect(await readFile(path.join(site, "notes"), "utf8")).toBe("mine");
  });

  it.skipIf(process.platform !== "linux")(
    "says /dev/null is a device where --out needs a folder",
    async () => {
      const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
      const result = await runFetcher(["--out", "/dev/null/skills"], site);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        "fetch-skills: --out /dev/null/skills: /dev/null is a device where the path needs a folder; give another --out\nfetch-skills: nothing written\n",
      );
    },
  );

  // Node's recursive mkdir never returned there, spinning at full CPU: mkdir answers ENOENT under /proc.
  it.skipIf(process.platform !== "linux").each([
    [
      ["--out", "/proc/skills-mcp-test/skills"],
      "--out /proc/skills-mcp-test/skills: cannot write in /proc/skills-mcp-test, where the new folder is built before it is swapped in",
    ],
    [
      ["--cache", "/proc/skills-mcp-test/cache"],
      "--cache /proc/skills-mcp-test/cache: cannot make the folder",
    ],
  ])(
    "fails at once where no folder can be made (%j)",
    async (argv, said) => {
      const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
      const result = await runFetcher(argv, site);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `fetch-skills: ${said} (no folder can be made in /proc: mkdir /proc/skills-mcp-test answered ENOENT (no such file or directory) though /proc is a folder: its file system takes none (as /proc), or it was deleted while in use)\nfetch-skills: nothing written\n`,
      );
    },
    10_000,
  );

  it("refuses to replace a folder it did not write", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    await mkdir(path.join(site, "skills"));
    await writeFile(path.join(site, "skills/notes.md"), "mine\n");
    const result = await runFetcher([], site);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "is not empty and has no sources.json, so it was not written by fetch-skills",
    );
    expect(await snapshot(path.join(site, "skills"))).toEqual({ "notes.md": "mine\n" });
  });

  it("refuses an extra that would overwrite a folder copied from path", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "clash"), [
      { "skills/a/SKILL.md": skillMd("a"), "skills/shared/x.md": "x", "shared/y.md": "y" },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "clash", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills", extras: ["shared"] },
    ]);
    const result = await runFetcher([], site);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'fetch-skills: source "clash": extra "shared" would overwrite "skills/shared" copied from path',
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
  });
});

describe("fetch-skills command line", () => {
  it.each([
    // Node's parseArgs texts, once: they named the option as declared and no valid one.
    [
      ["--bogus"],
      "unknown option --bogus; valid: --manifest, --out, --cache, --source, --max-files, --max-mib, --update, --no-fetch, --summary, --findings, --help (-h)",
    ],
    [["--out"], "--out needs a value"],
    [["--update=yes"], "--update takes no value"],
    [["--no-fetch"], "--no-fetch only goes with --update"],
    [["--out", ""], "--out needs a path"],
    // parseArgs kept the last without a word: a script's --out and the user's own wrote the second.
    [["--out", "a", "--out", "b", "--no-fetch"], '--out is given twice ("a", then "b"): give it once'],
    // In the words every command uses for it (it said "must be a whole number of 1 or more (got …)").
    [["--max-files", "many"], '--max-files "many" is not a whole number ≥ 1'],
    [["stray"], 'unexpected argument "stray": only options are taken; valid: --manifest,'],
    // The store was thrown away with the old skills on every run, so each run fetched everything again.
    [["--cache", "skills/.cache"], "--cache skills/.cache is inside --out skills, which each run replaces"],
  ])("refuses %j with one line and the usage", async (argv, message) => {
    const result = await runFetcher(argv, tree.dir);
    expect(result.code).toBe(2);
    const [first, blank, usage] = result.stderr.split("\n");
    expect(first).toContain(`fetch-skills: ${message}`);
    expect(blank).toBe("");
    expect(usage).toBe("Usage: npm run fetch-skills -- [options]");
  });

  // A wrong value hid the usage that fixes it (exit 2), where the server, sync, tokens and soak print it.
  it("prints the usage on --help, whatever else is wrong", async () => {
    const result = await runFetcher(["--help", "--no-fetch", "--max-files", "many"], tree.dir);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Usage: npm run fetch-skills -- \[options\]\n/);
  });

  it("refuses a --source that skills.toml does not list, naming those it does", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    const result = await runFetcher(["--source", "nope"], site);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('fetch-skills: --source "nope" is not in skills.toml (sources: solo)\n');
    expect(await readdir(site)).toEqual(["skills.toml"]);
  });

  // Regression: `--source` alone said it needs a value and not which, which only skills.toml knows.
  it("names skills.toml's sources to a --source given no value, and says why when it cannot", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    const alone = await runFetcher(["--source"], site);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^fetch-skills: --source needs a value \(one of solo\)\n\nUsage: /);
    const beforeOption = await runFetcher(["--source", "--update"], site);
    expect(beforeOption.stderr).toMatch(
      /^fetch-skills: --source needs a value \(one of solo\), and the next word is an option /,
    );
    const unreadable = await runFetcher(["--manifest", "missing.toml", "--source"], site);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(
      /^fetch-skills: --source needs a value: the name of a source of missing\.toml, whose sources cannot be listed: missing\.toml cannot be read: .*\n\nUsage: /,
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
  });

  // As SKILL_PACKS does for a pack: the list alone left the reader to spot the slip.
  it("suggests the source a --source is a slip from", async () => {
    const site = await makeSite(tree.dir, [soloSource(solo.commits[0] ?? "")]);
    const result = await runFetcher(["--source", "Sol"], site);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'fetch-skills: --source "Sol" is not in skills.toml (sources: solo): did you mean "solo"?\n',
    );
  });

  it("prints the usage on --help through npm run fetch-skills", async () => {
    const result = await spawnFetcher(["--help"], ROOT, {}, "npm");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: npm run fetch-skills -- [options]");
    expect(result.stdout).toContain("--update");
    // The usage named no exit status, where the README and every other command's usage do.
    expect(result.stdout).toContain("Exits 1 when the fetch (or the repin) fails, 2 when the command line");
  });
});
