import { execFile } from "node:child_process";
import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetcherError } from "../../scripts/fetch-skills/errors.js";
import { parseManifest } from "../../scripts/fetch-skills/manifest.js";
import { rewriteRefs } from "../../scripts/fetch-skills/repin.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { ENTRY, git, makeUpstream, runFetcher, snapshot, writeManifest } from "./helpers.js";

const execFileAsync = promisify(execFile);

const A_OLD = "a".repeat(40);
const A_NEW = "1".repeat(40);
const B_OLD = "b".repeat(40);
const B_NEW = "2".repeat(40);
const C_OLD = "c".repeat(40);

/** A hand-kept file: comments everywhere, odd spacing, both quote styles, ref first, middle and last. */
const ODD = `# Pins for the image.   ref = "{B_COMMENT}" in a comment stays as it is
   [[source]]   # first, indented header
name="alpha"
ref='{A}'      # pinned by hand
repo   =   "file:///x/alpha"


[[source]]
\tref\t=\t"{B}"
\tname = 'beta'   
\trepo = "file:///x/beta"
\textras = [
\t  "shared",  # cited a lot
\t  'prompts',
\t]
\tpath = "skills" # was ref = "{B_COMMENT}" once

[[ source ]]
name = "gamma"   # never moves
repo = "file:///x/gamma"
path = "."
ref = "{C}"
`;

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? "");
}

describe("rewriteRefs", () => {
  it("changes only the ref values, keeping every other byte", () => {
    const before = fill(ODD, { A: A_OLD, B: B_OLD, C: C_OLD, B_COMMENT: B_OLD });
    const manifest = parseManifest(before, "skills.toml");
    const after = rewriteRefs(
      manifest,
      new Map([
        ["alpha", A_NEW],
        ["beta", B_NEW],
        ["gamma", C_OLD],
      ]),
    );
    expect(after).toBe(fill(ODD, { A: A_NEW, B: B_NEW, C: C_OLD, B_COMMENT: B_OLD }));
  });

  it("keeps Windows line endings", () => {
    const crlf = (text: string) => text.replace(/\n/g, "\r\n");
    const manifest = parseManifest(crlf(fill(ODD, { A: A_OLD, B: B_OLD, C: C_OLD, B_COMMENT: B_OLD })), "x");
    const after = rewriteRefs(manifest, new Map([["gamma", A_NEW]]));
    expect(after).toBe(crlf(fill(ODD, { A: A_OLD, B: B_OLD, C: A_NEW, B_COMMENT: B_OLD })));
  });

  // Notepad saves UTF-8 with a byte order mark: every repin of such a file was refused as if its refs were
  // not written as ref = "<commit>", failing the weekly workflow.
  it("keeps the byte order mark an editor wrote", () => {
    const bom = (text: string) => `\uFEFF${text}`;
    const manifest = parseManifest(bom(fill(ODD, { A: A_OLD, B: B_OLD, C: C_OLD, B_COMMENT: B_OLD })), "x");
    const after = rewriteRefs(manifest, new Map([["alpha", A_NEW]]));
    expect(after).toBe(bom(fill(ODD, { A: A_NEW, B: B_OLD, C: C_OLD, B_COMMENT: B_OLD })));
  });

  it.each([
    ["a multi-line string", `[[source]]\nname = "x"\nrepo = "file:///r"\nref = """${A_OLD}"""\n`],
    ["an inline table", `source = [{ name = "x", repo = "file:///r", ref = "${A_OLD}" }]\n`],
  ])("refuses to guess when a ref is written as %s", (_, text) => {
    const manifest = parseManifest(text, "skills.toml");
    expect(() => rewriteRefs(manifest, new Map([["x", A_NEW]]))).toThrow(
      new FetcherError(
        'skills.toml: cannot rewrite the ref of source "x" in place; write it as ref = "<commit>" in its [[source]] table',
      ),
    );
  });
});

