import { link, mkdir, rm, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CatalogError,
  type CatalogIssue,
  documentsToBytes,
  KnownDocuments,
  type LoadedCatalog,
  loadCatalog,
} from "../../src/catalog/index.js";
import { MAX_SKILL_NESTING } from "../../src/catalog/pack-scan.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

function issueAt(issues: readonly CatalogIssue[], path: string): CatalogIssue | undefined {
  return issues.find((issue) => issue.path === path);
}

describe("loadCatalog on the standard tree", () => {
  let tree: StandardCatalog;
  let loaded: LoadedCatalog;
  beforeAll(async () => {
    tree = await makeStandardCatalog();
    loaded = loadCatalog(tree.skillsDir);
  });
  afterAll(() => tree.remove());

  it("finds every skill of flat and grouped packs at any depth, sorted by name then pack", () => {
    expect(loaded.catalog.everything.skills.map((skill) => skill.id)).toEqual([
      "gamma/drill",
      "beta/editor",
      "beta/hammer",
      "alpha/one",
      "beta/saw",
      "alpha/shared-name",
      "beta/shared-name",
      "alpha/two",
      "beta/writer",
    ]);
  });

  it("names the group after the first folder under the pack", () => {
    const groups = Object.fromEntries(
      loaded.catalog.everything.skills.map((skill) => [skill.id, skill.group]),
    );
    expect(groups).toMatchObject({
      "alpha/one": undefined,
      "beta/hammer": "tools",
      "beta/editor": "docs",
      "beta/shared-name": undefined,
      "gamma/drill": "tools",
    });
    const beta = loaded.catalog.everything.findPack("beta");
    expect(beta?.groups.map((group) => [group.name, group.skills.length])).toEqual([
      ["docs", 2],
      ["tools", 2],
    ]);
  });

  it("skips hidden pack folders and files at the top of the skills folder", () => {
    expect(loaded.catalog.everything.packs.map((pack) => pack.name)).toEqual(["alpha", "beta", "gamma"]);
  });

  it("lists a skill's visible files with sizes, without SKILL.md, hidden files or outside symlinks", () => {
    const two = loaded.catalog.everything.findPack("alpha")?.skills.find((skill) => skill.name === "two");
    expect([...(two?.files.keys() ?? [])]).toEqual([
      "assets/logo.png",
      "big.txt",
      "link-in.md",
      "nested/inner/notes.md",
      "references/guide.md",
      "scripts/run.sh",
    ]);
    expect(two?.files.get("references/guide.md")?.size).toBe("# Guide to two\n".length);
  });

  it("reports symlinks that point outside their skill as skipped", () => {
    expect(issueAt(loaded.issues, "alpha/two/link-out.md")).toMatchObject({ severity: "skipped" });
    expect(issueAt(loaded.issues, "alpha/two/link-abs.md")?.reason).toContain("outside");
  });

  it("serves files outside every skill folder as pack files, never as skill files", () => {
    const beta = loaded.catalog.everything.findPack("beta");
    expect([...(beta?.files.keys() ?? [])]).toEqual(["shared/deep/note.md", "shared/guide.md"]);
    const alpha = loaded.catalog.everything.findPack("alpha");
    expect([...(alpha?.files.keys() ?? [])]).toEqual(["README.md"]);
    const hammer = beta?.skills.find((skill) => skill.name === "hammer");
    expect(hammer?.files.size).toBe(0);
  });

  it("keeps same-named skills of different packs apart", () => {
    const lookup = loaded.catalog.everything.findSkill("shared-name");
    expect(lookup).toEqual({ kind: "ambiguous", candidates: ["alpha/shared-name", "beta/shared-name"] });
    expect(loaded.catalog.everything.findSkill("beta/shared-name")).toMatchObject({ kind: "found" });
  });

  it("reads sources.json, keeping only the sources of packs SKILL_PACKS loads", () => {
    expect(loaded.catalog.sources).toEqual([{ name: "alpha", ref: "a".repeat(40), skipped: [] }]);
    expect(loadCatalog(tree.skillsDir, { packs: ["beta"] }).catalog.sources).toEqual([]);
  });

  // sources.json was parsed twice, by the catalog and by the audit, each its own way (issue 25).
  it("reads what the fetcher skipped from sources.json, and ignores a file whose lists are malformed", async () => {
    const ref = "b".repeat(40);
    const skipped = [{ path: "one/link", reason: "symlink points outside the repository" }];
    const folder = await makeTree({
      "alpha/one/SKILL.md": skillMd("one"),
      "sources.json": JSON.stringify({ sources: [{ name: "alpha", ref, skipped }] }),
    });
    try {
      expect(loadCatalog(folder.dir).catalog.sources).toEqual([{ name: "alpha", ref, skipped }]);
      await writeFile(
        path.join(folder.dir, "sources.json"),
        JSON.stringify({ sources: [{ name: "alpha", ref, skipped: [{ path: 7 }] }] }),
      );
      const { catalog, issues } = loadCatalog(folder.dir);
      expect(catalog.sources).toEqual([]);
      expect(issues).toEqual([
        {
          severity: "warning",
          path: "sources.json",
          reason: "ignored: the skipped files of alpha are not a list of paths and reasons",
        },
      ]);
    } finally {
      await folder.remove();
    }
  });

  // A sources.json that could not be opened (no permission, a symlink loop) was ignored without a word.
  it("ignores a sources.json it cannot open, or a folder of that name, with a warning saying why", async () => {
    const folder = await makeTree({ "alpha/one/SKILL.md": skillMd("one") });
    const sources = path.join(folder.dir, "sources.json");
    try {
      await symlink("sources.json", sources);
      // The list of pack folders reports the link too (as "skipped"), as any link it cannot follow.
      expect(loadCatalog(folder.dir).issues).toEqual(
        expect.arrayContaining([
          {
            severity: "warning",
            path: "sources.json",
            reason: "ignored: it cannot be read: too many levels of symlinks (ELOOP)",
          },
        ]),
      );
      await rm(sources);
      await mkdir(sources);
      expect(loadCatalog(folder.dir).issues).toEqual(
        expect.arrayContaining([
          { severity: "warning", path: "sources.json", reason: "ignored: it is not a regular file" },
        ]),
      );
    } finally {
      await folder.remove();
    }
  });

  // Regression: a sparse sources.json of 1.9 GB was read whole (2 GB of memory, some 17 s of CPU) and then
  // ignored without a word.
  it("ignores a sources.json larger than 16 MiB with a warning, reading none of it", async () => {
    const folder = await makeTree({
      "alpha/one/SKILL.md": skillMd("one"),
      "sources.json": "",
    });
    try {
      await truncate(path.join(folder.dir, "sources.json"), 16 * 1024 * 1024 + 1);
      expect(loadCatalog(folder.dir).issues).toEqual([
        { severity: "warning", path: "sources.json", reason: "ignored: it is larger than 16 MiB" },
      ]);
    } finally {
      await folder.remove();
    }
  });
});

