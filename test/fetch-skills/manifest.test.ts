import { mkdir, mkdtemp, readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManifestError } from "../../scripts/fetch-skills/errors.js";
import { parseManifest } from "../../scripts/fetch-skills/manifest.js";
import { visible } from "../../src/shared/index.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream, runFetcher, writeManifest } from "./helpers.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
let tree: TempTree;
let goodRepo: string;
let goodRef: string;

beforeAll(async () => {
  tree = await makeTree({});
  const upstream = await makeUpstream(`${tree.dir}/upstream`, [{ "skills/one/SKILL.md": skillMd("one") }]);
  goodRepo = upstream.url;
  goodRef = upstream.commits[0] ?? "";
});
afterAll(() => tree.remove());

/** A valid first source, so the tests show that nothing is fetched before the whole file is valid. */
const good = () => `[[source]]\nname = "good"\nrepo = "${goodRepo}"\nref = "${goodRef}"\npath = "skills"\n`;

interface Case {
  readonly title: string;
  /** Appended after the valid source (whose table takes lines 1-5, then a blank line 6). */
  readonly toml: string;
  readonly errors: readonly string[];
}

const cases: Case[] = [
  {
    title: "an unknown key",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\nrefs = "main"\n`,
    errors: [
      'skills.toml:11: source "bad": unknown key "refs" (valid keys: name, repo, ref, path, extras, branch, description)',
    ],
  },
  {
    title: "an unknown top-level key",
    toml: `[settings]\ncolor = "blue"\n`,
    errors: ['skills.toml:7: unknown key "settings" (valid: [[source]] tables)'],
  },
  // A value was put back raw: the log escapes it, but a long one buried the rest of the message.
  {
    title: "a ref holding an escape, a line break and 300 more characters",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "main\\u001b[31m\\nnext${"x".repeat(300)}"\n`,
    errors: [
      `skills.toml:10: source "bad": ref "main{U+001B}[31m{U+000A}next${"x".repeat(86)}…" holds U+001B ESCAPE, a character that hides or reorders text`,
    ],
  },
  {
    title: "a duplicate name",
    toml: `[[source]]\nrepo = "x"\nname = "good"\nref = "${SHA}"\n`,
    errors: ['skills.toml:9: source "good": name "good" is already used by the source on line 1'],
  },
  {
    title: "a duplicate name in a source with another problem, both reported at once",
    toml: `[[source]]\nname = "good"\nrepo = "x"\nref = "main"\n`,
    errors: [
      'skills.toml:10: source "good": ref "main" is not a full commit id',
      'skills.toml:8: source "good": name "good" is already used by the source on line 1',
    ],
  },
  {
    title: "a name that is not a pack name",
    toml: `[[source]]\nname = "Bad_Name"\nrepo = "x"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:8: source "Bad_Name": name "Bad_Name" must be lowercase letters, digits and single hyphens',
    ],
  },
  {
    title: "a short ref",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "a333fbb"\n`,
    errors: [
      'skills.toml:10: source "bad": ref "a333fbb" is not a full commit id: write its 40 lowercase hex digits (git rev-parse a333fbb in a clone of the repository prints them)',
    ],
  },
  {
    title: "a branch name as ref, with how to look its commit up",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\n\n# pinned?\nref = "main"\n`,
    errors: [
      'skills.toml:12: source "bad": ref "main" is not a full commit id: write its 40 lowercase hex digits (git ls-remote x main prints those of the commit it names now)',
    ],
  },
  {
    title: "a tag as ref, of a repo whose URL holds a token the lookup does not repeat",
    toml: `[[source]]\nname = "bad"\nrepo = "https://deploy:s3cret@mirror.example/x.git"\nref = "v1.2"\n`,
    errors: [
      'skills.toml:10: source "bad": ref "v1.2" is not a full commit id: write its 40 lowercase hex digits (git ls-remote https://mirror.example/x.git v1.2 prints',
    ],
  },
  {
    title: "a description longer than models should read on every turn",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\ndescription = "${"Long words. ".repeat(50)}"\n`,
    errors: [
      'skills.toml:11: source "bad": description is 599 characters; at most 500 (models read it on every turn)',
    ],
  },
  {
    title: "a missing ref",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\n`,
    errors: ['skills.toml:7: source "bad": ref is missing'],
  },
  // Regression: an unquoted ref said only "ref must be a non-empty string", where a wrong string got the
  // 40-hex-digit hint and how to look the commit up.
  {
    title: "a ref written as a number, with the commit hint",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = 5\n`,
    errors: [
      'skills.toml:10: source "bad": ref must be a non-empty string: write the full commit id, its 40 lowercase hex digits, in quotes (git rev-parse 5 in a clone of the repository prints them)',
    ],
  },
  {
    title: "an empty ref, with the commit hint",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = ""\n`,
    errors: [
      'skills.toml:10: source "bad": ref must be a non-empty string: write the full commit id, its 40 lowercase hex digits, in quotes (git ls-remote x <branch or tag> prints those of the commit it names now)',
    ],
  },
  {
    title: "a missing name",
    toml: `[[source]]\nrepo = "x"\nref = "${SHA}"\n`,
    errors: ["skills.toml:7: source #2: name is missing"],
  },
  {
    title: "an absolute path",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "/etc"\n`,
    errors: [
      'skills.toml:11: source "bad": path "/etc" must be relative to the repository root, not absolute',
    ],
  },
  {
    title: "a path climbing out",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "skills/../../etc"\n`,
    errors: ['skills.toml:11: source "bad": path "skills/../../etc" must not climb out with ".."'],
  },
  {
    title: "a path into .git",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = ".git/hooks"\n`,
    errors: ['skills.toml:11: source "bad": path ".git/hooks" must not point into .git'],
  },
  // Regression: only ".git" was refused, and a case-insensitive file system (macOS) reads ".GIT" as the
  // checkout's .git folder, which holds its index: that folder was copied as the pack.
  {
    title: "a path into .git in capitals",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = ".GIT"\n`,
    errors: [
      'skills.toml:11: source "bad": path ".GIT" must not point into .git: its folder ".GIT" is one macOS or Windows reads as .git, like any folder named .git in any case, with dots, spaces or a ":" stream after it (".GIT", ".git.", ".git::$INDEX_ALLOCATION"), with a character macOS ignores inside it (".g{U+200C}it"), or git~1, Windows\' short name for .git; name a folder of the repository\'s own files, like "skills"',
    ],
  },
  {
    title: "extras into .git in mixed case or with a trailing dot (Windows drops it)",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "skills"\nextras = [".Git/hooks", "docs/.git./x"]\n`,
    errors: [
      'skills.toml:12: source "bad": extra ".Git/hooks" must not point into .git: its folder ".Git" is one',
      'skills.toml:12: source "bad": extra "docs/.git./x" must not point into .git: its folder ".git." is one',
    ],
  },
  // Regression: Windows also reaches .git as its short name git~1 and through a stream (.git::$INDEX_ALLOCATION),
  // and HFS+ ignores zero-width and direction characters in a name: each of these passed and was copied.
  {
    title: "extras into .git by Windows' short name, a stream, or a character macOS ignores",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "skills"\nextras = ["GIT~1/hooks", ".git::$INDEX_ALLOCATION", "docs/.g\\u200cit"]\n`,
    errors: [
      'skills.toml:12: source "bad": extra "GIT~1/hooks" must not point into .git: its folder "GIT~1" is one',
      'skills.toml:12: source "bad": extra ".git::$INDEX_ALLOCATION" must not point into .git: its folder ".git::$INDEX_ALLOCATION" is one',
      'skills.toml:12: source "bad": extra "docs/.g{U+200C}it" must not point into .git: its folder ".g{U+200C}it" is one',
    ],
  },
  {
    title: "an absolute extra",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\nextras = ["shared", "/home"]\n`,
    errors: [
      'skills.toml:11: source "bad": extra "/home" must be relative to the repository root, not absolute',
    ],
  },
  {
    title: "an extra climbing out",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "skills"\nextras = ["../secrets"]\n`,
    errors: ['skills.toml:12: source "bad": extra "../secrets" must not climb out with ".."'],
  },
  {
    title: "an extra inside path",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "skills"\nextras = ["skills/shared"]\n`,
    errors: [
      'skills.toml:12: source "bad": extra "skills/shared" overlaps path "skills": extras must lie outside it',
    ],
  },
  {
    title: "an extra holding path",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\npath = "kit/skills"\nextras = ["kit"]\n`,
    errors: ['skills.toml:12: source "bad": extra "kit" overlaps path "kit/skills"'],
  },
  {
    title: "an extra when path is the whole repository",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\nextras = ["shared"]\n`,
    errors: ['skills.toml:11: source "bad": extra "shared" overlaps path "."'],
  },
  {
    title: "a repo that git would read as an option",
    toml: `[[source]]\nname = "bad"\nrepo = "--upload-pack=touch /tmp/pwned"\nref = "${SHA}"\n`,
    errors: ['skills.toml:9: source "bad": repo "--upload-pack=touch /tmp/pwned" must not start with "-"'],
  },
  // Git fetches from its store, so a relative path failed as "not a git repository" while --update, which
  // lists it from the working folder, repinned it.
  {
    title: "a repo written as a relative path",
    toml: `[[source]]\nname = "bad"\nrepo = "../skills-checkout"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "../skills-checkout" is neither a URL nor an absolute path (git fetches from its own store, where a relative path leads nowhere): write https://host/owner/name.git, ssh://host/path, user@host:path, file:///absolute/path or /absolute/path',
    ],
  },
  {
    title: "a repo without its scheme",
    toml: `[[source]]\nname = "bad"\nrepo = "github.com/anthropics/skills"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "github.com/anthropics/skills" is neither a URL nor an absolute path',
    ],
  },
  // Regression: a remote helper's address reached git, and ext:: runs the command it names wherever the
  // build machine's git config allows it (protocol.allow=always).
  {
    title: "a repo naming git's ext:: remote helper",
    toml: `[[source]]\nname = "bad"\nrepo = "ext::sh -c touch% /tmp/pwned"\nref = "${SHA}"\n`,
    errors: [
      `skills.toml:9: source "bad": repo "ext::sh -c touch% /tmp/pwned" names git's remote helper "ext::", which fetches from no repository (ext:: runs the command it is given, fd:: reads descriptors the fetcher does not hand it): write https://host/owner/name.git, ssh://host/path, user@host:path, file:///absolute/path or /absolute/path`,
    ],
  },
  {
    title: "an ssh repo whose host ssh would read as an option",
    toml: `[[source]]\nname = "bad"\nrepo = "ssh://-oProxyCommand=touch%20x/skills"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "ssh://-oProxyCommand=touch%20x/skills" names a host starting with "-"',
    ],
  },
  {
    title: "a repo holding a line break",
    toml: `[[source]]\nname = "bad"\nrepo = "https://host/skills.git\\n[core]"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "https://host/skills.git{U+000A}[core]" holds U+000A, a character that hides or reorders text',
    ],
  },
  // Regression: a right-to-left override in repo showed the review a URL other than the one git fetched from.
  {
    title: "a repo holding a bidi control",
    toml: `[[source]]\nname = "bad"\nrepo = "https://host/\u202Etig.llive/skills"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "https://host/{U+202E}tig.llive/skills" holds U+202E RIGHT-TO-LEFT OVERRIDE, a character that hides or reorders text, so a review would read the line other than the fetcher does: write https://host/owner/name.git, ssh://host/path',
    ],
  },
  // Git takes what follows file:// as the path, so file://../x is relative to the store, which leads nowhere.
  {
    title: "a file:// repo without an absolute path",
    toml: `[[source]]\nname = "bad"\nrepo = "file://../skills"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "file://../skills" is a file:// URL without an absolute path (git would read it from its own store): write file:///absolute/path',
    ],
  },
  {
    title: "a file:// repo that climbs with ..",
    toml: `[[source]]\nname = "bad"\nrepo = "file:///srv/skills/../../etc"\nref = "${SHA}"\n`,
    errors: [
      'skills.toml:9: source "bad": repo "file:///srv/skills/../../etc" must name the repository\'s folder without ".."',
    ],
  },
  {
    title: "several problems at once, each on its line",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "nope"\npath = "/abs"\ncolour = 1\n`,
    errors: [
      'skills.toml:12: source "bad": unknown key "colour"',
      'skills.toml:10: source "bad": ref "nope" is not a full commit id',
      'skills.toml:11: source "bad": path "/abs" must be relative',
    ],
  },
  {
    title: "an unknown top-level table and a source's problems, all in one run",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "main"\npth = "skills"\n\n[settings]\ncolor = 1\n`,
    errors: [
      'skills.toml:13: unknown key "settings"',
      'skills.toml:10: source "bad": ref "main" is not a full commit id',
      'skills.toml:11: source "bad": unknown key "pth"',
    ],
  },
  {
    title: "a dotted key and a sub-table, each on its own line",
    toml: `[[source]]\nname = "bad"\nrepo = "x"\nref = "${SHA}"\nmeta.owner = "me"\n[source.extra]\nx = 1\n`,
    errors: [
      'skills.toml:11: source "bad": unknown key "meta"',
      'skills.toml:12: source "bad": unknown key "extra"',
    ],
  },
  {
    title: "invalid TOML, with smol-toml's line and column",
    toml: `[[source]]\nname = "bad"\nref = abc\n`,
    errors: ["skills.toml:9:7: not valid TOML: invalid value"],
  },
  {
    title: "a string not closed on its line",
    toml: `[[source]]\nname = "bad\nref = "x"\n`,
    errors: [
      "skills.toml:8:12: not valid TOML: a string is not closed on its line (its closing quote is missing)",
    ],
  },
];

