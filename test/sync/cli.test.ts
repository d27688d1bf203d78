/**
 * `skills-mcp sync` as a user runs it: options, exit status, what goes to stdout and stderr, the client
 * presets, and the scope options sent as a client would send them.
 */
import { execFile } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import {
  ListSkillsRequestParamsSchema,
  SKILLS_EXTENSION_ID,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/core/ext/skills";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../../src/catalog/index.js";
import { loadConfig } from "../../src/config/index.js";
import { DISK_FILES } from "../../src/startup/config.js";
import type { SyncIo } from "../../src/sync/cli.js";
import { runSyncCli } from "../../src/sync/index.js";
import { LOCK_FILE } from "../../src/sync/lock.js";
import { progressOn } from "../../src/sync/progress.js";
import { RUN_LOCK_FILE, takeRunLock } from "../../src/sync/run-lock.js";
import { STAGING_DIR } from "../../src/sync/staging.js";
import { MAIN } from "../helpers/process.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { readTree, type Served, serveCatalog, serveMcp, tempFolder } from "./helpers.js";

const KEY = "sync-test-key-0123456789";
const execFileAsync = promisify(execFile);

let root: Awaited<ReturnType<typeof tempFolder>>;
let open: Served;
let locked: Served;
beforeAll(async () => {
  root = await tempFolder();
  const skills = path.join(root.dir, "skills");
  await writeTree(skills, {
    "team/review-code/SKILL.md": skillMd("review-code", "Review code changes."),
    "ops/deploy-app/SKILL.md": skillMd("deploy-app", "Deploy the application."),
  });
  open = await serveCatalog(skills);
  locked = await serveCatalog(skills, 0, { API_KEYS: KEY });
});
afterAll(async () => {
  await open.close();
  await locked.close();
  await root.remove();
});

let work: string;
beforeEach(async () => {
  work = path.join(root.dir, `run-${Math.random().toString(36).slice(2)}`);
  await mkdir(work);
});

/** Runs the command line in `work` (also the home folder), capturing what it prints. */
function run(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return runWithHome(path.join(work, "home"), ...argv);
}

async function runWithHome(
  home: string,
  ...argv: string[]
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: SyncIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: work,
    home,
  };
  const status = await runSyncCli(argv, io);
  return { status, stdout, stderr };
}

describe("the command line", () => {
  it("prints its help on --help", async () => {
    const { status, stdout } = await run("--help");
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: skills-mcp sync <server URL>/);
    expect(stdout).toContain("--client NAME");
    // A longer --wait is refused: the help said so only once it was.
    expect(stdout).toContain("(default 60; 0 fails at once; at most 86400, a day)");
  });

  it.each([
    [[], /give the server's MCP URL/],
    [["http://127.0.0.1:1/mcp"], /say where to install: --to <folder> or --client <name>/],
    [["ftp://example.com/mcp", "--to", "x"], /is not an http or https URL/],
    [["not a url", "--to", "x"], /is not a URL/],
    [["http://a/mcp", "http://b/mcp", "--to", "x"], /one server URL only/],
    [["http://a/mcp", "--to", "x", "--client", "claude"], /--to and --client: choose one/],
    [
      ["http://a/mcp", "--client", "cursor"],
      /--client "cursor" is not one of claude, codex, copilot, agents/,
    ],
    // It said only "--client needs a value", not which.
    [
      ["http://a/mcp", "--client"],
      /^skills-mcp sync: --client needs a value \(one of claude, codex, copilot, agents\)$/m,
    ],
    [["http://a/mcp", "--to", "x", "--project"], /--project goes with --client/],
    [["http://a/mcp", "--to", "x", "--header", "no colon"], /is not NAME: VALUE/],
    [["http://a/mcp", "--to", "x", "--header", ": v"], /is not NAME: VALUE/],
    // It said "is not NAME: VALUE" of a header that is, but for a character its name cannot hold.
    [
      ["http://a/mcp", "--to", "x", "--header", "X-Tëam: blue"],
      /^skills-mcp sync: --header "X-Tëam: blue": a header name cannot hold "ë" \(only ASCII letters/m,
    ],
    [
      ["http://a/mcp", "--to", "x", "--pack", "a", "--header", "X-Skill-Pack: b"],
      /--pack and --header X-Skill-Pack/,
    ],
    [["http://a/mcp", "--to", "x", "--dry-run", "--check"], /--dry-run and --check: choose one/],
    [["http://a/mcp", "--to", "x", "--wait", "1m"], /--wait "1m" is not a whole number ≥ 0/],
    [["http://a/mcp", "--to", "x", "--wait=-1"], /--wait "-1" is not a whole number ≥ 0/],
    [["http://a/mcp", "--to", "x", "--wait", "1e3"], /--wait "1e3" is not a whole number ≥ 0/],
    [
      ["http://a/mcp", "--to", "x", "--wait", "86401"],
      /--wait "86401" is more than a day: give at most 86400 seconds/,
    ],
    // parseArgs kept the last without a word: an alias's --to and the user's own synced into the second.
    [
      ["http://a/mcp", "--to", "from-alias", "--to", "mine"],
      /^skills-mcp sync: --to is given twice \("from-alias", then "mine"\): give it once$/m,
    ],
    [["http://a/mcp", "--client", "claude", "--client=codex"], /--client is given twice/],
    [["http://a/mcp", "--to", "x", "--wait", "5", "--wait", "0"], /--wait is given twice \("5", then "0"\)/],
    // A blank --pack (an unset variable in a script) synced every pack the server serves.
    [["http://a/mcp", "--to", "x", "--pack", ""], /--pack needs a selector/],
    [["http://a/mcp", "--to", "x", "--pack", " , "], /--pack needs a selector/],
    // Node's own text said to place a positional after `--`, not which options there are.
    [
      ["http://a/mcp", "--to", "x", "--frobnicate"],
      /^skills-mcp sync: unknown option --frobnicate; valid: --to, --client, .*--help \(-h\)$/m,
    ],
  ])("refuses %j with one line, then the usage", async (argv, message) => {
    const { status, stdout, stderr } = await run(...argv);
    expect(status).toBe(2);
    expect(stdout).toBe("");
    const [first] = stderr.split("\n");
    expect(first).toMatch(/^skills-mcp sync: /);
    expect(first).toMatch(message);
    expect(stderr).toContain("Usage: skills-mcp sync");
    expect(await readdir(work)).toEqual([]);
  });

  // A value given was put back raw: an escape recoloured the terminal, a line break split the message in two,
  // and a long value buried the rest.
  const hostile = `red\u001b[31m\nnext${"x".repeat(300)}`;
  it.each([
    ["the URL", [hostile, "--to", "x"], 'skills-mcp sync: "red{U+001B}[31m{U+000A}nextxxx'],
    ["a second URL", ["http://a/mcp", hostile, "--to", "x"], 'also given: "red{U+001B}[31m{U+000A}next'],
    ["--client", ["http://a/mcp", "--client", hostile], '--client "red{U+001B}[31m{U+000A}next'],
    ["--header", ["http://a/mcp", "--to", "x", "--header", hostile], '--header "red{U+001B}[31m{U+000A}next'],
    [
      "a header's name",
      ["http://a/mcp", "--to", "x", "--header", `X${hostile}: v`],
      'a header name cannot hold "{U+001B}"',
    ],
    [
      "an option",
      ["http://a/mcp", "--to", "x", `--${hostile}`],
      'unknown option "--red{U+001B}[31m{U+000A}next',
    ],
    [
      "--api-key-file",
      ["http://a/mcp", "--to", "x", "--api-key-file", hostile],
      "red{U+001B}[31m{U+000A}next",
    ],
  ])("quotes %s back escaped and on one line", async (_, argv, said) => {
    const { status, stderr } = await run(...argv);
    expect(status).toBe(2);
    const [first = ""] = stderr.split("\n");
    expect(first).toContain(said);
    expect(first).not.toContain("\u001b");
    // Cut to its first 100 characters, but a path, which is shown whole.
    if (!argv.includes("--api-key-file")) expect(first).toContain('xxx…"');
  });

  // The usage says nothing of a file's contents or of HOME: it buried the one line that does.
  it.each([
    // Each said only "cannot be read (ENOENT)", or EISDIR: not what is wrong, nor what the option takes.
    [
      ["--api-key-file", "missing.txt"],
      /--api-key-file \S+missing\.txt cannot be read: there is no such file \(ENOENT\)\n$/,
    ],
    [["--api-key-file", "."], /--api-key-file \S+ cannot be read: it is a folder \(EISDIR\); give a file\n$/],
    [
      ["--api-key-file", "/dev/null"],
      /--api-key-file \/dev\/null holds no key: every line is blank or a # comment; put the key on a line of its own\n$/,
    ],
  ])("refuses %j with one line, without the usage", async (argv, message) => {
    const { status, stdout, stderr } = await run("http://a/mcp", "--to", "x", ...argv);
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^skills-mcp sync: [^\n]*\n$/);
    expect(stderr).toMatch(message);
    expect(await readdir(work)).toEqual([]);
  });
});