describe("loadCatalog skip and warn rules", () => {
  it("leaves out broken skills with the reason, and serves the rest", async () => {
    const tree = await makeTree({
      "p/good/SKILL.md": skillMd("good"),
      "p/no-front/SKILL.md": "# nothing\n",
      "p/bad-yaml/SKILL.md": "---\nname: [x\n---\n",
      "p/list/SKILL.md": "---\n- a\n---\n",
      "p/no-name/SKILL.md": "---\ndescription: d\n---\n",
      "p/no-desc/SKILL.md": "---\nname: no-desc\n---\n",
      "p/dir-doc/SKILL.md/readme.txt": "a folder named SKILL.md",
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      expect(catalog.everything.skills.map((skill) => skill.name)).toEqual(["good"]);
      const skipped = Object.fromEntries(
        issues.filter((issue) => issue.severity === "skipped").map((issue) => [issue.path, issue.reason]),
      );
      expect(skipped).toMatchObject({
        "p/no-front": expect.stringContaining("no frontmatter"),
        "p/bad-yaml": expect.stringContaining("not valid YAML"),
        "p/list": expect.stringContaining("not a YAML mapping"),
        "p/no-name": expect.stringContaining("no name"),
        "p/no-desc": expect.stringContaining("no description"),
        "p/dir-doc": expect.stringContaining("not a regular file"),
      });
    } finally {
      await tree.remove();
    }
  });

  it("reads a frontmatter of any length in full; refuses one never closed and a SKILL.md over 1 MiB", async () => {
    // Multi-byte characters and a long body put the end of the frontmatter, and the description after a
    // long key, well past the first read.
    const description = "Résumé, read after the note.";
    const body = "Body line.\n".repeat(3000);
    const document = `---\nname: long\nmetadata:\n  note: ${"déjà vu ".repeat(700)}end.\ndescription: ${description}\n---\n${body}`;
    const tree = await makeTree({
      "p/long/SKILL.md": document,
      "p/open/SKILL.md": `---\nname: open\ndescription: never closed\n${body}`,
      "p/huge/SKILL.md": skillMd("huge", "Too big.", "x".repeat(1024 * 1024)),
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      const long = catalog.everything.skills.find((skill) => skill.name === "long");
      expect(long?.description).toBe(description);
      expect(long?.document.size).toBe(Buffer.byteLength(document));
      expect(issueAt(issues, "p/open")?.reason).toContain("not closed");
      expect(issueAt(issues, "p/huge")?.reason).toContain("larger than 1 MiB");
      expect(catalog.everything.skills.map((skill) => skill.name)).toEqual(["long"]);
    } finally {
      await tree.remove();
    }
  });

  it("serves names that break the naming rule or differ from their folder, with a warning", async () => {
    const tree = await makeTree({
      "p/folder-a/SKILL.md": skillMd("other-name"),
      "p/Bad_Name/SKILL.md": skillMd("Bad_Name"),
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      expect(catalog.everything.skills.map((skill) => skill.name)).toEqual(["Bad_Name", "other-name"]);
      expect(issueAt(issues, "p/folder-a")).toMatchObject({
        severity: "warning",
        reason: expect.stringContaining("differs"),
      });
      expect(issueAt(issues, "p/Bad_Name")).toMatchObject({
        severity: "warning",
        reason: expect.stringContaining("lowercase"),
      });
    } finally {
      await tree.remove();
    }
  });

  // Regression: `description: Fixes issue #42 fast` was served as "Fixes issue", without a word: YAML ends
  // an unquoted value at " #".
  it("warns of a description a YAML comment cuts short, also when its reading is saved", async () => {
    const tree = await makeTree({
      "p/cut/SKILL.md": skillMd("cut", "Fixes issue #42 fast"),
      "p/quoted/SKILL.md": skillMd("quoted", '"Fixes issue #42 fast" # a comment of the author'),
      "p/sharp/SKILL.md": skillMd("sharp", "Writes C# and F# code"),
    });
    try {
      const first = loadCatalog(tree.dir);
      const cut = first.catalog.everything.skills.find((skill) => skill.name === "cut");
      expect(cut?.description).toBe("Fixes issue");
      const warned = [
        [
          "p/cut",
          'description ends where YAML reads " #" as the start of a comment, so what follows is not part ' +
            'of it: put the description in quotes to keep it (description: "… #42 …")',
        ],
      ];
      expect(first.issues.map(({ path, reason }) => [path, reason])).toEqual(warned);
      const known = KnownDocuments.fromBytes(documentsToBytes(first.documents));
      expect(loadCatalog(tree.dir, { known }).issues.map(({ path, reason }) => [path, reason])).toEqual(
        warned,
      );
    } finally {
      await tree.remove();
    }
  });

  // A host that looks for --- at the first byte (Python's and Rust's strip() keep U+FEFF) finds no
  // frontmatter in the bytes served, which keep the mark, as the digest does.
  it("warns of a SKILL.md that begins with a byte order mark, also past the first read, and when saved", async () => {
    const tree = await makeTree({
      "p/bom/SKILL.md": `\uFEFF${skillMd("bom", "Starts with a byte order mark.")}`,
      "p/long/SKILL.md": `\uFEFF---\nname: long\ndescription: ${"A long one. ".repeat(300)}\n---\n`,
      "p/plain/SKILL.md": skillMd("plain", "No mark."),
    });
    try {
      const first = loadCatalog(tree.dir);
      expect(first.catalog.everything.skills.map((skill) => skill.name).sort()).toEqual([
        "bom",
        "long",
        "plain",
      ]);
      const reason =
        "SKILL.md begins with a byte order mark: hosts that look for --- at its first byte find no " +
        "frontmatter there; save it as UTF-8 without one";
      const warned = [
        ["p/bom", reason],
        ["p/long", reason],
      ];
      const bomWarnings = (loaded: LoadedCatalog) =>
        loaded.issues
          .filter((issue) => issue.reason.includes("byte order mark"))
          .map(({ path, reason }) => [path, reason])
          .sort();
      expect(bomWarnings(first)).toEqual(warned);
      const known = KnownDocuments.fromBytes(documentsToBytes(first.documents));
      expect(bomWarnings(loadCatalog(tree.dir, { known }))).toEqual(warned);
    } finally {
      await tree.remove();
    }
  });

  it("serves a skill nested in another as a skill of its own, and its files as the outer skill's too", async () => {
    const tree = await makeTree({
      "p/games/SKILL.md": skillMd("games", "Make games.", "See web-games/SKILL.md for browser games."),
      "p/games/web-games/SKILL.md": skillMd("web-games", "Make browser games."),
      "p/games/web-games/references/canvas.md": "# Canvas\n",
      "p/games/web-games/webgl-games/SKILL.md": skillMd("webgl-games", "Make WebGL games."),
      "p/games/web-games/webgl-games/out.md": { symlink: "/etc/hostname" },
      "p/games/broken/SKILL.md": "no frontmatter\n",
      "p/games/broken/rescued/SKILL.md": skillMd("rescued", "Nested in a skill that is left out."),
      "p/solo/SKILL.md": skillMd("solo", "Holds no other skill."),
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      const skills = catalog.everything.skills;
      expect(skills.map((skill) => [skill.id, skill.group, skill.folder])).toEqual([
        ["p/games", "games", "games"],
        ["p/rescued", "games", "games/broken/rescued"],
        ["p/solo", undefined, "solo"],
        ["p/web-games", "games", "games/web-games"],
        ["p/webgl-games", "games", "games/web-games/webgl-games"],
      ]);
      const web = skills.find((skill) => skill.name === "web-games");
      expect([...(web?.files.keys() ?? [])]).toEqual(["references/canvas.md", "webgl-games/SKILL.md"]);
      const outer = skills.find((skill) => skill.name === "games");
      expect(outer?.files.has("web-games/SKILL.md")).toBe(true);
      expect(outer?.files.has("web-games/references/canvas.md")).toBe(true);
      // Each skill read once, each problem reported once, however deep.
      expect(issues.map((issue) => [issue.path, issue.severity])).toEqual([
        ["p/games/broken", "skipped"],
        ["p/games/web-games/webgl-games/out.md", "skipped"],
      ]);
      expect(catalog.everything.narrow(["p/games"]).skills.map((skill) => skill.name)).toEqual([
        "games",
        "rescued",
        "web-games",
        "webgl-games",
      ]);
    } finally {
      await tree.remove();
    }
  });

  // Regression: every skill of a chain of 500 nested skills listed and inspected all the files below it,
  // quadratic work: the server took minutes and half a GB to start on 500 tiny files.
  it("serves skills nested at most MAX_SKILL_NESTING deep, and says so of a deeper one", async () => {
    const chain = Array.from({ length: 8 }, (_, level) => `s${level}`);
    const folders = chain.map((_, level) => chain.slice(0, level + 1).join("/"));
    const entries = Object.fromEntries(
      folders.flatMap((folder, level) => [
        [`p/${folder}/SKILL.md`, skillMd(`s${level}`)],
        [`p/${folder}/notes.md`, `notes ${level}\n`],
      ]),
    );
    const tree = await makeTree(entries);
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      const skills = catalog.everything.skills;
      expect(skills.map((skill) => skill.name)).toEqual(chain.slice(0, MAX_SKILL_NESTING + 1));
      expect(issues).toEqual([
        {
          severity: "skipped",
          path: `p/${folders[MAX_SKILL_NESTING + 1]}`,
          reason:
            `skills nest at most ${MAX_SKILL_NESTING} deep in other skills: this one and those inside it are ` +
            "not served as skills (their files stay files of the skills around them)",
        },
      ]);
      // The outer skill still cites every file below it; no file is listed by more than that many skills.
      const outer = skills.find((skill) => skill.name === "s0");
      expect(outer?.files.has("s1/s2/s3/s4/s5/s6/s7/notes.md")).toBe(true);
      const listed = skills.reduce((sum, skill) => sum + skill.files.size, 0);
      expect(listed).toBeLessThanOrEqual((MAX_SKILL_NESTING + 1) * Object.keys(entries).length);
    } finally {
      await tree.remove();
    }
  });

  it("reads a skill folder reached both as a nested skill and through a symlink once", async () => {
    const tree = await makeTree({
      "p/games/SKILL.md": skillMd("games", "Make games."),
      "p/games/web/SKILL.md": skillMd("web-games", "Make browser games."),
      "p/link-to-web": { symlink: "games/web" },
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      expect(catalog.everything.skills.map((skill) => skill.name)).toEqual(["games", "web-games"]);
      expect(issues.filter((issue) => issue.reason.includes("duplicate"))).toEqual([]);
    } finally {
      await tree.remove();
    }
  });

  // The placement tells files apart as the rest of the catalog does, by device and inode (CatalogFile.identity):
  // hard links, to each other and to the outer skill's files, are files like any other.
  it("nests a skill whose files are hard links, to each other and to the files of the skill around it", async () => {
    const tree = await makeTree({
      "p/games/SKILL.md": skillMd("games", "Make games."),
      "p/games/notes.md": "# Notes\n",
      "p/games/web/SKILL.md": skillMd("web", "Make browser games."),
    });
    try {
      await link(path.join(tree.dir, "p/games/notes.md"), path.join(tree.dir, "p/games/web/notes.md"));
      await link(path.join(tree.dir, "p/games/web/notes.md"), path.join(tree.dir, "p/games/web/again.md"));
      const { catalog, issues } = loadCatalog(tree.dir);
      const web = catalog.everything.skills.find((skill) => skill.name === "web");
      expect(web?.nestedPath).toBe("p/games/games/web");
      expect(new Set([...(web?.files.values() ?? [])].map((file) => file.identity)).size).toBe(1);
      expect(issues).toEqual([]);
    } finally {
      await tree.remove();
    }
  });

  it("serves the shallower of two same-named skills when one is nested", async () => {
    const tree = await makeTree({
      "p/b/SKILL.md": skillMd("b", "At the top."),
      "p/a/SKILL.md": "no frontmatter\n",
      "p/a/b/SKILL.md": skillMd("b", "Nested."),
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      expect(catalog.everything.skills.map((skill) => skill.description)).toEqual(["At the top."]);
      expect(issueAt(issues, "p/a/b")?.reason).toMatch(/duplicate.*p\/b is served/);
    } finally {
      await tree.remove();
    }
  });

  // Both were told only that they were dropped, or named otherwise than their folders: not where the
  // nested duplicate's files went, nor that the renamed one's URI lies beside the skill it is nested in.
  it("tells where a nested skill that cannot be served as nested goes: dropped as a duplicate, or beside", async () => {
    const tree = await makeTree({
      "p/b/SKILL.md": skillMd("b", "At the top."),
      "p/a/SKILL.md": skillMd("a", "Holds a b of its own."),
      "p/a/b/SKILL.md": skillMd("b", "Nested, named as b at the top."),
      "p/games/SKILL.md": skillMd("games", "Holds web."),
      "p/games/web/SKILL.md": skillMd("webby", "Nested, named otherwise than its folder."),
      "p/solo/SKILL.md": skillMd("lonely", "Named otherwise, nested in nothing."),
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      expect(issueAt(issues, "p/a/b")).toEqual({
        severity: "skipped",
        path: "p/a/b",
        reason:
          'duplicate skill name "b": p/b is served instead; its files stay files of skill p/a around it ' +
          '(read_skill(skill="p/a", file="b/SKILL.md"))',
      });
      const a = catalog.everything.findSkill("p/a");
      expect(a.kind === "found" && a.skill.files.has("b/SKILL.md")).toBe(true);
      expect(issueAt(issues, "p/games/web")).toEqual({
        severity: "warning",
        path: "p/games/web",
        reason:
          'name "webby" differs from its folder "web" in skill p/games: its skill:// URI ends with its name, ' +
          "so it lies beside skill://p/games/games, at skill://p/games/webby/SKILL.md, and not below it, where " +
          'renaming "web" would break what p/games cites there; name it "web" to nest it',
      });
      expect(issueAt(issues, "p/solo")?.reason).toBe('name "lonely" differs from its folder');
    } finally {
      await tree.remove();
    }
  });

  it("keeps the first of two same-named skills in a pack by sorted path and names both", async () => {
    const tree = await makeTree({
      "p/b-later/SKILL.md": skillMd("dup", "Later copy."),
      "p/a-first/SKILL.md": skillMd("dup", "First copy."),
    });
    try {
      const { catalog, issues } = loadCatalog(tree.dir);
      expect(catalog.everything.skills.map((skill) => skill.description)).toEqual(["First copy."]);
      expect(issueAt(issues, "p/b-later")?.reason).toMatch(/duplicate.*p\/a-first/);
    } finally {
      await tree.remove();
    }
  });

  it("treats a pack folder that holds SKILL.md as a single skill", async () => {
    const tree = await makeTree({ "solo/SKILL.md": skillMd("solo"), "solo/notes.md": "n" });
    try {
      const { catalog } = loadCatalog(tree.dir);
      const solo = catalog.everything.findPack("solo");
      expect(solo?.skills.map((skill) => [skill.name, skill.group, [...skill.files.keys()]])).toEqual([
        ["solo", undefined, ["notes.md"]],
      ]);
      expect(solo?.files.size).toBe(0);
    } finally {
      await tree.remove();
    }
  });

  it("follows symlinked folders inside the pack without looping", async () => {
    const tree = await makeTree({
      "p/real/SKILL.md": skillMd("real"),
      "p/real/docs/a.md": "a",
      "p/real/docs/loop": { symlink: ".." },
      "p/alias": { symlink: "real" },
    });
    try {
      const { catalog } = loadCatalog(tree.dir);
      expect(catalog.everything.skills.map((skill) => skill.folder)).toEqual(["alias"]);
      expect(catalog.everything.skills[0]?.files.has("docs/a.md")).toBe(true);
    } finally {
      await tree.remove();
    }
  });
});

describe("loadCatalog with SKILL_PACKS", () => {
  let tree: StandardCatalog;
  beforeAll(async () => {
    tree = await makeStandardCatalog();
  });
  afterAll(() => tree.remove());

  it("loads only the named packs and groups", () => {
    const { catalog } = loadCatalog(tree.skillsDir, { packs: ["alpha", "beta/tools"] });
    expect(catalog.everything.skills.map((skill) => skill.id)).toEqual([
      "beta/hammer",
      "alpha/one",
      "beta/saw",
      "alpha/shared-name",
      "alpha/two",
    ]);
    expect(catalog.everything.findPack("gamma")).toBeUndefined();
    expect(catalog.everything.findSkill("shared-name")).toMatchObject({ kind: "found" });
  });

  it("accepts a bare group name that only one pack has", () => {
    const { catalog } = loadCatalog(tree.skillsDir, { packs: ["docs"] });
    expect(catalog.everything.skills.map((skill) => skill.id)).toEqual(["beta/editor", "beta/writer"]);
  });

  it("refuses a bare group name two packs share, naming the qualified forms", () => {
    expect(() => loadCatalog(tree.skillsDir, { packs: ["tools"] })).toThrow(/beta\/tools, gamma\/tools/);
  });

  it("refuses a selector that matches nothing, listing the valid ones", () => {
    const load = () => loadCatalog(tree.skillsDir, { packs: ["alpha", "nope"] });
    expect(load).toThrow(CatalogError);
    expect(load).toThrow(/"nope".*alpha, beta, gamma, beta\/docs, beta\/tools, gamma\/tools/);
  });
});

describe("loadCatalog refusals", () => {
  it("refuses a missing folder", () => {
    expect(() => loadCatalog("/nonexistent/skills")).toThrow(/does not exist/);
  });

  // A file, /dev/null or a FIFO was "does not exist or is not a folder", which left the reader to find which.
  it("says what a path that is no folder is", async () => {
    const tree = await makeTree({ "notes.md": "x" });
    try {
      expect(() => loadCatalog(path.join(tree.dir, "notes.md"))).toThrow(/ is a file, not a folder$/);
      // Past a file it was "does not exist or is not a folder" again.
      expect(() => loadCatalog(path.join(tree.dir, "notes.md", "skills"))).toThrow(
        `Skills folder ${path.join(tree.dir, "notes.md", "skills")}: ${path.join(tree.dir, "notes.md")} is a file where the path needs a folder`,
      );
      if (process.platform === "linux") {
        expect(() => loadCatalog("/dev/null")).toThrow("Skills folder /dev/null is a device, not a folder");
        expect(() => loadCatalog("/dev/null/skills")).toThrow(
          "Skills folder /dev/null/skills: /dev/null is a device where the path needs a folder",
        );
      }
    } finally {
      await tree.remove();
    }
  });

  // SKILLS_DIR=/proc/self walked the whole machine (its `root` is /) for half a minute and more, every
  // process's files and every container's layers, before failing; SKILLS_DIR=/ served any SKILL.md anywhere.
  it.runIf(process.platform === "linux")(
    "refuses the root of the file system and the kernel's /proc and /sys at once, walking nothing",
    () => {
      const cases: [string, RegExp][] = [
        ["/", /^Skills folder \/ is the root of the file system: give the folder that holds the packs/],
        ["/proc/self/root", /^Skills folder \/proc\/self\/root \(\/\) is the root of the file system/],
        [
          "/proc/self",
          /^Skills folder \/proc\/self \(\/proc\/\d+\) is in \/proc, the kernel's view of its processes/,
        ],
        ["/sys/kernel", /^Skills folder \/sys\/kernel is in \/sys, the kernel's view of its devices/],
      ];
      for (const [dir, said] of cases) expect(() => loadCatalog(dir)).toThrow(said);
    },
  );

  it.runIf(process.platform === "linux")(
    "leaves out a pack folder that is a link into /proc, and serves the rest",
    async () => {
      const tree = await makeTree({ "p/ok/SKILL.md": skillMd("ok") });
      try {
        await symlink("/proc/self", path.join(tree.dir, "procs"));
        const { catalog, issues } = loadCatalog(tree.dir);
        expect(catalog.everything.packs.map((pack) => pack.name)).toEqual(["p"]);
        expect(issueAt(issues, "procs")).toEqual({
          severity: "skipped",
          path: "procs",
          reason: "pack folder is in /proc, the kernel's view of its processes",
        });
      } finally {
        await tree.remove();
      }
    },
  );

  // SKILLS_DIR set to one skill's folder said only "No valid skill", though a SKILL.md was right there.
  it("says so when the folder given is a skill's own", async () => {
    const tree = await makeTree({
      "SKILL.md": "---\nname: lone\ndescription: A skill.\n---\n",
      "references/guide.md": "x",
    });
    try {
      expect(() => loadCatalog(tree.dir)).toThrow(
        /^No valid skill in .*; it is a skill's folder \(it holds SKILL\.md\): give the folder of packs/,
      );
    } finally {
      await tree.remove();
    }
  });

  // SKILLS_DIR set to one pack's folder (examples/skills/design) served each skill as a pack of its own,
  // without a word.
  it("warns when the folder given looks like one pack's, each skill read as a pack", async () => {
    const tree = await makeTree({
      "color-palettes/SKILL.md": skillMd("color-palettes"),
      "icon-sets/SKILL.md": skillMd("icon-sets"),
      "shared/tokens.md": "x",
    });
    try {
      const { issues, catalog } = loadCatalog(tree.dir);
      expect(catalog.everything.packs.map((pack) => pack.name)).toEqual(["color-palettes", "icon-sets"]);
      expect(issueAt(issues, ".")).toMatchObject({
        severity: "warning",
        reason: expect.stringMatching(
          /as when the folder given is one pack's: give the folder that holds the packs/,
        ),
      });
    } finally {
      await tree.remove();
    }
  });

  it("does not warn for a single-skill pack beside packs of skills", async () => {
    const tree = await makeTree({
      "lone/SKILL.md": skillMd("lone"),
      "design/icon-sets/SKILL.md": skillMd("icon-sets"),
    });
    try {
      expect(issueAt(loadCatalog(tree.dir).issues, ".")).toBeUndefined();
    } finally {
      await tree.remove();
    }
  });

  it("refuses a folder with no valid skill", async () => {
    const tree = await makeTree({ "p/broken/SKILL.md": "no frontmatter", "p/readme.md": "x" });
    try {
      expect(() => loadCatalog(tree.dir)).toThrow(/No valid skill/);
    } finally {
      await tree.remove();
    }
  });
});

describe("SKILL.md files read before", () => {
  it("are taken as they were while their size and time hold, and read again once either changes", async () => {
    const tree = await makeTree({
      "alpha/one/SKILL.md": skillMd("one", "First."),
      "alpha/two/SKILL.md": skillMd("two", "Second."),
      "alpha/broken/SKILL.md": "no frontmatter",
    });
    try {
      const first = loadCatalog(tree.dir);
      const known = KnownDocuments.fromBytes(documentsToBytes(first.documents));
      expect(first.documents.map((reading) => reading.path).sort()).toEqual([
        "alpha/broken/SKILL.md",
        "alpha/one/SKILL.md",
        "alpha/two/SKILL.md",
      ]);
      const again = loadCatalog(tree.dir, { known });
      const described = (loaded: LoadedCatalog) =>
        loaded.catalog.everything.skills.map((skill) => `${skill.id}: ${skill.description}`);
      expect(described(again)).toEqual(described(first));
      expect(again.issues).toEqual(first.issues);
      // A file of another size is read anew, whatever was saved of it.
      await writeFile(path.join(tree.dir, "alpha/two/SKILL.md"), skillMd("two", "Second, and longer."));
      expect(described(loadCatalog(tree.dir, { known }))).toContain("alpha/two: Second, and longer.");
      // What was saved is what is served while the file keeps its size and time: proof that it is used.
      const forged = first.documents.map((reading) =>
        reading.path === "alpha/one/SKILL.md" && reading.parsed.ok
          ? { ...reading, parsed: { ...reading.parsed, description: "As saved." } }
          : reading,
      );
      const trusted = loadCatalog(tree.dir, { known: KnownDocuments.fromBytes(documentsToBytes(forged)) });
      expect(described(trusted)).toContain("alpha/one: As saved.");
    } finally {
      await tree.remove();
    }
  });

  it("are read anew when saved by another reading of frontmatters, as an index kept across an upgrade is", async () => {
    const tree = await makeTree({ "alpha/one/SKILL.md": skillMd("one", "First.") });
    try {
      const first = loadCatalog(tree.dir);
      const saved = JSON.parse(Buffer.from(documentsToBytes(first.documents)).toString("utf8")) as {
        format: number;
        rows: unknown[][];
      };
      const forged = (format: unknown) =>
        Buffer.from(
          JSON.stringify({
            format,
            rows: saved.rows.map((row) => row.map((cell) => (cell === "First." ? "Old." : cell))),
          }),
        );
      const described = (known: KnownDocuments) =>
        loadCatalog(tree.dir, { known }).catalog.everything.skills.map((skill) => skill.description);
      expect(described(KnownDocuments.fromBytes(forged(saved.format)))).toEqual(["Old."]);
      expect(described(KnownDocuments.fromBytes(forged(saved.format - 1)))).toEqual(["First."]);
      // Before formats were named, the rows alone were saved.
      const unnamed = Buffer.from(JSON.stringify(JSON.parse(forged(saved.format).toString("utf8")).rows));
      expect(KnownDocuments.fromBytes(unnamed).empty).toBe(true);
    } finally {
      await tree.remove();
    }
  });

  it("are ignored when the saved bytes are not such a record", async () => {
    const tree = await makeTree({ "alpha/one/SKILL.md": skillMd("one", "First.") });
    try {
      const known = KnownDocuments.fromBytes(Buffer.from("not json"));
      expect(known.empty).toBe(true);
      expect(loadCatalog(tree.dir, { known }).catalog.everything.skills).toHaveLength(1);
    } finally {
      await tree.remove();
    }
  });
});