describe("skills.toml validation", () => {
  it.each(cases)(
    "refuses $title, naming the line, source and key, and writes nothing",
    async ({ toml, errors }) => {
      const dir = await mkdtemp(`${tree.dir}/case-`);
      await writeManifest(dir, `${good()}\n${toml}`);

      const result = await runFetcher(["--cache", "cache"], dir);

      expect(result.code).toBe(1);
      for (const error of errors) expect(result.stderr).toContain(`fetch-skills: ${error}`);
      expect(result.stderr).toContain("nothing written");
      expect(result.stdout).toBe("");
      expect(await readdir(dir)).toEqual(["skills.toml"]);
    },
  );

  it("names the line of a problem in a file that opens with a byte order mark", async () => {
    const dir = await mkdtemp(`${tree.dir}/bom-`);
    await writeManifest(dir, `\uFEFF${good()}\n[[source]]\nname = "bad"\nrepo = "file:///x"\nref = "main"\n`);
    const result = await runFetcher([], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'fetch-skills: skills.toml:10: source "bad": ref "main" is not a full commit id',
    );
  });

  // Regression: the file was read whole before any check, so --manifest /dev/zero read until Node gave up.
  it.each([
    ["a skills.toml of more than 1 MiB", "skills.toml"],
    ["a device that never ends", "/dev/zero"],
  ])("refuses %s, saying the most a manifest may hold", async (_title, manifest) => {
    const dir = await mkdtemp(`${tree.dir}/huge-`);
    // A valid manifest, but for its size: a source and then comment lines past 1 MiB.
    await writeManifest(dir, `${good()}${"# padding\n".repeat(110_000)}`);
    const result = await runFetcher(["--manifest", manifest], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fetch-skills: ${manifest}: holds more than 1 MiB, the most a skills.toml may: it lists sources, a few hundred bytes each`,
    );
    expect(await readdir(dir)).toEqual(["skills.toml"]);
  });

  // An option's value was put back raw: an escape, a line break and 300 characters, shown whole.
  it.each([["--source"], ["--max-files"]])("quotes the value of %s back escaped and cut", async (option) => {
    const dir = await mkdtemp(`${tree.dir}/quoted-`);
    await writeManifest(dir, good());
    const result = await runFetcher([option, `red\u001b[31m\nnext${"x".repeat(300)}`], dir);
    expect(result.code).toBe(2);
    const [first = ""] = result.stderr.split("\n");
    expect(first).toContain(`${option} "red{U+001B}[31m{U+000A}next${"x".repeat(87)}…" is not `);
  });

  it("takes folders whose names only begin with .git", () => {
    const manifest = parseManifest(
      `[[source]]\nname = "ok"\nrepo = "https://example.com/x.git"\nref = "${SHA}"\npath = ".github/skills"\nextras = [".gitignore", ".git-shared/x", "a.git"]\n`,
      "skills.toml",
    );
    expect(manifest.sources[0]?.path).toBe(".github/skills");
    expect(manifest.sources[0]?.extras).toEqual([".gitignore", ".git-shared/x", "a.git"]);
  });

  /** `path` as parsed, or the problems reported for it. */
  const parsedPath = (value: string): string => {
    const toml = `[[source]]\nname = "x"\nrepo = "https://example.com/x.git"\nref = "${SHA}"\npath = ${JSON.stringify(value)}\n`;
    try {
      return parseManifest(toml, "skills.toml").sources[0]?.path ?? "";
    } catch (error) {
      return String(error);
    }
  };

  // The names git refuses to check out as .git (its is_ntfs_dotgit and is_hfs_dotgit): NTFS reads each of the
  // first seven as .git (its short name, a stream of it, trailing dots and spaces dropped), HFS+ the others.
  it.each(
    [
      "git~1",
      "Git~1/skills",
      "docs/GIT~1. .",
      "git~1:x",
      ".git:stream",
      ".git::$INDEX_ALLOCATION/hooks",
      ".GiT . :x",
      ".g\u200cit",
      "skills/.GI\u200dT/hooks",
      "\ufeff.git",
      ".git\u200f",
      ".\u202ag\u202ei\u206at\u206f",
    ].map((value) => ({ value, shown: visible(value) })),
  )("refuses $shown as a folder macOS or Windows reads as .git", ({ value }) => {
    expect(parsedPath(value)).toContain("must not point into .git: its folder");
  });

  // Near misses, as git's rules take them. `git~2` is some other folder's short name: .git is made before
  // anything in the checkout, so it takes git~1. A dot is dropped only at the end, and `:` opens a stream
  // only after .git itself. (`.g{U+200B}it` was one too, U+200B not being a code point HFS+ ignores: it is
  // now refused as a character no reader sees, below.)
  it.each(
    [
      ".github",
      ".gitignore",
      "x.git",
      "git~2",
      "git~10",
      "git~1x",
      "git~1.md",
      "git",
      ".git.x",
      ".gitx:y",
    ].map((value) => ({ value, shown: visible(value) })),
  )("takes $shown, which no file system reads as .git", ({ value }) => {
    expect(parsedPath(value)).toBe(value);
  });

  it("refuses a manifest with no source", async () => {
    const dir = `${tree.dir}/empty`;
    await mkdir(dir);
    await writeManifest(dir, "# nothing pinned yet\n");
    const result = await runFetcher([], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("fetch-skills: skills.toml: no [[source]] table: nothing to fetch");
    expect(await readdir(dir)).toEqual(["skills.toml"]);
  });

  it("says so when the manifest cannot be read", async () => {
    const result = await runFetcher(["--manifest", "missing.toml"], tree.dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "fetch-skills: missing.toml cannot be read: there is no such file (ENOENT)",
    );
    // It said "(EISDIR)", a code, not what was wrong.
    const folder = await runFetcher(["--manifest", "."], tree.dir);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain("fetch-skills: . cannot be read: it is a folder (EISDIR); give a file");
  });
});

// A pin is bumped in a one-line change to skills.toml that a person reviews: every key once took a bidi
// control, and all but name, ref and branch a zero-width, tag or separator character, so the line a review
// read was not the one the fetcher took.
describe("skills.toml values that hide or reorder text", () => {
  const plain: Readonly<Record<string, string | string[]>> = {
    name: "ok",
    repo: "https://example.com/x.git",
    ref: SHA,
    path: "skills",
    extras: ["shared"],
    branch: "main",
    description: "Plain words.",
  };

  /** The problems parseManifest reports for one source of `plain` values with `changed` put in. */
  const problemsOf = (changed: Readonly<Record<string, string | readonly string[]>>): readonly string[] => {
    const lines = Object.entries({ ...plain, ...changed }).map(
      ([key, value]) => `${key} = ${JSON.stringify(value)}`,
    );
    try {
      parseManifest(`[[source]]\n${lines.join("\n")}\n`, "skills.toml");
      return [];
    } catch (error) {
      if (error instanceof ManifestError) return error.problems;
      throw error;
    }
  };

  it("takes the plain source, spaces and line breaks in its description included", () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ description: "Two\nlines,\ta tab." })).toEqual([]);
  });

  const hiders = [
    ["U+202E RIGHT-TO-LEFT OVERRIDE", "\u202e"],
    ["U+2066 LEFT-TO-RIGHT ISOLATE", "\u2066"],
    ["U+200B ZERO WIDTH SPACE", "\u200b"],
    ["U+2028 LINE SEPARATOR", "\u2028"],
    ["U+00AD SOFT HYPHEN", "\u00ad"],
    ["U+E0041", "\u{e0041}"],
    ["U+FEFF ZERO WIDTH NO-BREAK SPACE (byte order mark)", "\ufeff"],
  ] as const;
  const keys = [
    ["name", (hider: string) => `o${hider}k`, "lowercase letters, digits and single hyphens"],
    ["repo", (hider: string) => `https://example.com/${hider}x.git`, "https://host/owner/name.git"],
    ["ref", (hider: string) => `${SHA.slice(0, 20)}${hider}${SHA.slice(20)}`, "40 lowercase hex digits"],
    ["path", (hider: string) => `skills${hider}`, "the folder's path in characters a reader sees"],
    ["extras", (hider: string) => ["shared", `docs${hider}`], "folder paths in characters a reader sees"],
    ["branch", (hider: string) => `ma${hider}in`, "the branch's name"],
    ["description", (hider: string) => `Plain${hider} words.`, "text a reader sees"],
  ] as const;
  it.each(
    keys.flatMap(([key, make, valid]) =>
      hiders.map(([named, hider]) => ({ key, value: make(hider), named, valid })),
    ),
  )(
    "refuses $key holding $named, naming the key, the character and what is valid",
    ({ key, value, named, valid }) => {
      const problems = problemsOf({ [key]: value });
      const what = key === "extras" ? "extra" : key;
      const shown = Array.isArray(value) ? (value[1] ?? "") : value;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(
        `source "${key === "name" ? visible(shown) : "ok"}": ${what} ${JSON.stringify(visible(shown))} holds ${named}, `,
      );
      expect(problems[0]).toContain(valid);
    },
  );

  it("keeps the .git check of a path whose hidden character HFS+ ignores: both are said", () => {
    const problems = problemsOf({ path: ".g\u200cit" });
    expect(problems.some((problem) => problem.includes('path ".g{U+200C}it" holds U+200C'))).toBe(true);
    expect(problems.some((problem) => problem.includes("must not point into .git"))).toBe(true);
  });

  // A local path may hold spaces; git fetches from /srv/my skills as it is.
  it("takes a space in a local path, as an absolute path or a file:// URL", () => {
    expect(problemsOf({ repo: "/srv/my skills" })).toEqual([]);
    expect(problemsOf({ repo: "file:///srv/my skills" })).toEqual([]);
  });

  // curl refuses a URL holding a space ("URL using bad/illegal format"), and one before the scheme made the
  // whole a host:path that passed as ssh's.
  it.each([
    "https://example.com/my skills.git",
    " https://example.com/x.git",
    "git@example.com:my skills.git",
  ])("refuses %j: a URL holds no space, and says how to write one", (repo) => {
    expect(problemsOf({ repo })).toEqual([
      expect.stringContaining(`repo ${JSON.stringify(repo)} holds a space, which a URL may not`),
    ]);
    expect(problemsOf({ repo })[0]).toContain("write it as %20");
  });

  it("refuses a no-break space, which reads as a space and is not one, even in a local path", () => {
    expect(problemsOf({ repo: "/srv/my\u00a0skills" })).toEqual([
      expect.stringContaining(
        'repo "/srv/my\u00a0skills" holds U+00A0, a space that reads as " " in a review',
      ),
    ]);
  });

  // Regression: a path or extra took them, so `skills\u00A0x` read as `skills x` in a one-line review while
  // the fetcher took another folder; a plain space is still a folder's to hold.
  it.each([
    ["path", "U+00A0", "skills\u00a0x", "path", 5],
    ["path", "U+2009", "skills\u2009x", "path", 5],
    ["extras", "U+3000", ["shared", "common\u3000docs"], "extra", 6],
  ] as const)(
    "refuses in %s a space other than U+0020 (%s), saying which and what to write",
    (key, code, value, what, line) => {
      const shown = JSON.stringify(Array.isArray(value) ? value[1] : value);
      expect(problemsOf({ [key]: value })).toEqual([
        `skills.toml:${line}: source "ok": ${what} ${shown} holds ${code}, a space that reads as " " in a review but ` +
          "is another character to git: write a plain space (U+0020), the only space a folder path may hold, or " +
          "name the folder that holds this one",
      ]);
    },
  );

  it("takes a plain space in a path and an extra", () => {
    expect(problemsOf({ path: "my skills", extras: ["shared docs"] })).toEqual([]);
  });
});
