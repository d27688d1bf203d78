import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { countBySeverity, findingsTable, ruleCounts } from "../../scripts/audit-markdown.js";
import { loadCatalog } from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { MAX_READ_BYTES } from "../../src/mcp/index.js";
import { builtScript } from "../helpers/built-scripts.js";
import { PNG_BYTES } from "../helpers/fixtures.js";
import { linksToManyFindings } from "../helpers/many-findings.js";
import { ROOT, runBuiltScript } from "../helpers/process.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";
import { makeUnreadableFolder } from "../helpers/unreadable-folder.js";

const run = promisify(execFile);
/** As `npm run check-skills` runs it, from source: the first test's way. */
const TSX = ["--import", "tsx", "scripts/check-skills.ts"];
/**
 * Its bundle, built from the same sources before the tests (test/helpers/built-scripts.ts), for the other
 * tests: a process under tsx took 2.1 s of CPU on the bundled examples, its bundle 0.6 s.
 */
const BUILT = [builtScript("scripts/check-skills.ts")];

describe("npm run check-skills", () => {
  it("reports what the server would serve and leave out, as Markdown", async () => {
    const tree = await makeTree({
      "alpha/good/SKILL.md": skillMd("good"),
      "alpha/other/SKILL.md": skillMd("renamed"),
      "alpha/broken/SKILL.md": "no frontmatter",
      "beta/tools/drill/SKILL.md": skillMd("drill"),
      "beta/clockify/SKILL.md": skillMd("Clockify Automation"),
      "beta/tools/chisel/SKILL.md":
        "---\nname: chisel\ndescription: Carve.\ndisable-model-invocation: true\n---\n",
    });
    try {
      const { stdout } = await run(process.execPath, [...TSX, tree.dir], { cwd: ROOT });
      expect(stdout).toBe(
        [
          "### Catalog check",
          "",
          "5 skills in 2 packs (alpha 2, beta 3); 1 left out, 3 warnings.",
          "",
          "- left out: `alpha/broken`: no frontmatter (the file must start with ---)",
          '- warning: `alpha/other`: name "renamed" differs from its folder',
          '- warning: `beta/clockify`: name "Clockify Automation" must be lowercase letters, digits and single hyphens',
          '- warning: `beta/clockify`: name "Clockify Automation" differs from its folder',
          "",
          "The Skills extension carries 4; 1 only the tools serve.",
          "",
          '- tools only: `beta/Clockify Automation`: frontmatter name "Clockify Automation" must be 1-64 lowercase letters, digits and single hyphens',
          "",
          "Invocation flags: 1 disable model invocation (no listing, search or preview names them to a model; read_skill reads them by name), 0 are not user-invocable (no prompt).",
          "",
          "### Audit",
          "",
          "5 skills: none found ([rules](docs/audit.md)).",
          "",
        ].join("\n"),
      );
    } finally {
      await tree.remove();
    }
  });

  // The weekly repin appends this output to the pull request body: an upstream name that ended the code
  // span or opened an HTML comment rewrote what the reviewer saw.
  it("shows upstream names and the reasons quoting them as text, never as Markdown or HTML", async () => {
    const tree = await makeTree({
      "p/evil/SKILL.md": skillMd('"a/b\\n\\n**Approve.**\\n\\n<!--"'),
      "p/x`<img src=x>/SKILL.md": skillMd("nope"),
      "p/shout/SKILL.md": skillMd("Shout <img src=x>"),
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      const lines = stdout.split("\n");
      expect(lines).toEqual(
        expect.arrayContaining([
          '- left out: `p/evil`: name "a/b{U+000A}{U+000A}\\*\\*Approve.\\*\\*{U+000A}{U+000A}\\<\\!--" holds a slash: skills are named pack/name, so a name cannot hold one',
          // A name Windows refuses (`<`, `>`) is not served: its folder is left out, the reason escaped too.
          '- left out: ``p/x`<img src=x>``: its name is not one every system can hold (a name holds "\\<"), so skills-mcp sync could not write it',
          '- tools only: `p/Shout <img src=x>`: frontmatter name "Shout \\<img src=x\\>" must be 1-64 lowercase letters, digits and single hyphens',
        ]),
      );
      expect(stdout).not.toContain("<!--");
      expect(stdout).not.toMatch(/^\*\*Approve/m);
    } finally {
      await tree.remove();
    }
  });

  it("counts and lists a skill the extension leaves out for a file larger than a read carries", async () => {
    const tree = await makeTree({
      "p/huge/SKILL.md": skillMd("huge"),
      "p/huge/data.txt": "a".repeat(MAX_READ_BYTES + 1),
      "p/ok/SKILL.md": skillMd("ok"),
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      // As the server's /health says: skillsExtension {"skills":1,"leftOut":1}.
      expect(stdout).toContain("The Skills extension carries 1; 1 only the tools serve.");
      expect(stdout).toContain(
        "- tools only: `p/huge`: `skill://p/huge/data.txt` is 8.0 MiB, over the 8.0 MiB a resource read carries",
      );
    } finally {
      await tree.remove();
    }
  });

  // Regression: `updated: 2024-01-15` or `beta: on` read as text here and in the Skills extension's entry,
  // and as a date or a boolean to hosts reading SKILL.md with a YAML 1.1 parser (PyYAML), unannounced.
  it("warns of each unquoted frontmatter key or value a YAML 1.1 reader reads otherwise, with the fix", async () => {
    const tree = await makeTree({
      "p/dated/SKILL.md": "---\nname: dated\ndescription: Dated.\nmetadata:\n  updated: 2024-01-15\n---\n",
      "p/top/SKILL.md": "---\nname: top\ndescription: Top.\nbeta: on\n---\n",
      "p/plain/SKILL.md": '---\nname: plain\ndescription: Plain.\nbeta: "on"\n---\n',
      "p/keyed/SKILL.md": "---\nname: keyed\ndescription: Keyed.\nmetadata:\n  on: push\n---\n",
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      expect(stdout).toContain("4 skills in 1 pack (p 4); 0 left out, 3 warnings.");
      const warnings = stdout.split("\n").filter((line) => line.startsWith("- warning:"));
      expect(warnings).toEqual([
        '- warning: `p/dated/SKILL.md`: frontmatter "metadata.updated": 2024-01-15 is a date to PyYAML and other YAML 1.1 parsers but text to this server (YAML 1.2), so hosts read it differently: quote it ("2024-01-15")',
        '- warning: `p/keyed/SKILL.md`: frontmatter "metadata.on": the key on is the boolean true to PyYAML and other YAML 1.1 parsers but text to this server (YAML 1.2), so hosts read it differently: quote it ("on")',
        '- warning: `p/top/SKILL.md`: frontmatter "beta": on is the boolean true to PyYAML and other YAML 1.1 parsers but text to this server (YAML 1.2), so hosts read it differently: quote it ("on"), or write true or false if a boolean is meant',
      ]);
    } finally {
      await tree.remove();
    }
  });

  // Regression: a key of 513 to 1,024 emoji, which PyYAML, js-yaml and the Skills extension read, was reported
  // left out as "not valid YAML": the YAML parser counted its UTF-16 units against YAML's 1,024 characters.
  it("serves a frontmatter key of 1,024 emoji and checks the rest of its frontmatter; a longer one is left out, saying so", async () => {
    const keyed = (name: string, emoji: number) =>
      `---\nname: ${name}\ndescription: Keyed.\n${"😀".repeat(emoji)}: v\nbeta: on\n---\n`;
    const tree = await makeTree({
      "p/long-key/SKILL.md": keyed("long-key", 1024),
      "p/longer-key/SKILL.md": keyed("longer-key", 1025),
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      const lines = stdout.split("\n");
      expect(lines.filter((line) => line.startsWith("- "))).toEqual([
        '- left out: `p/longer-key`: frontmatter is not valid YAML: the key at line 4 is 1,025 characters long, and YAML reads a key of at most 1,024 (to its ":"), as PyYAML does: shorten it',
        '- warning: `p/long-key/SKILL.md`: frontmatter "beta": on is the boolean true to PyYAML and other YAML 1.1 parsers but text to this server (YAML 1.2), so hosts read it differently: quote it ("on"), or write true or false if a boolean is meant',
      ]);
      expect(lines).toContain("The Skills extension carries 1; 0 only the tools serve.");
    } finally {
      await tree.remove();
    }
  });

  // Regression: a folded description of "start", 10,000 blank lines and "end" is 10,009 characters to YAML
  // and the extension, which left the skill out saying only "must be 1-1024 characters", while the catalog,
  // joining whitespace, saw 9 and warned of nothing.
  it("says why the extension leaves out a description that blank lines make longer than 1,024", async () => {
    const tree = await makeTree({
      "p/blank/SKILL.md": `---\nname: blank\ndescription: >\n  start\n${"\n".repeat(10_000)}  end\n---\n`,
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      const lines = stdout.split("\n");
      expect(lines.filter((line) => line.startsWith("- "))).toEqual([
        "- warning: `p/blank`: description is 10,009 characters as YAML reads it, its line breaks counted (each blank line in a \\> or | block is one, and so is the end of the block unless written \\>- or |-), over the Agent Skills limit of 1,024: the Skills extension leaves the skill out, while listings here, which join runs of whitespace, carry its 9: remove the blank lines (or write \\>-)",
        "- tools only: `p/blank`: frontmatter description must be 1-1024 characters",
      ]);
    } finally {
      await tree.remove();
    }
  });

  // Regression: a key over 1,024 characters inside { }, which YAML allows there and the server reads, made
  // PyYAML refuse the whole frontmatter, and nothing said so.
  it("warns of a key inside { } that PyYAML refuses the whole frontmatter for", async () => {
    const tree = await makeTree({
      "p/flow-key/SKILL.md": `---\nname: flow-key\ndescription: Keyed.\nmetadata: {${"k".repeat(1100)}: v}\n---\n`,
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      const lines = stdout.split("\n");
      expect(lines.filter((line) => line.startsWith("- "))).toEqual([
        `- warning: \`p/flow-key/SKILL.md\`: frontmatter line 4: the key "${"k".repeat(64)}…" inside { } is 1,100 characters long to its ":": PyYAML refuses the whole frontmatter for it (it reads no key written without "? " longer than 1,024), where this server reads it: shorten it`,
      ]);
      expect(lines).toContain("The Skills extension carries 1; 0 only the tools serve.");
    } finally {
      await tree.remove();
    }
  });

  // Regression: the tools served a frontmatter closed by "...", which the extension left out as having "no
  // closing \"---\" line", and only that general line said so.
  it("leaves out a frontmatter closed by ..., saying to close it with ---, as the extension does", async () => {
    const tree = await makeTree({
      "p/dots/SKILL.md": "---\nname: dots\ndescription: Dots.\n...\n# Dots\n",
      "p/good/SKILL.md": skillMd("good"),
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      const lines = stdout.split("\n");
      expect(lines.filter((line) => line.startsWith("- "))).toEqual([
        '- left out: `p/dots`: frontmatter ends at a "..." line (YAML\'s document end), which Claude, the Agent Skills format and the Skills extension do not read as its end: close the frontmatter with a --- line',
      ]);
      expect(lines).toContain("The Skills extension carries 1; 0 only the tools serve.");
    } finally {
      await tree.remove();
    }
  });

  it("prints the audit, and how many skills the server leaves out for a high finding", async () => {
    const tree = await makeTree({
      "alpha/hidden/SKILL.md": skillMd("hidden", "Hides.", "Be nice.\u202E\n"),
      "alpha/plain/SKILL.md": skillMd("plain", "Plain.", "<!-- a note -->\n"),
      "alpha/plain/logo.png": PNG_BYTES,
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      // Counted as the server serves them, as /health counts them: without the skill left out as unsafe.
      expect(stdout).toContain(
        "1 skill in 1 pack (alpha 1); 0 left out, 0 warnings; 1 unsafe skill left out (Audit, below).",
      );
      expect(stdout).toContain("The Skills extension carries 1; 0 only the tools serve.");
      expect(stdout.slice(stdout.indexOf("### Audit"))).toBe(
        [
          "### Audit",
          "",
          "2 skills: 1 high, 1 medium, 1 low found ([rules](docs/audit.md)).",
          "",
          "A high finding makes 1 skill unsafe; the server leaves it out (UNSAFE_SKILLS=serve would serve it): `alpha/hidden`.",
          "",
          "| Severity | Where | Rule | Detail |",
          "|---|---|---|---|",
          "| high | `alpha/hidden/SKILL.md:6` | bidi-control | U+202E RIGHT-TO-LEFT OVERRIDE |",
          '| medium | `alpha/plain/SKILL.md:6` | html-comment | hidden from the rendered view: "a note" |',
          "",
          "Low findings by rule:",
          "",
          "- low `binary-file` (a binary file): 1",
          "",
        ].join("\n"),
      );
      const served = await run(process.execPath, [...BUILT, tree.dir], {
        cwd: ROOT,
        env: { ...process.env, UNSAFE_SKILLS: "serve" },
      });
      expect(served.stdout).toContain(
        "A high finding makes 1 skill unsafe; UNSAFE_SKILLS=serve serves it all the same, with a warning: `alpha/hidden`.",
      );
      expect(served.stdout).toContain("2 skills in 1 pack (alpha 2); 0 left out, 0 warnings.\n");
      expect(served.stdout).toContain("The Skills extension carries 2; 0 only the tools serve.");
    } finally {
      await tree.remove();
    }
  });

  // Regression: the audit's findings were made whole, links × findings of the file the links lead to
  // (4,000 links to a file of 252 findings: a million findings), for a table of 30 and counts. Now they
  // are gone through a path at a time, in a heap that the whole list of 1,200 links overflows.
  it("prints the audit of thousands of links to one file in bounded memory, as of the whole list", async () => {
    const folder = await linksToManyFindings(20, 600, {
      "p/plain/SKILL.md": skillMd("plain"),
      "p/plain/logo.png": PNG_BYTES,
    });
    try {
      const { inOrder } = (await inspectCatalog(loadCatalog(folder.dir).catalog, { audit: {} })).audit;
      const findings = [...inOrder];
      // Every path to the file has its findings: its own, 600 symlinks and 600 hard links.
      expect(findings.filter((found) => found.rule === "bidi-control")).toHaveLength(1_201 * 20);
      const { stdout } = await run(process.execPath, ["--max-old-space-size=32", ...BUILT, folder.dir], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: "" },
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(stdout).toContain(`2 skills: ${countBySeverity(findings)} found ([rules](docs/audit.md)).\n`);
      const worth = findings.filter((found) => found.severity !== "low");
      expect(stdout.slice(stdout.indexOf("| Severity |"))).toBe(
        [
          ...findingsTable(worth, 30),
          "",
          "Low findings by rule:",
          "",
          ...ruleCounts(findings, "low"),
          "",
        ].join("\n"),
      );
    } finally {
      await folder.remove();
    }
  }, 120_000);

  // Regression (issue 24): a file name that is not UTF-8, an unreadable file, folder or SKILL.md, and
  // folders nested past PATH_MAX each stopped check-skills with a stack trace.
  it("names what it cannot read and serves the rest", async () => {
    const folder = await makeUnreadableFolder();
    try {
      const result = await runBuiltScript("scripts/check-skills.ts", [folder.dir], ROOT, folder.user);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      const lines = result.stdout.split("\n");
      expect(lines[2]).toBe("1 skill in 1 pack (p 1); 5 left out, 0 warnings.");
      expect(lines).toEqual(
        expect.arrayContaining([
          "- left out: `p/ok/caf\\xe9.txt`: its name is not UTF-8, so no client could ask for it",
          "- left out: `p/closed`: SKILL.md cannot be read: permission denied (EACCES)",
          "- left out: `p/ok/locked`: folder cannot be read: permission denied (EACCES)",
          "- left out: `p/ok/secret.md`: cannot be read: permission denied (EACCES)",
          "The Skills extension carries 1; 0 only the tools serve.",
          "1 skill: none found ([rules](docs/audit.md)).",
        ]),
      );
      expect(result.stdout).toMatch(
        /- left out: `p\/ok\/deep\/(d+\/)+d+`: folder cannot be read: its path is longer than the system allows \(ENAMETOOLONG\)/,
      );
    } finally {
      folder.remove();
    }
  });

  // The weekly repin appends this output to the pull request body, which GitHub cuts at 65,536 characters:
  // a bump that broke a few thousand files pushed the audit below out of the body.
  it("lists at most 30 skills or files left out, then counts the rest, and still prints the audit", async () => {
    const broken = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`p/b${i}/SKILL.md`, "no frontmatter"]),
    );
    const tree = await makeTree({ ...broken, "p/ok/SKILL.md": skillMd("ok") });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      expect(stdout).toContain("1 skill in 1 pack (p 1); 2000 left out, 0 warnings.");
      expect(stdout.split("\n").filter((line) => line.startsWith("- left out: "))).toHaveLength(30);
      expect(stdout).toContain("- … and 1970 more (`npm run audit-skills` names each on stderr)");
      expect(stdout).toContain("### Audit");
      expect(stdout.length).toBeLessThan(5000);
    } finally {
      await tree.remove();
    }
  });

  // It added "SKILLS_DIR is a relative path, read from the working folder …, which a client that starts the
  // server chooses; give an absolute path": words for a server's setting, not for the folder given here.
  it("names a relative folder that does not exist by its full path alone", async () => {
    const empty = await makeTree({});
    try {
      const failure = await runBuiltScript("scripts/check-skills.ts", ["nope"], empty.dir);
      expect(failure).toMatchObject({
        code: 1,
        stderr: `check-skills: the server would refuse to start: Skills folder ${path.join(empty.dir, "nope")} does not exist or is not a folder\n`,
      });
    } finally {
      await empty.remove();
    }
  });

  it("says there is nothing to check, not that the server would refuse, when ./skills is missing", async () => {
    const empty = await makeTree({});
    try {
      const failure = await runBuiltScript("scripts/check-skills.ts", [], empty.dir);
      expect(failure).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /^check-skills: there is no \.\/skills to check: `npm run fetch-skills`/,
        ),
      });
    } finally {
      await empty.remove();
    }
  });

  // `check-skills --help` read "--help" as the folder to check and said the server would refuse to start
  // because no folder "--help" exists; a second folder was ignored without a word.
  it("prints its usage for --help, and refuses an unknown option or a second folder with exit 2", async () => {
    const help = await runBuiltScript("scripts/check-skills.ts", ["--help"]);
    expect(help).toMatchObject({
      code: 0,
      stderr: "",
      stdout: expect.stringMatching(/^Usage: npm run check-skills -- \[folder\]\n/),
    });
    // The usage named exit 1 alone, as the README did not.
    expect(help.stdout).toContain("2 when the command line is wrong");
    // A second folder hid the usage that fixes it (exit 2), where the server, sync and tokens print it.
    const helpFirst = await runBuiltScript("scripts/check-skills.ts", ["--help", "a", "b"]);
    expect(helpFirst).toMatchObject({ code: 0, stderr: "", stdout: help.stdout });
    const option = await runBuiltScript("scripts/check-skills.ts", ["--json"]);
    expect(option).toMatchObject({
      code: 2,
      stdout: "",
      // Node's own text said to place a positional after `--`, not which options there are.
      stderr: expect.stringMatching(/^check-skills: unknown option --json; valid: --help \(-h\)\n/),
    });
    expect(option.stderr).toContain("Usage: npm run check-skills -- [folder]");
    const two = await runBuiltScript("scripts/check-skills.ts", ["examples/skills", "skills"]);
    expect(two).toMatchObject({
      code: 2,
      stdout: "",
      stderr: expect.stringMatching(/^check-skills: one folder at most \(got 2\)\n\n/),
    });
    // Every wrong command line is followed by the usage, as an unknown option is.
    expect(two.stderr).toContain("Usage: npm run check-skills -- [folder]");
  });

  // Regression: with no skill to serve, check-skills printed only the refusal, which names the first three
  // skills left out: an author fixing those found the fourth on the next run.
  it("lists every skill left out when the server would refuse to start", async () => {
    const tree = await makeTree({
      "p/a/SKILL.md": "no frontmatter",
      "p/b/SKILL.md": "---\n- a list\n---\n",
      "p/c/SKILL.md": "---\nname: c\n---\n",
      "p/d/SKILL.md": "---\nname: d\ndescription: 42\n---\n",
    });
    try {
      const failure = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT }).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining("would refuse to start") });
      expect((failure as { stdout: string }).stdout).toBe(
        [
          "### Catalog check",
          "",
          "No skill to serve; 4 left out, 1 pack with no valid skill, 0 warnings.",
          "",
          "- left out: `p/a`: no frontmatter (the file must start with ---)",
          "- left out: `p/b`: frontmatter is a YAML list, not a YAML mapping: write it as key: value lines (name: …, description: …)",
          "- left out: `p/c`: frontmatter has no description",
          '- left out: `p/d`: frontmatter description is a number, not a string: put it in quotes (description: "…")',
          "- left out: `p`: pack folder holds no valid skill",
          "",
        ].join("\n"),
      );
    } finally {
      await tree.remove();
    }
  });

  // Regression: a pack whose two skills were both broken read as "3 left out", the pack counted as a third.
  it("counts a pack with no valid skill apart from the skills left out", async () => {
    const tree = await makeTree({
      "good/ok/SKILL.md": skillMd("ok"),
      "broken/a/SKILL.md": "no frontmatter",
      "broken/b/SKILL.md": "---\nname: b\n---\n",
      "empty/notes.txt": "no skill here",
    });
    try {
      const { stdout } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT });
      expect(stdout.split("\n").slice(2, 8)).toEqual([
        "1 skill in 1 pack (good 1); 2 left out, 2 packs with no valid skill, 0 warnings.",
        "",
        "- left out: `broken/a`: no frontmatter (the file must start with ---)",
        "- left out: `broken/b`: frontmatter has no description",
        "- left out: `broken`: pack folder holds no valid skill",
        "- left out: `empty`: pack folder holds no valid skill",
      ]);
    } finally {
      await tree.remove();
    }
  });

  // PORT=abc, left in the shell for a server, made check-skills say the server would refuse to start,
  // though it serves nothing and the folder was fine.
  it("checks the folder whatever the HTTP settings hold, warning of each invalid one it ignores and of a slip", async () => {
    const tree = await makeTree({ "alpha/good/SKILL.md": skillMd("good") });
    try {
      // SKILL_PACK, a slip, checked every pack unannounced.
      const env = {
        ...process.env,
        PORT: "abc",
        API_KEYS_FILE: "/nowhere/keys",
        LOG_LEVEL: "loud",
        SKILL_PACK: "n8n",
      };
      const { stdout, stderr } = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT, env });
      expect(stdout).toMatch(
        /^### Catalog check\n\n1 skill in 1 pack \(alpha 1\); 0 left out, 0 warnings\.\n/,
      );
      expect(stderr.split("\n")).toEqual([
        "check-skills: warning: SKILL_PACK is not a setting, and is ignored: did you mean SKILL_PACKS?",
        'check-skills: warning: PORT "abc" is not a port number (0-65535); ignored: check-skills reads only SKILLS_DIR, SKILL_PACKS and UNSAFE_SKILLS',
        'check-skills: warning: LOG_LEVEL "loud" is not one of fatal, error, warn, info, debug, trace, silent; ignored: check-skills reads only SKILLS_DIR, SKILL_PACKS and UNSAFE_SKILLS',
        expect.stringMatching(
          /^check-skills: warning: API_KEYS_FILE .*; ignored: check-skills reads only SKILLS_DIR, SKILL_PACKS and UNSAFE_SKILLS$/,
        ),
        "",
      ]);
      // A setting it reads is still checked.
      const failure = await run(process.execPath, [...BUILT, tree.dir], {
        cwd: ROOT,
        env: { ...env, UNSAFE_SKILLS: "maybe" },
      }).catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('would refuse to start: UNSAFE_SKILLS "maybe" is not one of'),
      });
    } finally {
      await tree.remove();
    }
  });

  it("exits 1 with the reason when the server would refuse to start", async () => {
    // The reason names the first skills left out: a newline in a folder name started a line of the CI
    // log of its own (a GitHub workflow command).
    const tree = await makeTree({ "alpha/broken\n::error::All clear/SKILL.md": "no frontmatter" });
    try {
      const failure = await run(process.execPath, [...BUILT, tree.dir], { cwd: ROOT }).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({
        code: 1,
        stderr: expect.stringContaining("would refuse to start: No valid skill"),
      });
      expect((failure as { stderr: string }).stderr).toContain(
        "; alpha/broken{U+000A}::error::All clear: its name holds a character no reader sees",
      );
    } finally {
      await tree.remove();
    }
  });
});
