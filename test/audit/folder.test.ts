import { chmod, rm, truncate } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { CatalogAudit, type FolderAudit } from "../../src/audit/index.js";
import { loadCatalog } from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({
    "alpha/clean/SKILL.md": skillMd("clean", "Cleans."),
    "alpha/outer/SKILL.md": skillMd("outer", "Holds a nested skill."),
    "alpha/outer/inner/SKILL.md": skillMd("inner", "Nested.", "Say hi\u200Bthere.\n"),
    "alpha/outer/inner/run.sh": "#!/bin/sh\necho inner\n",
    "alpha/escaped/SKILL.md":
      '---\nname: escaped\ndescription: "Looks fine.\\U000E0049\\U000E0067"\n---\n# E\n',
    "alpha/shared/notes.md": "<!-- for maintainers -->\n",
    "alpha/.hidden/evil.md": "\u202E hidden and never served\n",
    "alpha/broken/SKILL.md": `no frontmatter ${"\u202E"}\n`,
    "sources.json": JSON.stringify({
      sources: [
        { name: "alpha", ref: "a".repeat(40), skipped: [{ path: "clean/link", reason: "dangling symlink" }] },
        { name: "gone", ref: "b".repeat(40), skipped: [{ path: "x", reason: "dangling symlink" }] },
      ],
    }),
  });
  await chmod(path.join(tree.dir, "alpha/outer/inner/run.sh"), 0o755);
});
afterAll(() => tree.remove());

/** The audit of `dir` as loaded, made by the inspection's reading of every served file. */
async function audited(dir: string): Promise<FolderAudit> {
  return (await inspectCatalog(loadCatalog(dir).catalog, { audit: {} })).audit;
}