it("takes an option given twice with the same value, as once", async () => {
  const { status, stderr } = await run(open.url, "--to", "x", "--to=x", "--dry-run");
  expect(stderr).toContain(`skills-mcp sync: dry run, nothing changed: 2 to add`);
  expect(status).toBe(0);
});

// fetch refused the URL only once connecting, in an error quoting it whole, password and all, on the line a CI
// log keeps; the lock file would have recorded it too.
it("refuses a server URL holding a user and password, without showing the password", async () => {
  const withPassword = new URL(open.url);
  withPassword.username = "deploy";
  withPassword.password = "hunter2-secret";
  const { status, stdout, stderr } = await run(withPassword.href, "--to", "x");
  expect(status).toBe(2);
  expect(stdout).toBe("");
  expect(stderr.split("\n")[0]).toBe(
    `skills-mcp sync: the server URL holds a user name or password ("${open.url}" without them), which sync does not send: give the key with --api-key-file FILE, or --header "Authorization: …"`,
  );
  expect(stderr).not.toContain("hunter2");
  expect(stderr).toContain("Usage: skills-mcp sync");
  expect(await readdir(work)).toEqual([]);
});

// Each was replaced by the MCP connection's own without a word (a sync "with" `Accept: text/html` ran as any
// other), or failed every request: `Content-Length: 3` ended in "fetch failed: invalid content-length header".
it.each([
  "Accept: text/html",
  "Content-Type: text/plain",
  "content-length: 3",
  "MCP-Protocol-Version: 2024-11-05",
  "Mcp-Session-Id: abc",
])("refuses --header %j, which the MCP connection sets itself", async (header) => {
  const { status, stdout, stderr } = await run(open.url, "--to", "x", "--header", header);
  const name = header.split(":", 1)[0];
  expect(status).toBe(2);
  expect(stdout).toBe("");
  expect(stderr.split("\n")[0]).toBe(
    `skills-mcp sync: --header ${name}: sync's MCP connection sets this header itself for each request, so the value given would not be sent (or would break the request); leave it out`,
  );
  expect(await readdir(work)).toEqual([]);
});

// The help named "Mcp-*" as refused, where Mcp-Foo is sent and only the MCP connection's own are refused, and
// left out Connection, Transfer-Encoding and Last-Event-ID, which are: each it names is refused, as named.
it("refuses --header of each name its help says the MCP connection sets itself", async () => {
  const { stdout: help } = await run("--help");
  const listed = /sets itself: ([^)]*)\)/.exec(help.replace(/\s+/g, " "))?.[1] ?? "";
  const names = listed.split(", ");
  expect(names).toContain("Transfer-Encoding");
  for (const name of names) {
    const { status, stderr } = await run(open.url, "--to", "x", "--header", `${name}: 1`);
    expect(status).toBe(2);
    expect(stderr.split("\n")[0]).toBe(
      `skills-mcp sync: --header ${name}: sync's MCP connection sets this header itself for each request, so the value given would not be sent (or would break the request); leave it out`,
    );
  }
});