describe("fetch-skills --update", () => {
  let tree: TempTree;
  let site: string;
  let tracked: Awaited<ReturnType<typeof makeUpstream>>;
  let steady: Awaited<ReturnType<typeof makeUpstream>>;
  let first: string;
  let onMain: string;
  let onStable: string;

  const PINS = `# Skills of the test site.
[[source]]
name = "head"          # follows the remote's HEAD
repo = "{TRACKED}"
ref  = "{HEAD_REF}"
path = "skills"

[[source]]
name   = "stable"
branch = "stable"      # follows a release branch
repo   = "{TRACKED}"
ref    = '{STABLE_REF}'
path   = "skills"

[[source]]
name = "steady"
repo = "{STEADY}"
ref = "{STEADY_REF}"
`;
  let pins: (refs: { HEAD_REF: string; STABLE_REF: string }) => string;

  beforeAll(async () => {
    tree = await makeTree({});
    tracked = await makeUpstream(path.join(tree.dir, "tracked"), [{ "skills/one/SKILL.md": skillMd("one") }]);
    first = tracked.commits[0] ?? "";
    await git(tracked.dir, "branch", "stable");
    onMain = await tracked.commit({ "skills/two/SKILL.md": skillMd("two") });
    await git(tracked.dir, "checkout", "--quiet", "stable");
    onStable = await tracked.commit({ "skills/one/extra.md": "stable only\n" });
    await git(tracked.dir, "checkout", "--quiet", "main");
    steady = await makeUpstream(path.join(tree.dir, "steady"), [{ "s/SKILL.md": skillMd("s") }]);
    pins = (refs) =>
      fill(PINS, { TRACKED: tracked.url, STEADY: steady.url, STEADY_REF: steady.commits[0] ?? "", ...refs });
  });
  afterAll(() => tree.remove());

  async function siteWith(text: string): Promise<string> {
    const dir = await mkdtemp(path.join(tree.dir, "site-"));
    await writeManifest(dir, text);
    return dir;
  }

  it("refuses a --summary it could not write before moving any ref or fetching anything", async () => {
    const text = pins({ HEAD_REF: first, STABLE_REF: first });
    const dir = await siteWith(text);

    const result = await runFetcher(["--update", "--summary", "no-such-folder/pr.md"], dir);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `fetch-skills: --summary: the folder ${path.join(dir, "no-such-folder")} does not exist`,
    );
    expect(await readFile(path.join(dir, "skills.toml"), "utf8")).toBe(text);
    expect(await readdir(dir)).toEqual(["skills.toml"]);
  });

  it("with --no-fetch rewrites only the refs and prints the summary, also to --summary", async () => {
    site = await siteWith(pins({ HEAD_REF: first, STABLE_REF: first }));

    const result = await runFetcher(["--update", "--no-fetch", "--summary", "pr.md"], site);

    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(
      pins({ HEAD_REF: onMain, STABLE_REF: onStable }),
    );
    expect(result.stdout).toBe(
      [
        "## Skills repinned",
        "",
        "| Source | Tracks | From | To | Changes |",
        "|---|---|---|---|---|",
        `| head | HEAD | \`${first.slice(0, 7)}\` | \`${onMain.slice(0, 7)}\` | moved |`,
        `| stable | stable | \`${first.slice(0, 7)}\` | \`${onStable.slice(0, 7)}\` | moved |`,
        `| steady | HEAD | \`${steady.commits[0]?.slice(0, 7)}\` | \`${steady.commits[0]?.slice(0, 7)}\` | unchanged |`,
        "",
        "2 of 3 sources moved: head, stable.",
        "",
      ].join("\n"),
    );
    expect(await readFile(path.join(site, "pr.md"), "utf8")).toBe(result.stdout);
    expect(result.stderr).toContain(`head: HEAD is at ${onMain.slice(0, 7)} (was ${first.slice(0, 7)})`);
    expect(await readdir(site)).toEqual(["pr.md", "skills.toml"]);
  });

  // skills.toml was truncated and then written: a symlink to it was replaced by where it led, and a run
  // killed mid-write, or a disk full, left half a manifest.
  it("replaces a symlinked skills.toml where it leads, keeping its mode and leaving no temporary file", async () => {
    site = await siteWith("");
    const kept = await mkdtemp(path.join(tree.dir, "kept-"));
    const target = await writeManifest(kept, pins({ HEAD_REF: first, STABLE_REF: first }), "pins.toml");
    await chmod(target, 0o640);
    await rm(path.join(site, "skills.toml"));
    await symlink(target, path.join(site, "skills.toml"));

    const result = await runFetcher(["--update", "--no-fetch"], site);

    expect(result.code, result.stderr).toBe(0);
    expect((await lstat(path.join(site, "skills.toml"))).isSymbolicLink()).toBe(true);
    expect(await readFile(target, "utf8")).toBe(pins({ HEAD_REF: onMain, STABLE_REF: onStable }));
    expect((await stat(target)).mode & 0o777).toBe(0o640);
    expect(await readdir(site)).toEqual(["skills.toml"]);
    expect(await readdir(kept)).toEqual(["pins.toml"]);
  });

  it("leaves skills.toml whole, and no temporary file, when it cannot be written in full", async () => {
    // A comment makes the file larger than the file size limit set below: the disk is "full" mid-write.
    const text = `# ${"x".repeat(4000)}\n${pins({ HEAD_REF: first, STABLE_REF: first })}`;
    site = await siteWith(text);

    const [command, args] = [process.execPath, [...ENTRY, "--update", "--no-fetch"]];
    // Node ignores SIGXFSZ, so a write past `ulimit -f` (2048 bytes in blocks of 512) fails with EFBIG.
    const failed = await execFileAsync("sh", ["-c", 'ulimit -f 4; exec "$@"', "sh", command, ...args], {
      cwd: site,
      env: { ...process.env, NODE_OPTIONS: "" },
      timeout: 30_000,
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );

    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(
      "fetch-skills: skills.toml: cannot be rewritten: a file grew past the size this process may write (EFBIG); raise its limit (ulimit -f)\nfetch-skills: nothing written\n",
    );
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(text);
    expect(await readdir(site)).toEqual(["skills.toml"]);
  });

  it("fetches the new commits before rewriting skills.toml, then says nothing moved", async () => {
    site = await siteWith(pins({ HEAD_REF: first, STABLE_REF: first }));

    const moved = await runFetcher(["--update"], site);

    expect(moved.code, moved.stderr).toBe(0);
    const sources = JSON.parse(await readFile(path.join(site, "skills/sources.json"), "utf8")).sources;
    expect(sources.map((source: { ref: string }) => source.ref)).toEqual([
      onMain,
      onStable,
      steady.commits[0],
    ]);
    expect(await readdir(path.join(site, "skills/head"))).toEqual(["one", "two"]);
    expect(await readFile(path.join(site, "skills/stable/one/extra.md"), "utf8")).toBe("stable only\n");
    expect(moved.stdout).toContain("2 of 3 sources moved");
    expect(moved.stdout).toContain("## Skills fetched");

    const toml = await readFile(path.join(site, "skills.toml"), "utf8");
    const fetched = await snapshot(path.join(site, "skills"));
    const again = await runFetcher(["--update", "--summary", "pr.md"], site);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("## Skills: nothing moved");
    expect(again.stdout).toContain("Nothing moved: all 3 sources already pin the head of what they track.");
    expect(again.stderr).toContain("nothing moved");
    expect(await readFile(path.join(site, "pr.md"), "utf8")).toBe(again.stdout);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(toml);
    expect(await snapshot(path.join(site, "skills"))).toEqual(fetched);
  });

  it("leaves skills.toml and the skills folder alone when the new commit cannot be fetched", async () => {
    const broken = await makeUpstream(path.join(tree.dir, "broken"), [{ "skills/x/SKILL.md": skillMd("x") }]);
    const good = broken.commits[0] ?? "";
    const text = `[[source]]\nname = "broken"\nrepo = "${broken.url}"\nref = "${good}"\npath = "skills"\n`;
    site = await siteWith(text);
    expect((await runFetcher([], site)).code).toBe(0);
    const before = await snapshot(path.join(site, "skills"));
    await broken.commit({ skills: null, "docs/moved.md": "the skills moved elsewhere\n" });

    const result = await runFetcher(["--update"], site);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fetch-skills: source "broken": its new commit ${(await git(broken.dir, "rev-parse", "HEAD")).slice(0, 7)} fails: path "skills" does not exist`,
    );
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(text);
    expect(await snapshot(path.join(site, "skills"))).toEqual(before);
    // The new skills.toml, written before the fetch, is gone with it.
    expect(await readdir(site)).toEqual(["skills", "skills.toml"]);
    await rm(broken.dir, { recursive: true });
  });

  it("names the source when its branch does not exist", async () => {
    const text = `[[source]]\nname = "lost"\nrepo = "${tracked.url}"\nref = "${first}"\nbranch = "nope"\n`;
    site = await siteWith(text);
    const result = await runFetcher(["--update", "--no-fetch"], site);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`fetch-skills: source "lost": ${tracked.url} has no refs/heads/nope`);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(text);
  });

  it("fails, naming each, when no source moved and several cannot be repinned", async () => {
    const gone = path.join(tree.dir, "gone");
    const text =
      `[[source]]\nname = "lost"\nrepo = "${tracked.url}"\nref = "${first}"\nbranch = "nope"\n\n` +
      `[[source]]\nname = "gone"\nrepo = "file://${gone}"\nref = "${first}"\n`;
    site = await siteWith(text);
    const result = await runFetcher(["--update", "--no-fetch"], site);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fetch-skills: 2 sources cannot be repinned: "lost": ${tracked.url} has no refs/heads/nope; "gone": cannot list file://${gone}:`,
    );
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(text);
  });

  // Regression: a source whose branch was deleted upstream stopped the whole weekly update, so no other
  // source was bumped until someone edited skills.toml by hand.
  it("repins the other sources when one branch is gone, keeping its pin and saying so in the summary", async () => {
    const text =
      `[[source]]\nname = "head"\nrepo = "${tracked.url}"\nref = "${first}"\npath = "skills"\n\n` +
      `[[source]]\nname = "lost"\nrepo = "${tracked.url}"\nref = "${first}"\nbranch = "nope"\npath = "skills"\n`;
    site = await siteWith(text);

    const result = await runFetcher(["--update", "--summary", "pr.md"], site);

    expect(result.code).toBe(0);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(
      text.replace(`ref = "${first}"`, `ref = "${onMain}"`),
    );
    expect(result.stderr).toContain(
      `lost: cannot repin, ${tracked.url} has no refs/heads/nope; stays at ${first.slice(0, 7)}`,
    );
    const summary = await readFile(path.join(site, "pr.md"), "utf8");
    expect(summary).toContain("> [!WARNING]\n> 1 source could not be repinned and keeps its pin: lost.");
    expect(summary).toContain(
      `| lost | nope | \`${first.slice(0, 7)}\` | – | **not repinned**: \`${tracked.url} has no refs/heads/nope\` |`,
    );
    expect(summary).toContain("1 of 2 sources moved: head.");
    // The source that stays is fetched at its pin, beside the one that moved.
    expect(await readdir(path.join(site, "skills"))).toEqual(expect.arrayContaining(["head", "lost"]));
  });
  // Regression: one source whose new head failed the fetch (its skills moved upstream) failed the whole
  // weekly update, so no other source was bumped and no pull request said why.
  it("holds back a source whose new commit fails the fetch, repinning the others and saying which and why", async () => {
    const moving = await makeUpstream(path.join(tree.dir, "moving"), [{ "skills/x/SKILL.md": skillMd("x") }]);
    const pinned = moving.commits[0] ?? "";
    const text =
      `[[source]]\nname = "head"\nrepo = "${tracked.url}"\nref = "${first}"\npath = "skills"\n\n` +
      `[[source]]\nname = "moving"\nrepo = "${moving.url}"\nref = "${pinned}"\npath = "skills"\n`;
    site = await siteWith(text);
    const broken = await moving.commit({ skills: null, "docs/x.md": "the skills moved elsewhere\n" });

    const result = await runFetcher(["--update", "--summary", "pr.md", "--findings", "findings.json"], site);

    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(
      text.replace(`ref = "${first}"`, `ref = "${onMain}"`),
    );
    const why = `path "skills" does not exist in the repository at this commit (${broken})`;
    expect(result.stderr).toContain(
      `moving: held back at ${pinned.slice(0, 7)}: its new commit ${broken.slice(0, 7)} fails: ${why}\n`,
    );
    const summary = await readFile(path.join(site, "pr.md"), "utf8");
    expect(summary).toContain(
      "> [!WARNING]\n> 1 source was held back at its pin, its new head failing the fetch or the load check: moving.",
    );
    expect(summary).toContain(
      `| moving | HEAD | \`${pinned.slice(0, 7)}\` | – | **held back**: \`${broken.slice(0, 7)}\` fails: \`${why}\` |`,
    );
    expect(summary).toContain("1 of 2 sources moved: head.");
    // The held-back pack is served at its pin, beside the one that moved.
    const sources = JSON.parse(await readFile(path.join(site, "skills/sources.json"), "utf8")).sources;
    expect(sources.map((source: { ref: string }) => source.ref)).toEqual([onMain, pinned]);
    expect(await readdir(path.join(site, "skills/moving"))).toEqual(["x"]);
    expect((await readdir(site)).sort()).toEqual(["findings.json", "pr.md", "skills", "skills.toml"]);
  });

  it("fails, naming each, when every source that moved is held back", async () => {
    const a = await makeUpstream(path.join(tree.dir, "held-a"), [{ "skills/a/SKILL.md": skillMd("a") }]);
    const b = await makeUpstream(path.join(tree.dir, "held-b"), [{ "skills/b/SKILL.md": skillMd("b") }]);
    const text =
      `[[source]]\nname = "a"\nrepo = "${a.url}"\nref = "${a.commits[0]}"\npath = "skills"\n\n` +
      `[[source]]\nname = "b"\nrepo = "${b.url}"\nref = "${b.commits[0]}"\npath = "skills"\n`;
    site = await siteWith(text);
    expect((await runFetcher([], site)).code).toBe(0);
    const before = await snapshot(path.join(site, "skills"));
    const aBroken = await a.commit({ skills: null });
    const bBroken = await b.commit({ skills: null });

    const result = await runFetcher(["--update"], site);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fetch-skills: 2 sources cannot be repinned: "a": its new commit ${aBroken.slice(0, 7)} fails: path "skills" does not exist`,
    );
    expect(result.stderr).toContain(`; "b": its new commit ${bBroken.slice(0, 7)} fails: path "skills"`);
    expect(result.stdout).toBe("");
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(text);
    expect(await snapshot(path.join(site, "skills"))).toEqual(before);
    expect(await readdir(site)).toEqual(["skills", "skills.toml"]);
  });
});