describe("the audit of a catalog", () => {
  it("audits what the server serves, each file once, and the symlinks the fetcher skipped", async () => {
    const { issues: loadIssues } = loadCatalog(tree.dir);
    const { skills, findings, issues } = await audited(tree.dir);
    expect(skills).toBe(4);
    // What the catalog leaves out is not audited; the catalog says so.
    expect(loadIssues).toEqual([
      { severity: "skipped", path: "alpha/broken", reason: "no frontmatter (the file must start with ---)" },
    ]);
    expect(issues).toEqual([]);
    expect(findings.map((found) => [found.path, found.line, found.rule])).toEqual([
      ["alpha/clean/link", 0, "skipped-symlink"],
      ["alpha/escaped/SKILL.md", 3, "metadata-invisible-character"],
      ["alpha/outer/inner/SKILL.md", 6, "invisible-character"],
      ["alpha/outer/inner/run.sh", 0, "executable-file"],
      ["alpha/shared/notes.md", 1, "html-comment"],
    ]);
  });

  it("makes unsafe the skills of its high findings: the nested one and the one around it", async () => {
    const { catalog } = loadCatalog(tree.dir);
    for (const options of [{}, { audit: {} }]) {
      const { inspection } = await inspectCatalog(catalog, options);
      const unsafe = inspection
        .unsafe()
        .map(({ skill, findings: [found] }) => [skill.id, found?.path, found?.rule]);
      expect(unsafe).toEqual([
        ["alpha/escaped", "alpha/escaped/SKILL.md", "metadata-invisible-character"],
        ["alpha/inner", "alpha/outer/inner/SKILL.md", "invisible-character"],
        ["alpha/outer", "alpha/outer/inner/SKILL.md", "invisible-character"],
      ]);
    }
  });

  // Regression (issue 24): a served file that could not be read threw out of the audit, and one of any
  // size was read whole (a sparse file of gigabytes took its memory).
  it("says which files it did not audit and why, and audits the rest", async () => {
    const folder = await makeTree({
      "p/ok/SKILL.md": skillMd("ok", "Fine.", "Say hi\u200Bthere.\n"),
      "p/ok/gone.md": "removed after the load",
      "p/ok/huge.bin": "",
      "p/shared/big.bin": "",
    });
    try {
      await truncate(path.join(folder.dir, "p/ok/huge.bin"), 17 * 1024 * 1024);
      await truncate(path.join(folder.dir, "p/shared/big.bin"), 17 * 1024 * 1024);
      const { catalog, issues } = loadCatalog(folder.dir);
      expect(issues).toEqual([]);
      await rm(path.join(folder.dir, "p/ok/gone.md"));
      const audit = (await inspectCatalog(catalog, { audit: {} })).audit;
      expect(audit.findings.map((found) => [found.path, found.rule])).toEqual([
        ["p/ok/SKILL.md", "invisible-character"],
      ]);
      expect(audit.issues).toEqual([
        {
          severity: "warning",
          path: "p/ok/gone.md",
          reason: "not audited: cannot be read: it vanished while the catalog was loaded (ENOENT)",
        },
        {
          severity: "warning",
          path: "p/ok/huge.bin",
          reason: "not audited: larger than 16 MiB, the most the audit reads",
        },
        {
          severity: "warning",
          path: "p/shared/big.bin",
          reason: "not audited: larger than 16 MiB, the most the audit reads",
        },
      ]);
    } finally {
      await folder.remove();
    }
  });

  // Regression: each path a symlink led to one file was read and audited anew, so a skill of one text file
  // of 4 MiB and 64 links to it took a minute to start, and one of 20,000 links (as many as a skill may
  // hold) to a file of 16 MiB would have taken hours, on a few kilobytes of disk.
  it("audits a file once however many symlinks lead to it, and names each path in its findings", async () => {
    const links = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [`p/wide/links/${i}.md`, { symlink: "../notes.md" }]),
    );
    const folder = await makeTree({
      "p/wide/SKILL.md": skillMd("wide"),
      "p/wide/notes.md": "Looks harmless\u202E until it is rendered.\n",
      ...links,
    });
    try {
      const { catalog } = loadCatalog(folder.dir);
      const { audit, inspection } = await inspectCatalog(catalog, { audit: {} });
      const paths = audit.findings.map((found) => `${found.path}:${found.line}:${found.rule}`);
      expect(paths).toHaveLength(601);
      expect(new Set(paths)).toEqual(
        new Set([
          "p/wide/notes.md:1:bidi-control",
          ...Object.keys(links).map((link) => `${link}:1:bidi-control`),
        ]),
      );
      const [unsafe] = inspection.unsafe();
      expect(unsafe?.skill.id).toBe("p/wide");
      expect(unsafe?.count).toBe(601);
      // Regression: every path's copy of every high finding was kept, links × findings (4,000 links to a
      // file of 84 high findings: 336,000); the first few say why the skill is unsafe.
      expect(unsafe?.findings).toHaveLength(10);
      expect(new Set(unsafe?.findings.map((found) => found.path)).size).toBe(10);
    } finally {
      await folder.remove();
    }
  });

  it("takes the findings of a path whose real file it audited under another path, without auditing it again", () => {
    const audit = new CatalogAudit();
    const source = "1:42";
    const first = audit.file({ path: "p/s/notes.md", pack: "p" }, Buffer.from("a\u202Eb\n"), {}, source);
    // Other bytes under the same real file: a second audit would find nothing in them.
    const second = audit.file({ path: "p/s/link.md", pack: "p" }, Buffer.from("plain\n"), {}, source);
    expect(first.map((found) => [found.path, found.rule])).toEqual([["p/s/notes.md", "bidi-control"]]);
    // Regression: each path kept a copy of every finding, so memory grew as links × findings (4,000
    // links to a file of 252 findings: a million findings held at every start). One array now.
    expect(second).toBe(first);
    expect(audit.auditedAs({ path: "p/s/other.md", pack: "p" }, source)).toBe(first);
    expect(audit.auditedAs({ path: "p/s/new.md", pack: "p" }, "1:43")).toBeUndefined();
    // Named for each path in the result, as before.
    expect(audit.result(1, []).findings.map((found) => [found.path, found.rule])).toEqual([
      ["p/s/link.md", "bidi-control"],
      ["p/s/notes.md", "bidi-control"],
      ["p/s/other.md", "bidi-control"],
    ]);
  });

  // The repin review sees every file's bytes (onRead), and the fetcher copies each symlink's target as a
  // file of its own: 4,000 links to a file of 252 findings were each audited, a million findings made.
  it("audits copies of one content once when the reader names it, telling apart what the name decides", () => {
    const read: string[] = [];
    const audit = new CatalogAudit((served, bytes) => {
      read.push(served.path);
      return Buffer.from(bytes).toString("hex");
    });
    const bytes = Buffer.from("a\u202Eb\n<!-- hidden -->\n");
    const first = audit.file({ path: "p/s/notes.md", pack: "p" }, bytes, {}, "1:1");
    const copy = audit.file({ path: "p/s/copy.md", pack: "p" }, Buffer.from(bytes), {}, "1:2");
    // A name that reads otherwise (not Markdown: no html-comment) or another mode is audited for itself.
    const text = audit.file({ path: "p/s/notes.txt", pack: "p" }, Buffer.from(bytes), {}, "1:3");
    const run = audit.file(
      { path: "p/s/run.md", pack: "p" },
      Buffer.from(bytes),
      { executable: true },
      "1:4",
    );
    expect(read).toEqual(["p/s/notes.md", "p/s/copy.md", "p/s/notes.txt", "p/s/run.md"]);
    expect(copy).toBe(first);
    expect(first.map((found) => found.rule)).toEqual(["bidi-control", "html-comment"]);
    expect(text.map((found) => found.rule)).toEqual(["bidi-control"]);
    expect(run.map((found) => found.rule)).toEqual(["executable-file", "bidi-control", "html-comment"]);
    const result = audit.result(1, []);
    expect(result.inOrder.of("p/s/copy.md").map((found) => [found.path, found.rule])).toEqual([
      ["p/s/copy.md", "bidi-control"],
      ["p/s/copy.md", "html-comment"],
    ]);
    expect(result.inOrder.paths()).toEqual(["p/s/copy.md", "p/s/notes.md", "p/s/notes.txt", "p/s/run.md"]);
  });
});