// fetch failed the connection with "Cannot convert argument to a ByteString because the character at index 7
// has a value of 1082", an index into "Bearer <key>", naming neither the file nor what was wrong with it.
it("refuses an --api-key-file whose key a bearer token cannot hold, without showing the key", async () => {
  await writeFile(path.join(work, "key.txt"), "# the key\n  s3cret-\u043a\u043b\u044e\u0447-key  \n");
  const { status, stdout, stderr } = await run(open.url, "--to", "x", "--api-key-file", "key.txt");
  expect(status).toBe(2);
  expect(stdout).toBe("");
  expect(stderr).toBe(
    `skills-mcp sync: --api-key-file ${path.join(work, "key.txt")}: its key holds U+043A at character 8, which a bearer token cannot hold (visible ASCII only, no spaces); is it the right file?\n`,
  );
  expect(await readdir(work)).toEqual(["key.txt"]);
});

// The same mistake was told in other words by the server (API_KEYS_FILE) and by sync (--api-key-file): "there
// is no such file" and "no such file; give a file holding …", "holds no key (one key per line)" and "holds no
// key: every line is blank …". Each names where the file was given, then says the same.
it.each([
  ["missing.txt", "cannot be read: there is no such file (ENOENT)"],
  [".", "cannot be read: it is a folder (EISDIR); give a file"],
  ["empty.txt", "holds no key: every line is blank or a # comment; put"],
])("says of API_KEYS_FILE and --api-key-file %s the same words", async (file, said) => {
  await writeFile(path.join(work, "empty.txt"), "# none\n\n");
  const full = path.join(work, file);
  const { stderr } = await run("http://a/mcp", "--to", "x", "--api-key-file", file);
  expect(stderr).toContain(`skills-mcp sync: --api-key-file ${full} ${said}`);
  const server = () => loadConfig({ API_KEYS_FILE: file }, [], { cwd: work, files: DISK_FILES });
  expect(server).toThrow(`API_KEYS_FILE ${full} ${said}`);
});

// It said "cannot be read (EACCES)". Run as a process, as `nobody` when the tests run as root (root reads any file).
it("says --api-key-file names a file this user may not read, and what it takes", async () => {
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const folder = path.join(root.dir, "unreadable-key");
  await mkdir(folder);
  await writeFile(path.join(folder, "key.txt"), `${KEY}\n`, { mode: 0o000 });
  await chmod(root.dir, 0o755);
  const args = [...MAIN, "sync", open.url, "--to", "skills", "--api-key-file", "key.txt"];
  const failed = await execFileAsync(process.execPath, args, { ...user, cwd: folder }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(failed?.code).toBe(2);
  expect(failed?.stderr.split("\n")[0]).toBe(
    `skills-mcp sync: --api-key-file ${folder}/key.txt cannot be read: permission denied (EACCES); let the user this runs as read it`,
  );
  expect(failed?.stderr).not.toContain("Usage:");
});

// With few file descriptors (`ulimit -n 24`), the connections sync opened failed with EMFILE and it said "the
// server stopped answering (… EMFILE)", sending the user to look at a server that was fine.
it("says this process's limit on open files was hit, not the server, and how to raise it", async () => {
  const { stderr, folder } = await syncWithFewFiles([]);
  expect(stderr).toContain("this process has too many files open");
  expect(stderr).toContain("raise its limit on open files (ulimit -n, to 1024 or more)");
  expect(stderr).not.toContain("the server stopped answering");
  // The run stops where it next opens a file, which says the same, not the system's "EMFILE: too many open files".
  expect(stderr.trim().split("\n").at(-1)).not.toContain("too many open files");
  // Its cleanup opens files too, which fetch's idle connections kept it from: it left the run lock and
  // an empty staging folder. What stays is what a failed run keeps, the files it verified, if any (the
  // folder goes too when the run made it and left it empty).
  expect(await readdir(folder).catch(() => [])).not.toContain(RUN_LOCK_FILE);
  expect(await besideVerifiedFiles(path.join(folder, STAGING_DIR))).toEqual([]);
});

// On a busy machine, now and then, the run left the run lock or its staging folder: the reads its closed
// connection aborted stay in fetch's pool, which connects a socket for each at the process's next chance,
// taking the files the run had given back for its cleanup, which was still under way. Made certain here:
// from the first file set aside on /dev/null given back, the process takes every free one at each chance.
it("removes its run lock and staging folder when what it runs next takes every file given back", async () => {
  const preload = path.join(root.dir, "take-freed-files.mjs");
  await writeFile(
    preload,
    [
      'import fs from "node:fs";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const { closeSync, fstatSync, openSync, statSync } = fs;",
      'const { rdev } = statSync("/dev/null");',
      "const takeAll = () => {",
      "  try {",
      '    for (;;) openSync("/dev/null", "r");',
      "  } catch {}",
      "};",
      "const everyTurn = () => {",
      "  takeAll();",
      "  setImmediate(everyTurn).unref();",
      "};",
      "let taking = false;",
      "fs.closeSync = (fd) => {",
      "  const stats = fstatSync(fd);",
      "  closeSync(fd);",
      "  if (taking || !stats.isCharacterDevice() || stats.rdev !== rdev) return;",
      "  taking = true;",
      "  queueMicrotask(everyTurn);",
      "};",
      "syncBuiltinESMExports();",
    ].join("\n"),
  );
  const { stderr, folder } = await syncWithFewFiles(["--import", pathToFileURL(preload).href]);
  expect(stderr).toContain("this process has too many files open");
  expect(await readdir(folder).catch(() => [])).not.toContain(RUN_LOCK_FILE);
  expect(await besideVerifiedFiles(path.join(folder, STAGING_DIR))).toEqual([]);
});

/**
 * Runs sync in a process with 24 file descriptors (node's `flags` first), from a server of 30 skills of 4
 * files each, into `skills` in `work`: it fails for want of them. What it printed, and the folder.
 */
async function syncWithFewFiles(flags: string[]): Promise<{ stderr: string; folder: string }> {
  const skills = path.join(root.dir, "many");
  const files = (name: string) => ({
    [`team/${name}/SKILL.md`]: skillMd(name, `The ${name} skill.`),
    [`team/${name}/a.md`]: "A.",
    [`team/${name}/b.md`]: "B.",
    [`team/${name}/c.md`]: "C.",
  });
  await rm(skills, { recursive: true, force: true });
  await writeTree(
    skills,
    Object.assign({}, ...Array.from({ length: 30 }, (_, index) => files(`s-${index}`))),
  );
  const served = await serveCatalog(skills);
  try {
    const node = [process.execPath, ...flags, ...MAIN];
    const args = ["-c", 'ulimit -n 24 && exec "$@"', "sh", ...node, "sync", served.url, "--to", "skills"];
    const failed = await execFileAsync("/bin/sh", args, { cwd: work }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    return { stderr: failed?.stderr ?? "", folder: path.join(work, "skills") };
  } finally {
    await served.close();
  }
}

/**
 * What the staging folder `dir` holds besides the files a failed run keeps (`verified/<server>/<digest>`):
 * paths of other files, and of empty folders. None when it is gone.
 */
async function besideVerifiedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const relative = path.relative(dir, path.join(entry.parentPath, entry.name));
    const kept = entry.isFile() && /^verified[/\\][0-9a-f]{32}[/\\][0-9a-f]{64}$/.test(relative);
    const emptyFolder = entry.isDirectory() && (await readdir(path.join(dir, relative))).length === 0;
    if (entry.isDirectory() ? emptyFolder : !kept) found.push(relative);
  }
  return found;
}

// With HOME empty (`HOME= skills-mcp sync …`, a cron job), --client claude installed into ./.claude/skills
// of the current directory, as --project does, and said only "in .claude/skills".
describe("a client's personal folder without a home folder", () => {
  it.each([[""], ["relative/home"]])("refuses HOME %j, before writing anything", async (home) => {
    const { status, stderr } = await runWithHome(home, open.url, "--client", "claude");
    expect(status).toBe(2);
    expect(stderr).toMatch(/^skills-mcp sync: --client claude installs into the home folder[^\n]*\n$/);
    expect(await readdir(work)).toEqual([]);
  });

  it("still installs below the current directory with --project", async () => {
    expect((await runWithHome("", open.url, "--client", "claude", "--project")).status).toBe(0);
    expect(await readdir(work)).toEqual([".claude"]);
  });
});

// A shell expands ~ only unquoted at the start of a word: `--to "~/skills"`, `--to=~/skills`, a YAML list
// of arguments or PowerShell installed into a folder named "~" below the current directory.
describe("a --to folder starting with ~", () => {
  it.each([["~/skills"], ["~"]])("%s is read in the home folder", async (to) => {
    const home = path.join(work, "home");
    const { status, stderr } = await runWithHome(home, open.url, "--to", to);
    expect(status).toBe(0);
    const folder = path.join(home, to.slice(1));
    expect(stderr).toContain(
      `skills-mcp sync: 2 added, 0 updated, 0 removed, 0 skipped, 0 unchanged in ${folder}\n`,
    );
    expect(await readdir(work)).toEqual(["home"]);
    expect((await readdir(folder)).sort()).toEqual([LOCK_FILE, "deploy-app", "review-code"].sort());
  });

  it("is refused without an absolute HOME, and ./~ is a folder named ~", async () => {
    const refused = await runWithHome("", open.url, "--to", "~/skills");
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      `skills-mcp sync: --to "~/skills" starts with ~, the home folder, and HOME ("") is not an absolute path: set HOME, or give the folder's full path\n`,
    );
    expect((await runWithHome("", open.url, "--to", "./~/skills")).status).toBe(0);
    expect(await readdir(work)).toEqual(["~"]);
  });
});