// Only a skill's own `name` was read for look-alike letters: a pack or group folder named `d{U+043E}cs`
// (a Cyrillic о) was served as `d{U+043E}cs/pdf` beside `docs/pdf`, without a finding in the audit or the
// repin review.
describe("pack and group folders named in look-alike letters", () => {
  it("are a high finding each, once, that makes their skills unsafe", async () => {
    const folder = await makeTree({
      "docs/pdf/SKILL.md": skillMd("pdf"),
      "d\u043Ecs/pdf/SKILL.md": skillMd("pdf"),
      "d\u043Ecs/xlsx/SKILL.md": skillMd("xlsx"),
      // A group is found in any case: `Gr{U+0430}fana` reads as `grafana` too.
      "tools/Gr\u0430fana/alerts/SKILL.md": skillMd("alerts"),
      "tools/Gr\u0430fana/dashboards/SKILL.md": skillMd("dashboards"),
      // A letter passing for no Latin one, and accented Latin, read as no name of the naming rule.
      "tools/\u0440\u0435\u0434\u0430\u043A\u0442\u043E\u0440/edit/SKILL.md": skillMd("edit"),
      "tools/caf\u00E9/brew/SKILL.md": skillMd("brew"),
    });
    onTestFinished(() => folder.remove());
    const { audit, inspection } = await inspectCatalog(loadCatalog(folder.dir).catalog, { audit: {} });

    expect(audit.findings.map((found) => [found.path, found.line, found.rule, found.detail])).toEqual([
      [
        "d\u043Ecs",
        0,
        "metadata-look-alike-name",
        'pack name "d{U+043E}cs" reads as "docs": its letters outside ASCII pass for Latin ones',
      ],
      [
        "tools/Gr\u0430fana",
        0,
        "metadata-look-alike-name",
        'group name "Gr{U+0430}fana" reads as "grafana": its letters outside ASCII pass for Latin ones',
      ],
    ]);
    expect(inspection.unsafe().map(({ skill, findings: [found] }) => [skill.id, found?.path])).toEqual([
      ["tools/alerts", "tools/Gr\u0430fana"],
      ["tools/dashboards", "tools/Gr\u0430fana"],
      ["d\u043Ecs/pdf", "d\u043Ecs"],
      ["d\u043Ecs/xlsx", "d\u043Ecs"],
    ]);
  });
});