describe("a sync from the command line", () => {
  it("installs into a client's personal folder, with a line per skill and a summary on stderr", async () => {
    const { status, stdout, stderr } = await run(open.url, "--client", "claude");
    expect(status).toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toContain("[1/2] deploy-app: to add: 1 file fetched and verified\n");
    expect(stderr).toMatch(
      /skills-mcp sync: 2 added, 0 updated, 0 removed, 0 skipped, 0 unchanged in .*\.claude\/skills\n$/,
    );
    expect(Object.keys(await readTree(path.join(work, "home", ".claude", "skills")))).toEqual([
      "deploy-app/SKILL.md",
      "review-code/SKILL.md",
    ]);
  });

  // Every other line names such a folder escaped: the summary split in two, its second half read as a line
  // of its own.
  it("names a folder holding a line break escaped, on one line, in its summary", async () => {
    const { status, stderr } = await run(open.url, "--to", "new\nskills");
    expect(status).toBe(0);
    expect(stderr.split("\n").at(-2)).toBe(
      `skills-mcp sync: 2 added, 0 updated, 0 removed, 0 skipped, 0 unchanged in ${work}/new{U+000A}skills`,
    );
  });

  it.each([
    ["claude", ".claude/skills"],
    ["codex", ".agents/skills"],
    ["copilot", ".github/skills"],
    ["agents", ".agents/skills"],
  ])("installs into the repository's folder of %s with --project", async (client, folder) => {
    expect((await run(open.url, "--client", client, "--project", "--pack", "team")).status).toBe(0);
    expect(Object.keys(await readTree(path.join(work, folder)))).toEqual(["review-code/SKILL.md"]);
  });

  it("waits --wait seconds for another sync into the folder, and with --wait 0 fails at once", async () => {
    const folder = path.join(work, "skills");
    const other = await takeRunLock(folder);
    if (!("release" in other)) throw new Error("the lock is not taken");
    try {
      const now = await run(open.url, "--to", "skills", "--wait", "0");
      expect(now.status).toBe(2);
      expect(now.stderr).toBe(
        `skills-mcp sync: another sync (pid ${process.pid}) is installing into ${folder}; wait for it, or remove ${path.join(folder, RUN_LOCK_FILE)} if it is gone\n`,
      );
      const later = await run(open.url, "--to", "skills", "--wait", "1");
      expect(later.status).toBe(2);
      expect(later.stderr.split("\n")).toEqual([
        `another sync (pid ${process.pid}) is installing into ${folder}: waiting up to 1 second for it to finish`,
        expect.stringMatching(
          /^skills-mcp sync: another sync \(pid \d+\) is still installing into .* after 1 second of waiting; /,
        ),
        "",
      ]);
    } finally {
      await other.release();
    }
  });

  it("prints the plan on stdout for --dry-run, and --check exits 1 until the folder is up to date", async () => {
    const dry = await run(open.url, "--to", "skills", "--dry-run");
    expect(dry).toMatchObject({ status: 0, stdout: "add deploy-app\nadd review-code\n" });
    expect(dry.stderr).toMatch(/dry run, nothing changed: 2 to add/);
    expect(await readdir(work)).toEqual([]);

    const stale = await run(open.url, "--to", "skills", "--check");
    expect(stale).toMatchObject({ status: 1, stdout: "add deploy-app\nadd review-code\n" });
    expect(stale.stderr).toMatch(/out of date: 2 to add/);

    expect((await run(open.url, "--to", "skills")).status).toBe(0);
    const current = await run(open.url, "--to", "skills", "--check");
    expect(current).toMatchObject({ status: 0, stdout: "" });
    expect(current.stderr).toMatch(/up to date: 0 to add, 0 to update, 0 to remove, 0 to skip, 2 unchanged/);
  });

  // Once a sync had run after the lock was lost, --check said "up to date" and no more: the user read that
  // all was well, and no skill was ever updated again.
  it("--check says when the lock file is lost, so none of the skills is sync's or will be updated", async () => {
    expect((await run(open.url, "--to", "skills")).status).toBe(0);
    const owned = await run(open.url, "--to", "skills", "--check");
    expect(owned.stderr).not.toContain("sync owns none");
    const folder = path.join(work, "skills");
    const tail =
      ": sync owns none of the 2 skipped as not installed by sync, and will never update them; if sync installed " +
      'them, its lock file was lost: see "A lost lock file" in docs/sync.md (put it back, or move those folders ' +
      "away and sync again)\n";
    // Edited here: a folder holding exactly the server's copy would be adopted, not skipped.
    for (const name of ["deploy-app", "review-code"])
      await writeFile(path.join(folder, name, "notes.md"), "mine\n");
    await rm(path.join(folder, LOCK_FILE));

    const missing = await run(open.url, "--to", "skills", "--check");
    // Out of date, as before: a sync would write a lock recording this server.
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`skills-mcp sync: ${folder} has no lock file (${LOCK_FILE})${tail}`);
    expect((await run(open.url, "--to", "skills")).status).toBe(1);
    const empty = await run(open.url, "--to", "skills", "--check");

    expect(empty.status).toBe(0);
    expect(empty.stderr).toContain(
      `skills-mcp sync: the lock file of ${folder} (${LOCK_FILE}) records no skill from ${open.url}${tail}`,
    );
    expect(empty.stderr).toMatch(/up to date: 0 to add, 0 to update, 0 to remove, 2 to skip, 0 unchanged/);
    const dry = await run(open.url, "--to", "skills", "--dry-run");
    expect(dry.stderr).toContain(tail);
    // A dry run's skips are its plan, as the help says, not a failure.
    expect(dry.stdout).toMatch(/^skip /m);
    expect(dry.status).toBe(0);
  });

  it("plans `adopt` for a folder holding the server's copy with the lock file lost, as a lock change", async () => {
    expect((await run(open.url, "--to", "skills")).status).toBe(0);
    await rm(path.join(work, "skills", LOCK_FILE));
    await writeFile(path.join(work, "skills/review-code/notes.md"), "mine\n");
    const adoption =
      "adopt deploy-app: it holds exactly the server's copy\n" +
      `skip review-code: ${"a folder or file of that name that sync did not install is there: left alone; move it away to get the server's copy"}\n` +
      `rewrite ${LOCK_FILE}: it would record this server, which it does not yet\n`;

    const check = await run(open.url, "--to", "skills", "--check");
    expect(check).toMatchObject({ status: 1, stdout: adoption });
    expect(check.stderr).toMatch(
      /out of date: 0 to add, 0 to update, 0 to remove, 1 to skip, 0 unchanged, 1 to adopt, the lock file to rewrite in /,
    );
    const dry = await run(open.url, "--to", "skills", "--dry-run");
    expect(dry).toMatchObject({ status: 0, stdout: adoption });

    const synced = await run(open.url, "--to", "skills");
    expect(synced.status).toBe(1);
    expect(synced.stderr).toContain("deploy-app: adopted: it holds exactly the server's copy\n");
    expect(synced.stderr).toMatch(/: 0 added, 0 updated, 0 removed, 1 skipped, 0 unchanged, 1 adopted in /);
    const after = await run(open.url, "--to", "skills", "--check");
    expect(after.status).toBe(0);
    expect(after.stderr).toMatch(
      /up to date: 0 to add, 0 to update, 0 to remove, 1 to skip, 1 unchanged in /,
    );
  });

  it("--check exits 0 for a skill the audit refused that the server serves the same since, and says so", async () => {
    const skills = path.join(work, "served");
    await writeTree(skills, {
      "team/review-code/SKILL.md": skillMd("review-code", "Review code changes."),
      "team/hidden/SKILL.md": skillMd("hidden", "Looks harmless.", "Run it \u202Enow.\n"),
    });
    const unsafe = await serveCatalog(skills, 0, { UNSAFE_SKILLS: "serve" });
    try {
      expect((await run(unsafe.url, "--to", "skills")).status).toBe(1);
      const check = await run(unsafe.url, "--to", "skills", "--check");
      expect(check.status).toBe(0);
      expect(check.stdout).toMatch(
        /^skip hidden: a high finding of the audit: hidden\/SKILL.md:\d+: bidi-control: .*; refused by the last sync, and served the same since\n$/,
      );
      expect(check.stderr).toMatch(
        /up to date: 0 to add, 0 to update, 0 to remove, 1 to skip \(1 refused by the audit, unchanged\), 1 unchanged/,
      );
    } finally {
      await unsafe.close();
    }
  });

  // Regression: --check exited 0 ("up to date") while a skill the lock records with a file an older sync
  // wrote, refused since, was skipped: no sync would ever bring it in step until its folder is deleted.
  it("--check exits 1 for a skill the lock records with a file this sync no longer writes, until it is deleted", async () => {
    expect((await run(open.url, "--to", "skills")).status).toBe(0);
    const folder = path.join(work, "skills");
    // As an older sync wrote it: a file named as Windows names .git, recorded with its digest.
    const hook = "#!/bin/sh\necho run\n";
    await writeTree(folder, { "review-code/git~1/hooks/pre-commit": hook });
    const lock = JSON.parse(await readFile(path.join(folder, LOCK_FILE), "utf8")) as {
      sources: { skills: Record<string, { files: Record<string, string> }> }[];
    };
    const record = lock.sources[0]?.skills["review-code"];
    if (record === undefined) throw new Error("the first sync recorded no review-code");
    record.files["git~1/hooks/pre-commit"] = digestOf(Buffer.from(hook));
    await writeFile(path.join(folder, LOCK_FILE), JSON.stringify(lock));

    const check = await run(open.url, "--to", "skills", "--check");
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(
      /^skip review-code: the lock file records its file "git~1\/hooks\/pre-commit", which an older sync wrote and this one no longer writes or reads \(.*\): left alone, unread; look at what its folder holds, then delete it to get the server's copy\n$/,
    );
    expect(check.stderr).toMatch(
      /out of date: 0 to add, 0 to update, 0 to remove, 1 to skip \(1 recorded with a file this sync no longer writes\), 1 unchanged in /,
    );
    // A dry run's skips are its plan, as ever.
    expect((await run(open.url, "--to", "skills", "--dry-run")).status).toBe(0);

    await rm(path.join(folder, "review-code"), { recursive: true });
    expect((await run(open.url, "--to", "skills")).status).toBe(0);
    const after = await run(open.url, "--to", "skills", "--check");
    expect(after).toMatchObject({ status: 0, stdout: "" });
  });

  // Regression: --check exited 0 ("up to date") when a sync would rewrite only the lock file, here to drop
  // a skill the server no longer serves that was edited here: a lock committed with --project then changed.
  it("--check exits 1 when a sync would rewrite the lock file alone, and says why", async () => {
    const skills = path.join(work, "served");
    await writeTree(skills, {
      "team/review-code/SKILL.md": skillMd("review-code", "Review code changes."),
      "team/old-skill/SKILL.md": skillMd("old-skill", "Soon gone."),
    });
    const first = await serveCatalog(skills);
    expect((await run(first.url, "--to", "skills")).status).toBe(0);
    await first.close();
    await writeFile(path.join(work, "skills/old-skill/SKILL.md"), "my own\n");
    await rm(path.join(skills, "team/old-skill"), { recursive: true });
    const second = await serveCatalog(skills, first.port);
    try {
      const check = await run(second.url, "--to", "skills", "--check");
      expect(check.status).toBe(1);
      expect(check.stdout).toMatch(
        new RegExp(
          `^skip old-skill: no longer served, but changed here .*\nrewrite \\${LOCK_FILE}: it would no longer record old-skill\n$`,
        ),
      );
      expect(check.stderr).toMatch(
        /out of date: 0 to add, 0 to update, 0 to remove, 1 to skip, 1 unchanged, the lock file to rewrite in /,
      );
      const lock = await readFile(path.join(work, "skills", LOCK_FILE), "utf8");
      expect((await run(second.url, "--to", "skills")).status).toBe(1);
      expect(await readFile(path.join(work, "skills", LOCK_FILE), "utf8")).not.toBe(lock);
      const after = await run(second.url, "--to", "skills", "--check");
      expect(after).toMatchObject({ status: 0, stdout: "" });
      expect(after.stderr).toMatch(
        /up to date: 0 to add, 0 to update, 0 to remove, 0 to skip, 1 unchanged in /,
      );
    } finally {
      await second.close();
    }
  });

  it("exits 1 when a skill is skipped, and says why", async () => {
    await writeTree(path.join(work, "skills"), { "review-code/SKILL.md": "my own" });
    const { status, stderr } = await run(open.url, "--to", "skills");
    expect(status).toBe(1);
    expect(stderr).toMatch(
      /review-code: skipped: a folder or file of that name that sync did not install is there: left alone; move it away to get the server's copy\n/,
    );
    expect(stderr).toMatch(/1 added, 0 updated, 0 removed, 1 skipped/);
  });

  it("says when another --pack removes what the last sync installed, and how to keep both", async () => {
    expect((await run(open.url, "--to", "skills", "--pack", "team")).status).toBe(0);

    const ops = await run(open.url, "--to", "skills", "--pack", "ops");

    expect(ops.status).toBe(0);
    expect(ops.stderr).toContain(
      `the packs asked for changed since the last sync from ${open.url} (--pack team, now --pack ops): ` +
        "the skills they no longer select are removed; give every --pack in one command to keep them all\n",
    );
    expect(ops.stderr).toContain("review-code: removed (not served in the packs asked for)\n");
    const both = await run(open.url, "--to", "skills", "--pack", "ops", "--pack", "team");
    expect(both.stderr).not.toContain("the packs asked for changed");
    expect(Object.keys(await readTree(path.join(work, "skills")))).toEqual([
      "deploy-app/SKILL.md",
      "review-code/SKILL.md",
    ]);
  });

  it("sends the key in --api-key-file as a bearer token, and says why it cannot connect without", async () => {
    await writeFile(path.join(work, "key.txt"), `# the team's key\n\n${KEY}\n`);
    const refused = await run(locked.url, "--to", "skills");
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /^skills-mcp sync: cannot connect to http:\/\/127\.0\.0\.1:\d+\/mcp: .*401/,
    );
    expect(refused.stderr).not.toContain("Usage");

    const { status } = await run(locked.url, "--to", "skills", "--api-key-file", "key.txt");
    expect(status).toBe(0);
    expect(Object.keys(await readTree(path.join(work, "skills")))).toHaveLength(2);
    // The lock records the scope asked for, never a secret.
    expect(await readFile(path.join(work, "skills", LOCK_FILE), "utf8")).not.toContain(KEY);
  });

  it("says the API key given was refused, not that one is missing, when the server refuses it", async () => {
    await writeFile(path.join(work, "key.txt"), "not-the-key-0123456789\n");
    for (const given of [
      ["--api-key-file", "key.txt"],
      ["--header", "Authorization: Bearer not-the-key-0123456789"],
    ]) {
      const refused = await run(locked.url, "--to", "skills", ...given);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(
        /^skills-mcp sync: cannot connect to http:\/\/127\.0\.0\.1:\d+\/mcp: .*; the server refused the API key given: check it\n$/,
      );
    }
  });

  it("says an https URL may be wrong when the server speaks plain HTTP", async () => {
    const { status, stderr } = await run(open.url.replace(/^http:/, "https:"), "--to", "skills");
    expect(status).toBe(2);
    const plain = open.url.replace(/^http:\/\//, "");
    expect(stderr).toMatch(
      /^skills-mcp sync: cannot connect to https:\/\/127\.0\.0\.1:\d+\/mcp: .*wrong version number/,
    );
    expect(stderr).toContain(`; the server may speak plain HTTP: try http://${plain}\n`);
    expect(stderr).not.toContain("{U+000A}");
  });

  // A file given as --to was answered "EEXIST: file already exists, mkdir …" (or ENOTDIR on a dry run).
  // Then "it is a file, or a file is on its path": which one was left to the reader.
  it.each([
    ["notes.txt", []],
    ["notes.txt", ["--dry-run"]],
    ["notes.txt/skills", []],
    ["notes.txt/skills", ["--dry-run"]],
  ])("says a file given as --to, or on its path, is no folder (%s %j)", async (to, mode) => {
    await writeFile(path.join(work, "notes.txt"), "mine");
    const { status, stderr } = await run(open.url, "--to", to, ...mode);
    expect(status).toBe(2);
    expect(stderr).toContain(
      `${path.join(work, to)}: ${path.join(work, "notes.txt")} is a file where the path needs a folder; give another folder with --to\n`,
    );
    expect(await readFile(path.join(work, "notes.txt"), "utf8")).toBe("mine");
  });

  // Node's recursive mkdir never returned there, spinning at full CPU: mkdir answers ENOENT under /proc.
  it.skipIf(process.platform !== "linux")(
    "fails at once where no folder can be made, naming it and why (under /proc)",
    async () => {
      const { status, stderr } = await run(open.url, "--to", "/proc/skills-mcp-test/skills");
      expect(status).toBe(2);
      expect(stderr).toBe(
        "skills-mcp sync: cannot sync into /proc/skills-mcp-test/skills: no folder can be made in /proc: " +
          "mkdir /proc/skills-mcp-test answered ENOENT (no such file or directory) though /proc is a folder: " +
          "its file system takes none (as /proc), or it was deleted while in use\n",
      );
    },
    10_000,
  );

  // It said "ENOENT: no such file or directory, open '<folder>/.skills-mcp-sync.lock.<uuid>.tmp'".
  it.skipIf(process.platform !== "linux")(
    "says that no file can be made in a folder deleted while in use",
    async () => {
      const deleted = path.join(work, "deleted");
      await mkdir(deleted);
      const fd = openSync(deleted, "r");
      try {
        await rm(deleted, { recursive: true });
        const folder = `/proc/self/fd/${fd}`;
        const { status, stderr } = await run(open.url, "--to", folder);
        expect(status).toBe(2);
        expect(stderr).toBe(
          `skills-mcp sync: cannot sync into ${folder}: no file can be made in it (ENOENT, no such file or directory, though it is a folder): its file system takes none (as /proc), or it was deleted while in use\n`,
        );
      } finally {
        closeSync(fd);
      }
    },
  );

  // The folders made for the run lock stayed behind, empty, after a server that could not be reached.
  it("leaves no folder behind when it cannot reach the server", async () => {
    const { status, stderr } = await run("http://127.0.0.1:1/mcp", "--to", "new/skills");
    expect(status).toBe(2);
    // Port 1 is one fetch refuses, as browsers do: "fetch failed: bad port" alone said nothing of it.
    expect(stderr).toContain("bad port; fetch refuses to connect to port 1, as browsers do: serve the MCP");
    expect(await readdir(work)).toEqual([]);
  });

  // It said only "Version negotiation probe failed: fetch failed: connect ECONNREFUSED …".
  it("says nothing listens at the URL's address when the connection is refused", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
      });
    });
    const { status, stderr } = await run(`http://127.0.0.1:${port}/mcp`, "--to", "skills");
    expect(status).toBe(2);
    expect(stderr).toContain(
      `ECONNREFUSED 127.0.0.1:${port}; nothing listens at 127.0.0.1:${port}: check that the server runs and the URL's port\n`,
    );
  });

  // --pack nope was told "cannot connect to …: Error POSTing to endpoint: Unknown pack…", though the
  // server had answered: it refused the pack.
  it("says the server refused the pack and which packs there are, without the JSON-RPC envelope", async () => {
    const { status, stderr } = await run(open.url, "--to", "skills", "--pack", "nosuch");
    expect(status).toBe(2);
    expect(stderr).toMatch(
      /^skills-mcp sync: \S+ refused the pack asked for "nosuch": Unknown pack or group "nosuch"\. Valid selectors: \w/,
    );
    expect(stderr).not.toContain("cannot connect");
    expect(stderr).not.toContain("POSTing");
    expect(stderr).not.toContain("jsonrpc");
  });

  it("does not call a skill moved out of the --pack asked for 'no longer served'", async () => {
    const skills = path.join(work, "catalog");
    await writeTree(skills, { "team/moving/SKILL.md": skillMd("moving", "Moves between packs.") });
    let served = await serveCatalog(skills);
    try {
      expect((await run(served.url, "--to", "skills", "--pack", "team")).status).toBe(0);
      await rm(path.join(skills, "team"), { recursive: true });
      await writeTree(skills, {
        "team/staying/SKILL.md": skillMd("staying", "Stays."),
        "ops/moving/SKILL.md": skillMd("moving", "Moves between packs."),
      });
      await served.close();
      served = await serveCatalog(skills, served.port);
      const { stderr } = await run(served.url, "--to", "skills", "--pack", "team");
      expect(stderr).toContain("moving: removed (not served in the packs asked for)\n");
    } finally {
      await served.close();
    }
  });

  it("sends --header as given, and records its name in the lock but not its value", async () => {
    const { status } = await run(
      open.url,
      "--to",
      "skills",
      "--header",
      "X-Skill-Pack: ops",
      "--header",
      "X-Team: s3cret",
    );
    expect(status).toBe(0);
    expect(Object.keys(await readTree(path.join(work, "skills")))).toEqual(["deploy-app/SKILL.md"]);
    const lock = await readFile(path.join(work, "skills", LOCK_FILE), "utf8");
    expect(JSON.parse(lock).sources[0].scope).toEqual({ packs: ["ops"], headers: ["x-team"] });
    expect(lock).not.toContain("s3cret");
  });

  it("refuses a server without the Skills extension, and a lock file it did not write", async () => {
    const plain = await serveMcp(() => new McpServer({ name: "plain", version: "1" }));
    try {
      const { status, stderr } = await run(plain.url, "--to", "skills");
      expect(status).toBe(2);
      expect(stderr).toMatch(/does not serve the MCP Skills extension/);
    } finally {
      await plain.close();
    }
    await writeTree(path.join(work, "other"), { [LOCK_FILE]: '{"installed": ["../../etc"]}' });
    const { status, stderr } = await run(open.url, "--to", "other");
    expect(status).toBe(2);
    expect(stderr).toMatch(/is not a lock file this version of sync wrote .*move it away to start over/);
    expect(await readdir(path.join(work, "other"))).toEqual([LOCK_FILE]);
  });

  // Regression: each read "cannot sync into <folder>: EISDIR: illegal operation on a directory, read",
  // naming neither the folder in the way nor what to do.
  it("names a folder where its lock file or run lock should be, and what to do", async () => {
    const lockFolder = path.join(work, "locked", LOCK_FILE);
    await mkdir(lockFolder, { recursive: true });
    const locked = await run(open.url, "--to", "locked");
    expect({ status: locked.status, stderr: locked.stderr }).toEqual({
      status: 2,
      stderr: `skills-mcp sync: ${lockFolder} is a folder, not a lock file; move it away to start over\n`,
    });
    const runLockFolder = path.join(work, "running", RUN_LOCK_FILE);
    await mkdir(runLockFolder, { recursive: true });
    const running = await run(open.url, "--to", "running", "--wait", "0");
    expect({ status: running.status, stderr: running.stderr }).toEqual({
      status: 2,
      stderr: `skills-mcp sync: ${runLockFolder} names no process, so no sync wrote it as it is: remove it if no sync is installing into ${path.join(work, "running")}\n`,
    });
  });
});

describe("what a hostile server says", () => {
  it("is printed escaped on one line: its error cannot clear the screen or fake a summary", async () => {
    const fake = "\x1b[2J\x1b[Hall good\nskills-mcp sync: 3 added, 0 updated, 0 removed, 0 skipped";
    const hostile = await serveMcp(() => {
      const mcp = new McpServer({ name: "hostile", version: "1" });
      mcp.server.setRequestHandler(SKILLS_LIST_METHOD, { params: ListSkillsRequestParamsSchema }, () => {
        throw new Error(fake);
      });
      mcp.server.registerCapabilities({ extensions: { [SKILLS_EXTENSION_ID]: {} } });
      return mcp;
    });
    try {
      const { status, stderr } = await run(hostile.url, "--to", "skills");
      expect(status).toBe(2);
      expect(stderr).not.toContain("\x1b");
      expect(stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(stderr).toContain("{U+001B}[2J{U+001B}[Hall good{U+000A}skills-mcp sync: 3 added");
    } finally {
      await hostile.close();
    }
  });

  it("is escaped in the lines of progress: a skill's name and why it was skipped", () => {
    let written = "";
    const progress = progressOn({ write: (text: string) => (written += text) });
    progress.note("skill://p/\x1b]0;owned\x07/SKILL.md: skipped: \u202Eevil");
    progress.skill(1, 1, "x\x1b[2J", "skipped: bad\nskills-mcp sync: 1 added", true);
    expect(written).toBe(
      "skill://p/{U+001B}]0;owned{U+0007}/SKILL.md: skipped: {U+202E}evil\n" +
        "[1/1] x{U+001B}[2J: skipped: bad{U+000A}skills-mcp sync: 1 added\n",
    );
  });
});

describe("progress on a terminal", () => {
  it("redraws one bar, keeps the lines of skipped skills, and clears the bar at the end", () => {
    let written = "";
    const progress = progressOn({ isTTY: true, columns: 60, write: (text: string) => (written += text) });
    progress.skill(1, 2, "alpha", "to add: 1 file fetched and verified", false);
    progress.skill(2, 2, "beta", "skipped: a high finding", true);
    progress.finish();
    expect(written).not.toContain("alpha: to add");
    expect(written).toContain("beta: skipped: a high finding\n");
    expect(written).toContain("[############------------] 1/2 alpha");
    expect(written).toContain("[########################] 2/2 beta");
    expect(written.endsWith("\r\x1b[K")).toBe(true);
  });
});
