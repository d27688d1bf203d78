/**
 * A hostile server, made with the SDK's own McpServer and raw handlers so that it can send what the
 * SDK's skills extension would never send: names and paths that climb out, look-alike names, digests and
 * sizes that lie, answers too large to hold. Sync refuses each skill, installs the honest one beside
 * it, and writes nothing outside the target folder.
 */
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/core/ext/skills";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, listWithin } from "../../src/sync/connection.js";
import { downloadSkill } from "../../src/sync/download.js";
import { skillRoot } from "../../src/sync/listed-files.js";
import { LOCK_FILE } from "../../src/sync/lock.js";
import { PackFilesOverRoom } from "../../src/sync/pack-files.js";
import { isOutOfDate } from "../../src/sync/plan.js";
import { PackReads } from "../../src/sync/reads.js";
import { STAGING_DIR } from "../../src/sync/staging.js";
import { cuttingProxy } from "../helpers/cutting-proxy.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { readLockIn, readTree, type Served, serveMcp, sync, tempFolder } from "./helpers.js";

/** A skill entry as a server sends it: anything at all, for a hostile one. */
interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[] | "dynamic";
}

/**
 * A file's content: text, bytes (sent as base64), text sent with the MIME type given, or a `blob` sent as
 * it is (base64 or not).
 */
type Content =
  | string
  | Buffer
  | { readonly text: string; readonly mimeType: string }
  | { readonly blob: string };

/** What the hostile server lists, and what it answers to a read of each URI. */
interface Script {
  entries: readonly Entry[];
  files: ReadonlyMap<string, Content>;
  /** Every URI read, in order: what sync asked for. */
  readonly reads: string[];
  /** The `ttlMs` sent with each read: how long the server asks the client to keep the answer. */
  readonly readTtlMs?: number;
  /** The URI a read's answer names for the file, by the URI asked, where it is another's. */
  readonly answerAs?: ReadonlyMap<string, string>;
  /** Resolves when the read of a URI may be answered: a server slow to answer some reads. */
  readonly hold?: (uri: string) => Promise<void>;
}

function bytesOf(content: Content): Buffer {
  if (Buffer.isBuffer(content)) return content;
  if (typeof content === "string") return Buffer.from(content);
  return "blob" in content ? Buffer.from(content.blob, "base64") : Buffer.from(content.text);
}

function digestOf(content: Content): string {
  return `sha256:${createHash("sha256").update(bytesOf(content)).digest("hex")}`;
}

/** An honest entry for the files at `root` (`SKILL.md` among them), and the files to serve. */
function skill(
  root: string,
  name: string,
  files: Record<string, Content>,
): { entry: Entry; files: Map<string, Content> } {
  const served = new Map(Object.entries(files).map(([file, content]) => [`${root}/${file}`, content]));
  return {
    entry: {
      uri: `${root}/SKILL.md`,
      frontmatter: { name, description: `The ${name} skill.` },
      resources: [...served].map(([uri, content]) => ({
        uri,
        digest: digestOf(content),
        size: bytesOf(content).length,
      })),
    },
    files: served,
  };
}

const GOOD = skill("skill://honest/good", "good", { "SKILL.md": skillMd("good", "The good skill.") });

/** The SDK's McpServer declaring the Skills extension, answering with the script as it stands. */
function hostileServer(script: Script): () => McpServer {
  return () => {
    const mcp = new McpServer({ name: "hostile", version: "1" });
    const cache = { ttlMs: 0, cacheScope: "private" as const };
    mcp.registerResource(
      "skills",
      new ResourceTemplate("skill://{+path}", { list: undefined }),
      {},
      async (uri) => {
        script.reads.push(uri.href);
        await script.hold?.(uri.href);
        const content = script.files.get(uri.href);
        if (content === undefined) throw new Error(`nothing at ${uri.href}`);
        const named = script.answerAs?.get(uri.href) ?? uri.href;
        if (typeof content === "object" && "blob" in content) {
          return { contents: [{ uri: named, blob: content.blob, mimeType: "application/octet-stream" }] };
        }
        if (Buffer.isBuffer(content)) {
          return {
            contents: [
              { uri: named, blob: content.toString("base64"), mimeType: "application/octet-stream" },
            ],
          };
        }
        const text = typeof content === "string" ? { text: content, mimeType: "text/markdown" } : content;
        const ttl = script.readTtlMs === undefined ? {} : { ttlMs: script.readTtlMs };
        return { contents: [{ uri: named, ...text }], ...ttl };
      },
    );
    mcp.server.setRequestHandler(SKILLS_LIST_METHOD, { params: ListSkillsRequestParamsSchema }, () => ({
      skills: script.entries,
      ...cache,
    }));
    mcp.server.setRequestHandler(SKILLS_GET_METHOD, { params: GetSkillRequestParamsSchema }, (params) => {
      const entry = script.entries.find((item) => item.uri === params.uri);
      if (entry === undefined) throw new Error(`no skill at ${params.uri}`);
      return { skill: entry, ...cache };
    });
    mcp.server.registerCapabilities({ extensions: { [SKILLS_EXTENSION_ID]: {} } });
    return mcp;
  };
}

let root: Awaited<ReturnType<typeof tempFolder>>;
let target: string;
let server: Served | undefined;
beforeEach(async () => {
  root = await tempFolder();
  target = path.join(root.dir, "target");
  await writeTree(root.dir, { "outside/sentinel.txt": "untouched" });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await root.remove();
});

/**
 * Serves the honest skill and `hostile` (one entry and its files), syncs into the target, and checks
 * what every case must hold: the honest skill installed, the hostile one not, nothing else anywhere.
 */
async function syncBeside(hostile: { entry: Entry; files: Map<string, Content> }) {
  const script: Script = {
    entries: [GOOD.entry, hostile.entry],
    files: new Map([...GOOD.files, ...hostile.files]),
    reads: [],
  };
  server = await serveMcp(hostileServer(script));
  const report = await sync(server.url, target);
  expect(report.counts).toMatchObject({ added: 1, skipped: 1 });
  expect(await readTree(target)).toEqual({ "good/SKILL.md": skillMd("good", "The good skill.") });
  expect((await readdir(target)).sort()).toEqual([LOCK_FILE, "good"]);
  expect(await everythingIn(root.dir)).toEqual([
    "outside/sentinel.txt",
    `target/${LOCK_FILE}`,
    "target/good/SKILL.md",
  ]);
  const skipped = report.lines.filter((line) => line.includes("skipped"));
  expect(skipped).toHaveLength(1);
  return { reason: skipped[0] ?? "", reads: script.reads };
}

/** Every file and link below `dir`, hidden ones too, by path. */
async function everythingIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

// Regression: fetch sends a request on a connection it kept open, which the server may end at that moment
// (its keep-alive timeout ran out; on a loaded machine, the test server's 5 s passed before fetch's 3 s
// were seen to): the request failed with "read ECONNRESET" or "other side closed" and its skill was
// skipped, or the run said the server stopped answering.
describe("a server ending its idle connections as requests come", () => {
  it("sends the request again and installs every skill", async () => {
    const skills = Array.from({ length: 20 }, (_, index) =>
      skill(`skill://honest/s-${index}`, `s-${index}`, {
        "SKILL.md": skillMd(`s-${index}`, `The s-${index} skill.`),
        "notes.md": `Notes ${index}.`,
      }),
    );
    let reads = 0;
    const served = await serveMcp(
      hostileServer({
        entries: skills.map((item) => item.entry),
        files: new Map(skills.flatMap((item) => [...item.files])),
        reads: [],
        // Every other read: a request sent again is not met by another ending at once.
        hold: async () => {
          reads += 1;
          if (reads % 2 === 0) served.closeIdle();
        },
      }),
    );
    server = served;

    const report = await sync(served.url, target);

    expect(report.lines.filter((line) => !line.includes(": to add: 2 files fetched and verified"))).toEqual(
      [],
    );
    expect(report.counts).toMatchObject({ added: 20, skipped: 0 });
  });
});

describe("names", () => {
  it.each([
    ["..", "skill://evil/x/SKILL.md"],
    ["..", "skill://evil/%2E%2E/SKILL.md"],
    ["a/b", "skill://evil/a%2Fb/SKILL.md"],
    ["../../outside", "skill://evil/..%2F..%2Foutside/SKILL.md"],
    // Cyrillic о (U+043E) twice: "pdf-tools" to the eye.
    ["pdf-t\u043e\u043els", "skill://evil/pdf-t%D0%BE%D0%BEls/SKILL.md"],
    ["Good", "skill://evil/Good/SKILL.md"],
  ])("refuses a skill named %j", async (name, uri) => {
    const hostile = skill(uri.replace(/\/SKILL\.md$/, ""), name, { "SKILL.md": skillMd("x", "x") });
    hostile.entry.uri = uri;
    const { reason, reads } = await syncBeside(hostile);
    expect(reason).toMatch(/entry is refused: .*name/);
    expect(reads).not.toContain(uri);
  });
});

describe("a skill named as a Windows device", () => {
  it("is not installed: its folder would be the device", async () => {
    const hostile = skill("skill://evil/con", "con", { "SKILL.md": skillMd("con", "The con skill.") });
    const { reason, reads } = await syncBeside(hostile);
    expect(reason).toContain(
      'skill://evil/con/SKILL.md: skipped: its name cannot be a folder: a name is a device on Windows: "con"',
    );
    expect(reads).not.toContain("skill://evil/con/SKILL.md");
  });
});

describe("paths", () => {
  it.each([
    ["climbing with ..", "skill://evil/climb/../../outside/x.md"],
    ["climbing with encoded dots", "skill://evil/climb/%2e%2e/%2e%2e/outside/x.md"],
    ["an encoded slash", "skill://evil/climb/..%2F..%2Foutside%2Fx.md"],
    ["an absolute path", "file:///etc/passwd"],
  ])("refuses a file path %s, as the SDK checks it", async (_, uri) => {
    const hostile = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
    });
    if (hostile.entry.resources !== "dynamic")
      hostile.entry.resources.push({ uri, digest: digestOf("x"), size: 1 });
    const { reason, reads } = await syncBeside(hostile);
    expect(reason).toMatch(
      /entry is refused: .*outside the skill directory|entry is refused: .*not a valid URI/,
    );
    expect(reads).toEqual(["skill://honest/good/SKILL.md"]);
  });

  it.each([
    ["backslashes that climb on Windows", "skill://evil/climb/..%5C..%5Coutside%5Cx.md", /holds "\\"/],
    ["a drive letter", "skill://evil/climb/C%3A%5Cx.md", /holds ":"/],
    ["a control character", "skill://evil/climb/a%0Ab.md", /control character \(U\+000A\)/],
    ["a Windows device name", "skill://evil/climb/a/prn/b.md", /a device on Windows: "prn"/],
    ["a trailing dot", "skill://evil/climb/notes.md.", /ends in a dot or a space/],
    [
      "a Windows device name with an extension",
      "skill://evil/climb/aux.txt",
      /a device on Windows: "aux.txt"/,
    ],
    ["a Windows serial port", "skill://evil/climb/COM1", /a device on Windows: "COM1"/],
    // A `.git` in the skill's folder makes it a repository of its own: git run there (a shell prompt, an
    // agent's `git status`) reads its config, whose hooks and fsmonitor run commands.
    ["a .git folder", "skill://evil/climb/.git/config", /\.git: "\.git"/],
    ["a .git file", "skill://evil/climb/refs/.git", /\.git: "\.git"/],
    ["a .git folder in capitals", "skill://evil/climb/.GIT/config", /\.git: "\.GIT"/],
    ["git~1, the short name NTFS gives .git", "skill://evil/climb/git~1/config", /\.git: "git~1"/],
    ["GIT~1 in capitals", "skill://evil/climb/GIT~1/hooks/pre-commit", /\.git: "GIT~1"/],
    ["a .git with a dot Windows drops", "skill://evil/climb/.git./config", /\.git: "\.git\."/],
    ["a .git with a space Windows drops", "skill://evil/climb/.git%20/config", /\.git: "\.git "/],
    [
      "a .git data stream",
      "skill://evil/climb/.git%3A%3A%24INDEX_ALLOCATION/config",
      /\.git: "\.git::\$INDEX_ALLOCATION"/,
    ],
    [
      "a .git with a code point macOS ignores inside",
      "skill://evil/climb/.g%E2%80%8Cit/config",
      /\.git: "\.g\{U\+200C\}it"/,
    ],
    [
      "a .git with a code point macOS ignores before it",
      "skill://evil/climb/%E2%80%8C.git/config",
      /\.git: "\{U\+200C\}\.git"/,
    ],
  ])("refuses a file path with %s, which the SDK lets through", async (_, uri, why) => {
    const hostile = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
    });
    hostile.files.set(uri, "x");
    if (hostile.entry.resources !== "dynamic")
      hostile.entry.resources.push({ uri, digest: digestOf("x"), size: 1 });
    const { reason, reads } = await syncBeside(hostile);
    expect(reason).toMatch(/climb: skipped: /);
    expect(reason).toMatch(why);
    // Refused from the entry alone: none of its files was read.
    expect(reads).toEqual(["skill://honest/good/SKILL.md"]);
  });
});

describe("content", () => {
  function climb(extra: Record<string, Content>) {
    const hostile = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
      ...extra,
    });
    return hostile;
  }

  it("refuses a skill whose file does not have the digest its entry lists", async () => {
    const hostile = climb({ "notes.md": "honest text" });
    // The same size, so that only the digest can tell.
    hostile.files.set("skill://evil/climb/notes.md", "HOSTILE-TXT");
    const { reason } = await syncBeside(hostile);
    expect(reason).toMatch(/notes\.md failed verification \(wrong digest\)/);
  });

  it("refuses a skill a file of which the server lists but does not serve", async () => {
    const hostile = climb({ "notes.md": "listed" });
    hostile.files.delete("skill://evil/climb/notes.md");
    const { reason } = await syncBeside(hostile);
    expect(reason).toMatch(/climb: skipped: reading skill:\/\/evil\/climb\/notes\.md failed: /);
  });

  // Regression: the line said "resources/read returned no contents for <uri>", the SDK's words, as if the
  // server had sent nothing, where it had sent another file.
  it.each(["modern", "legacy"] as const)(
    "refuses a skill a file of which the server answers with another file's URI, naming both (%s era)",
    async (era) => {
      const hostile = climb({ "notes.md": "listed", "other.md": "other" });
      const script: Script = {
        entries: [GOOD.entry, hostile.entry],
        files: new Map([...GOOD.files, ...hostile.files]),
        answerAs: new Map([["skill://evil/climb/notes.md", "skill://evil/climb/other\u001b[31m.md"]]),
        reads: [],
      };
      server = await serveMcp(hostileServer(script));
      const report = await sync(server.url, target, { era });
      expect(report.counts).toMatchObject({ added: 1, skipped: 1 });
      expect(
        report.lines.filter((line) => line.includes("climb")).map((line) => line.replace(/^\[\d\/2\] /, "")),
      ).toEqual([
        'climb: skipped: the server answered the read of "skill://evil/climb/notes.md" with another file\'s URI, "skill://evil/climb/other{U+001B}[31m.md": nothing of the skill was written',
      ]);
      expect(await everythingIn(root.dir)).toEqual([
        "outside/sentinel.txt",
        `target/${LOCK_FILE}`,
        "target/good/SKILL.md",
      ]);
    },
  );

  // Regression: a pack file whose read was answered with another file's URI was taken for one the server
  // does not serve, and left out without a word.
  it.each(["modern", "legacy"] as const)(
    "leaves out a file a skill cites that the server answers with another file's URI, naming both (%s era)",
    async (era) => {
      const cites = skill("skill://evil/cites", "cites", {
        "SKILL.md": skillMd("cites", "The cites skill.", "See shared/tokens.md."),
      });
      const script: Script = {
        entries: [GOOD.entry, cites.entry],
        files: new Map([...GOOD.files, ...cites.files, ["skill://evil/shared/tokens.md", "tokens"]]),
        answerAs: new Map([["skill://evil/shared/tokens.md", "skill://evil/shared/other\u001b[31m.md"]]),
        reads: [],
      };
      server = await serveMcp(hostileServer(script));
      const report = await sync(server.url, target, { era });
      expect(report.counts).toMatchObject({ added: 2, skipped: 0 });
      expect(
        report.lines.filter((line) => line.includes("cites:")).map((line) => line.replace(/^\[\d\/2\] /, "")),
      ).toEqual([
        "cites: to add: 1 file fetched and verified; left out 1 file(s) it cites, as its SKILL.md now says",
      ]);
      const installed = await readTree(target);
      expect(Object.keys(installed)).toEqual(["cites/SKILL.md", "good/SKILL.md"]);
      expect(installed["cites/SKILL.md"]).toContain(
        '- `shared/tokens.md`: the server answered the read of "skill://evil/shared/tokens.md" with another file\'s URI, "skill://evil/shared/other{U+001B}[31m.md": nothing of it was written\n',
      );
      // Looked up again, answered alike: the copy is as the server serves it, not an update each run.
      expect((await sync(server.url, target, { era })).counts).toMatchObject({ unchanged: 2, updated: 0 });
    },
  );

  // The SDK's schema issues came as a dozen lines of JSON, shown on the skill's line with each break escaped.
  it("refuses a file sent as a blob that is not base64, saying so in a line", async () => {
    const hostile = climb({ "notes.bin": Buffer.from("bytes") });
    hostile.files.set("skill://evil/climb/notes.bin", { blob: "!!not base64!!" });
    const { reason } = await syncBeside(hostile);
    expect(reason.replace(/^\[\d\/2\] /, "")).toBe(
      "climb: skipped: reading skill://evil/climb/notes.bin failed: Invalid result for resources/read: contents.0.blob: Invalid Base64 string",
    );
  });

  it("refuses a skill whose entry lists more bytes than the extension allows, before reading any", async () => {
    const hostile = climb({ "big.bin": Buffer.alloc(16) });
    if (hostile.entry.resources !== "dynamic") {
      const big = hostile.entry.resources.find((resource) => resource.uri.endsWith("big.bin"));
      if (big) big.size = 17 * 1024 * 1024;
    }
    const { reason, reads } = await syncBeside(hostile);
    expect(reason).toMatch(/over the extension's limits/);
    expect(reads).toEqual(["skill://honest/good/SKILL.md"]);
  });

  it("refuses a file larger than its entry says", async () => {
    const hostile = climb({ "notes.md": "short" });
    hostile.files.set("skill://evil/climb/notes.md", "short".repeat(200_000));
    const { reason } = await syncBeside(hostile);
    expect(reason).toMatch(/notes\.md failed verification \(wrong size\)/);
  });

  it("stops reading an answer larger than any skill can be", async () => {
    const hostile = climb({ "notes.md": "short" });
    hostile.files.set("skill://evil/climb/notes.md", Buffer.alloc(25 * 1024 * 1024, 1));
    const { reason } = await syncBeside(hostile);
    expect(reason).toMatch(/answer is over \d+ bytes; it was not read/);
  });

  it.each([
    [
      "a file that another file needs as a folder",
      { notes: "a file", "notes/inner.md": "below it" },
      "notes and notes/inner.md",
    ],
    [
      "two names a case-insensitive system takes for one",
      { "Guide.md": "one", "guide.md": "two" },
      "Guide.md and guide.md",
    ],
    ["SKILL.md and skill.md", { "skill.md": "two" }, "SKILL.md and skill.md"],
    [
      "two folders a case-insensitive system takes for one",
      { "a/x.md": "one", "A/y.md": "two" },
      "a/x.md and A/y.md",
    ],
  ])("refuses %s", async (_, files, pair) => {
    const { reason } = await syncBeside(climb(files));
    expect(reason).toContain(`${pair} cannot both be written`);
  });
});

describe("a check after the sync that refused a skill from its entry alone", () => {
  // Regression: --check and --dry-run planned such a skill as "add" on every run, though every sync
  // refuses it without reading a file: --check exited 1 for good.
  it.each([
    ["its files are generated (dynamic)", (entry: Entry) => Object.assign(entry, { resources: "dynamic" })],
    [
      "a file named as a Windows device",
      (entry: Entry) => {
        if (entry.resources !== "dynamic")
          entry.resources.push({ uri: "skill://evil/climb/aux.md", digest: digestOf("x"), size: 1 });
      },
    ],
    [
      "more bytes than the extension allows",
      (entry: Entry) => {
        const [first] = entry.resources;
        if (first !== undefined && typeof first !== "string") first.size = 17 * 1024 * 1024;
      },
    ],
  ])("skips it as the sync did, and is not out of date: %s", async (_, spoil) => {
    const hostile = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
    });
    spoil(hostile.entry);
    const { reason } = await syncBeside(hostile);
    for (const mode of ["check", "dry-run"] as const) {
      const planned = await sync(server?.url ?? "", target, { mode });
      expect(isOutOfDate(planned.steps)).toBe(false);
      expect(planned.steps.find((step) => step.name === "climb")).toMatchObject({
        kind: "skip",
        reason: reason.replace(/^.*climb: skipped: /, ""),
      });
    }
  });
});

describe("a skill sync owns whose name it would no longer install", () => {
  // Regression: a skill an older sync installed under a name this one will not make a folder of (a Windows
  // device name, refused since) was kept in the lock under its URI, which is no skill name: the lock
  // written could not be read back, and every later run stopped with "move it away to start over". Such a
  // name comes from another server, or an older skills-mcp: this one no longer serves it.
  it("is kept under its name, with the lock's record of it", async () => {
    const aux = skill("skill://honest/aux", "aux", { "SKILL.md": skillMd("aux", "The aux skill.") });
    const script: Script = {
      entries: [GOOD.entry, aux.entry],
      files: new Map([...GOOD.files, ...aux.files]),
      reads: [],
    };
    server = await serveMcp(hostileServer(script));
    await writeTree(target, { "aux/SKILL.md": skillMd("aux", "The aux skill.") });
    const owned = {
      uri: aux.entry.uri,
      served: digestOf("older"),
      files: { "SKILL.md": digestOf(skillMd("aux", "The aux skill.")) },
      packFiles: {},
    };
    const lock = {
      version: 1,
      sources: [
        {
          server: server.url,
          scope: { packs: [], headers: [] },
          syncedAt: "2026-12-01T00:00:00.000Z",
          by: "skills-mcp 0.0.1",
          skills: { aux: owned },
        },
      ],
    };
    await writeFile(path.join(target, LOCK_FILE), JSON.stringify(lock));
    const first = await sync(server.url, target);
    expect(first.counts).toMatchObject({ added: 1, skipped: 1 });
    expect(first.lines).toContainEqual(expect.stringMatching(/^aux: skipped: its name cannot be a folder: /));
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toEqual(["aux", "good"]);
    expect(await readFile(path.join(target, "aux/SKILL.md"), "utf8")).toBe(skillMd("aux", "The aux skill."));
    expect((await sync(server.url, target)).counts).toMatchObject({ skipped: 1, unchanged: 1 });
  });
});

describe("a skill whose recorded file this sync would no longer write", () => {
  // Regression: a lock an older sync wrote recording such a file (refused since: `git~1` reads as `.git` on
  // Windows, `aux.txt` opens a device) was refused whole, and every run stopped with "move it away to start
  // over". Now only that skill is left alone, unread, the line naming the file; the other skills sync.
  it("leaves that skill alone and says which file, syncs the others, and installs it again once deleted", async () => {
    const hooked = skill("skill://honest/hooked", "hooked", {
      "SKILL.md": skillMd("hooked", "The hooked skill."),
    });
    const script: Script = {
      entries: [GOOD.entry, hooked.entry],
      files: new Map([...GOOD.files, ...hooked.files]),
      reads: [],
    };
    server = await serveMcp(hostileServer(script));
    // As an older sync wrote them: one skill still served, one the server no longer serves.
    const written = {
      "hooked/SKILL.md": skillMd("hooked", "The hooked skill, older."),
      "hooked/git~1/hooks/pre-commit": "#!/bin/sh\necho run\n",
      "devices/SKILL.md": skillMd("devices", "The devices skill."),
      "devices/aux.txt": "a note\n",
    };
    await writeTree(target, written);
    const recordOf = (name: string, uri: string) => {
      const files = Object.entries(written)
        .filter(([file]) => file.startsWith(`${name}/`))
        .map(([file, content]) => [file.slice(name.length + 1), digestOf(content)]);
      return { uri, served: digestOf("older"), files: Object.fromEntries(files), packFiles: {} };
    };
    const records = {
      hooked: recordOf("hooked", hooked.entry.uri),
      devices: recordOf("devices", "skill://honest/devices/SKILL.md"),
    };
    const older = {
      version: 1,
      sources: [
        {
          server: server.url,
          scope: { packs: [], headers: [] },
          syncedAt: "2026-12-01T00:00:00.000Z",
          by: "skills-mcp 0.0.1",
          skills: records,
        },
      ],
    };
    await writeFile(path.join(target, LOCK_FILE), JSON.stringify(older));

    const check = await sync(server.url, target, { mode: "check" });
    expect(check.steps.map((step) => [step.name, step.kind])).toEqual([
      ["devices", "skip"],
      ["good", "add"],
      ["hooked", "skip"],
    ]);
    const first = await sync(server.url, target);
    expect(first.counts).toMatchObject({ added: 1, skipped: 2 });
    expect(first.lines).toContainEqual(
      'hooked: skipped: the lock file records its file "git~1/hooks/pre-commit", which an older sync wrote and this one no longer writes or reads (a name macOS or Windows reads as .git: "git~1" (a .git folder or file would make the folder a git repository of its own, whose config runs commands)): left alone, unread; look at what its folder holds, then delete it to get the server\'s copy',
    );
    expect(first.lines).toContainEqual(
      'devices: skipped: no longer served, and the lock file records its file "aux.txt", which an older sync wrote and this one no longer writes or reads (a name is a device on Windows: "aux.txt"): left in place, unread, no longer managed by sync; look at what it holds, then delete it',
    );
    // Nothing of either was touched; the skill still served stays recorded, the other is the user's now.
    expect(await readTree(target)).toEqual({
      ...written,
      "good/SKILL.md": skillMd("good", "The good skill."),
    });
    const lock = await readLockIn(target);
    expect(lock.sources[0]?.skills.hooked).toEqual(records.hooked);
    expect(Object.keys(lock.sources[0]?.skills ?? {})).toEqual(["good", "hooked"]);

    expect((await sync(server.url, target)).counts).toMatchObject({ skipped: 1, unchanged: 1 });
    await rm(path.join(target, "hooked"), { recursive: true });
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, skipped: 0, unchanged: 1 });
    expect(await readFile(path.join(target, "hooked/SKILL.md"), "utf8")).toBe(
      skillMd("hooked", "The hooked skill."),
    );
    expect(await readdir(path.join(target, "hooked"))).toEqual(["SKILL.md"]);
  });
});

describe("memory", () => {
  // Regression: the listing was read page after page, each page up to 24 MiB, for up to 20,000 pages, every
  // entry held: a server handing out endless pages of entries of 100 files took sync past 870 MB in 400
  // pages (3.3 MB a page), on its way to tens of GB.
  it("reads a listing no further than its budget over all its pages", async () => {
    const pagesAsked: number[] = [];
    const pageOf = (page: number) =>
      Array.from({ length: 100 }, (_, at) => {
        const root = `skill://wide/s-${page}-${at}`;
        const files = Array.from({ length: 10 }, (_, file) => ({
          uri: `${root}/${"d".repeat(60)}/f${file}.md`,
          digest: digestOf("x"),
          size: 1,
        }));
        return {
          uri: `${root}/SKILL.md`,
          frontmatter: { name: `s-${page}-${at}`, description: "A skill." },
          resources: [{ uri: `${root}/SKILL.md`, digest: digestOf("x"), size: 1 }, ...files],
        };
      });
    server = await serveMcp(() => {
      const mcp = hostileServer({ entries: [], files: new Map(), reads: [] })();
      mcp.server.setRequestHandler(
        SKILLS_LIST_METHOD,
        { params: ListSkillsRequestParamsSchema },
        (params) => {
          const page = Number(params.cursor ?? 0);
          pagesAsked.push(page);
          // An end at last, so that a client without a budget finishes too: with all 40 pages held.
          const more = page < 39 ? { nextCursor: String(page + 1) } : {};
          return { skills: pageOf(page), ...more, ttlMs: 0, cacheScope: "private" as const };
        },
      );
      return mcp;
    });
    const connection = await connect({ url: new URL(server.url), headers: {} }, "modern", "test");
    try {
      const listing = listWithin(1024 * 1024, () => connection.skills.list());
      await expect(listing).rejects.toThrow(
        "the server's skills/list answers are over 1,048,576 bytes over all their pages; no more of them was read",
      );
    } finally {
      await connection.close();
    }
    // Each page some 170 KB: the budget is spent in the seventh.
    expect(pagesAsked.length).toBeLessThan(10);
  });

  it("keeps no answer the server asks to be cached: a file read twice is asked for twice", async () => {
    const script: Script = { entries: [GOOD.entry], files: GOOD.files, reads: [], readTtlMs: 86_400_000 };
    server = await serveMcp(hostileServer(script));
    const connection = await connect({ url: new URL(server.url), headers: {} }, "modern", "test");
    try {
      const uri = "skill://honest/good/SKILL.md";
      await connection.client.readResource({ uri });
      await connection.client.readResource({ uri });
    } finally {
      await connection.close();
    }
    expect(script.reads).toEqual(["skill://honest/good/SKILL.md", "skill://honest/good/SKILL.md"]);
  });

  it("reads no more of the files a skill cites once they reach the skill's limit", async () => {
    const cites = ["shared/f0.md", "shared/f1.md", "shared/f2.md", "shared/f3.md"];
    const big = skill("skill://honest/big", "big", {
      "SKILL.md": skillMd("big", "The big skill.", cites.join("\n")),
    });
    const nine = "y".repeat(9 * 1024 * 1024);
    for (const cited of cites) big.files.set(`skill://honest/${cited}`, nine);
    const script: Script = { entries: [big.entry], files: big.files, reads: [] };
    server = await serveMcp(hostileServer(script));
    const report = await sync(server.url, target);
    expect(report.counts).toMatchObject({ added: 1, skipped: 0 });
    // A pack file's answer past the room a read first gives it (1 MiB) is asked for again: each is read twice.
    expect([...new Set(script.reads)]).toEqual([
      "skill://honest/big/SKILL.md",
      "skill://honest/shared/f0.md",
      "skill://honest/shared/f1.md",
    ]);
    const installed = await readTree(target);
    expect(Object.keys(installed)).toEqual(["big/SKILL.md", "big/shared/f0.md"]);
    expect(installed["big/SKILL.md"]).toContain(
      "`shared/f1.md` (skill://honest/shared/f1.md): the skill would be over",
    );
    expect(installed["big/SKILL.md"]).toContain(
      "`shared/f2.md`: not read: what this skill and the files it cites hold reached 16777216 bytes",
    );
  });

  /**
   * Holds each read `isLarge` says is of a large file until none has come for a while, then lets all held
   * go: reads the client sends at once are held together, one after another each alone. `most`: the
   * most held at once, which is how many large answers sync asked to hold at once.
   */
  function holdingLargeReads(isLarge: (uri: string) => boolean) {
    const held: (() => void)[] = [];
    let quiet: NodeJS.Timeout | undefined;
    const seen = { most: 0 };
    const hold = async (uri: string) => {
      if (!isLarge(uri)) return;
      await new Promise<void>((resolve) => {
        held.push(resolve);
        seen.most = Math.max(seen.most, held.length);
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          for (const release of held.splice(0)) release();
        }, 300);
      });
    };
    return { hold, seen };
  }

  // Regression: the skills were fetched 8 at a time, and each of their reads could hold an answer of up to
  // 24 MiB: 8 large skills at once held 8 large answers, some 550 MiB of resident memory where one after
  // another held 290 MiB (bench/sync-memory.ts).
  it("asks for one large answer at a time, however many large skills it fetches at once, and installs them", async () => {
    const large = (index: number) => Buffer.alloc(7 * 1024 * 1024, index + 1);
    const skills = [0, 1, 2, 3].map((index) =>
      skill(`skill://honest/large-${index}`, `large-${index}`, {
        "SKILL.md": skillMd(`large-${index}`, `The large-${index} skill.`),
        "data.bin": large(index),
      }),
    );
    const { hold, seen } = holdingLargeReads((uri) => uri.endsWith("/data.bin"));
    const script: Script = {
      entries: [GOOD.entry, ...skills.map((item) => item.entry)],
      files: new Map([...GOOD.files, ...skills.flatMap((item) => [...item.files])]),
      reads: [],
      hold,
    };
    server = await serveMcp(hostileServer(script));

    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ added: 5, skipped: 0 });
    expect(seen.most).toBe(1);
    for (const index of [0, 1, 2, 3]) {
      const installed = await readFile(path.join(target, `large-${index}`, "data.bin"));
      expect(installed.equals(large(index))).toBe(true);
    }
  });

  // The files of a skill read at once cannot be held once read, as the next skills' reads go on: a skill
  // being fetched holds its files until it is written, so only as many skills are fetched at once as
  // their files fit in one skill's limit.
  it("fetches large skills of many files one skill after another, not all at once, and installs them", async () => {
    const names = ["many-a", "many-b", "many-c"];
    const skills = names.map((name) =>
      skill(`skill://honest/${name}`, name, {
        "SKILL.md": skillMd(name, `The ${name} skill.`),
        ...Object.fromEntries(
          Array.from({ length: 10 }, (_, index) => [`part-${index}.bin`, Buffer.alloc(1024 * 1024, index)]),
        ),
      }),
    );
    const script: Script = {
      entries: skills.map((item) => item.entry),
      files: new Map(skills.flatMap((item) => [...item.files])),
      reads: [],
    };
    server = await serveMcp(hostileServer(script));

    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ added: 3, skipped: 0 });
    const order = script.reads.map((uri) => /skill:\/\/honest\/([a-z-]+)\//.exec(uri)?.[1]);
    expect(order.filter((name, index) => name !== order[index - 1])).toEqual(names);
    expect(Object.keys(await readTree(target))).toHaveLength(33);
  });

  // Regression: the pack files a skill cites were held until it was written, outside the budget of the
  // bytes of skills being fetched: 8 small skills citing large pack files held up to 8 times 16 MiB.
  it("reads the large files skills cite for one skill at a time, not while other skills hold theirs", async () => {
    const names = ["cites-a", "cites-b", "cites-c"];
    const cited = (name: string, part: string) => Buffer.alloc(3 * 1024 * 1024, `${name}-${part}`);
    const skills = names.map((name) =>
      skill(`skill://honest/${name}`, name, {
        "SKILL.md": skillMd(
          name,
          `The ${name} skill.`,
          `See shared/${name}-1.bin, then shared/${name}-2.bin.`,
        ),
      }),
    );
    const files = new Map<string, Content>(skills.flatMap((item) => [...item.files]));
    for (const name of names) {
      for (const part of ["1", "2"])
        files.set(`skill://honest/shared/${name}-${part}.bin`, cited(name, part));
    }
    // A skill asks for its second file only once it holds the first.
    const { hold, seen } = holdingLargeReads((uri) => uri.endsWith("-2.bin"));
    const script: Script = { entries: skills.map((item) => item.entry), files, reads: [], hold };
    server = await serveMcp(hostileServer(script));

    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ added: 3, skipped: 0 });
    expect(seen.most).toBe(1);
    for (const name of names) {
      for (const part of ["1", "2"]) {
        const installed = await readFile(path.join(target, name, "shared", `${name}-${part}.bin`));
        expect(installed.equals(cited(name, part))).toBe(true);
      }
    }
  });

  // Regression: a check of an installed skill held the pack files the server now serves outside any
  // budget; only the size of the copy here decided which were checked alone. 8 small copies whose cited
  // files grew on the server were checked at once, each holding what it read.
  it("checks one skill at a time whose cited files grew on the server, not while other checks hold theirs", async () => {
    const names = ["grown-a", "grown-b", "grown-c"];
    const skills = names.map((name) =>
      skill(`skill://honest/${name}`, name, {
        "SKILL.md": skillMd(name, `The ${name} skill.`, `See shared/${name}-1.md.`),
      }),
    );
    const files = new Map<string, Content>(skills.flatMap((item) => [...item.files]));
    for (const name of names) files.set(`skill://honest/shared/${name}-1.md`, `# ${name}\n`);
    const { hold, seen } = holdingLargeReads((uri) => uri.endsWith("-2.md"));
    const script: Script = { entries: skills.map((item) => item.entry), files, reads: [], hold };
    server = await serveMcp(hostileServer(script));
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 3 });
    // Grown: a file of 3 MiB that now cites a second, which a check asks for only once it holds the first.
    const padding = "Padding line.\n".repeat(3 * 73_000);
    for (const name of names) {
      files.set(`skill://honest/shared/${name}-1.md`, `# ${name}\nSee shared/${name}-2.md.\n${padding}`);
      files.set(`skill://honest/shared/${name}-2.md`, `# ${name}, part 2\n`);
    }

    const report = await sync(server.url, target, { mode: "check" });

    expect(report.steps.map((step) => [step.name, step.kind])).toEqual(names.map((name) => [name, "update"]));
    expect(seen.most).toBe(1);
  });

  it("checks installed skills of large copies one after another, each holding its copy's bytes", async () => {
    const names = ["copy-a", "copy-b", "copy-c"];
    const skills = names.map((name) =>
      skill(`skill://honest/${name}`, name, {
        "SKILL.md": skillMd(name, `The ${name} skill.`, `See shared/${name}.md.`),
        "data.bin": Buffer.alloc(10 * 1024 * 1024, name),
      }),
    );
    const files = new Map<string, Content>(skills.flatMap((item) => [...item.files]));
    for (const name of names) files.set(`skill://honest/shared/${name}.md`, `# ${name}\n`);
    let checking = false;
    const { hold, seen } = holdingLargeReads((uri) => checking && uri.includes("/shared/"));
    const script: Script = { entries: skills.map((item) => item.entry), files, reads: [], hold };
    server = await serveMcp(hostileServer(script));
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 3 });
    checking = true;

    const report = await sync(server.url, target, { mode: "check" });

    expect(report.counts).toMatchObject({ unchanged: 3 });
    expect(seen.most).toBe(1);
  });

  it("asks again, one at a time, for answers larger than their entries say, and refuses them as before", async () => {
    const liars = [0, 1, 2].map((index) => {
      const liar = skill(`skill://evil/liar-${index}`, `liar-${index}`, {
        "SKILL.md": skillMd(`liar-${index}`, `The liar-${index} skill.`),
        "data.bin": Buffer.alloc(5, index + 1),
      });
      liar.files.set(`skill://evil/liar-${index}/data.bin`, Buffer.alloc(7 * 1024 * 1024, index + 1));
      return liar;
    });
    const asked = new Map<string, number>();
    // Only the reads asked for again are held: the first, with room for what the entry says, are cut.
    // This also pins that the SDK calls fetch within the read's async context, where withAnswerLimit's
    // AsyncLocalStorage finds the room: lost, each first answer is read whole, and asked for once.
    const { hold, seen } = holdingLargeReads((uri) => {
      asked.set(uri, (asked.get(uri) ?? 0) + 1);
      return (asked.get(uri) ?? 0) > 1;
    });
    const script: Script = {
      entries: [GOOD.entry, ...liars.map((item) => item.entry)],
      files: new Map([...GOOD.files, ...liars.flatMap((item) => [...item.files])]),
      reads: [],
      hold,
    };
    server = await serveMcp(hostileServer(script));

    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ added: 1, skipped: 3 });
    for (const index of [0, 1, 2]) {
      expect(report.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^\\[${index + 2}/4\\] liar-${index}: skipped: .*data\\.bin failed verification \\(wrong size\\)`,
          ),
        ),
      );
      expect(asked.get(`skill://evil/liar-${index}/data.bin`)).toBe(2);
    }
    expect(seen.most).toBe(1);
    expect(Object.keys(await readTree(target))).toEqual(["good/SKILL.md"]);
  });

  // Regression: a pack file's answer past the first room (1 MiB) was asked for again with room for the
  // largest answer, whatever room the skill citing it had: 8 skills each given 1 MiB for pack files read
  // files of 14 MiB, each held and kept before the skill found it over its room.
  it("reads no pack file whole that is larger than the room its skill has, and fetches it alone", async () => {
    const cites = skill("skill://honest/cites", "cites", {
      "SKILL.md": skillMd("cites", "The cites skill.", "See shared/big.md."),
    });
    cites.files.set("skill://honest/shared/big.md", "y".repeat(9 * 1024 * 1024));
    const script: Script = { entries: [cites.entry], files: cites.files, reads: [] };
    server = await serveMcp(hostileServer(script));
    const connection = await connect({ url: new URL(server.url), headers: {} }, "modern", "test");
    try {
      const listing = await connection.skills.list();
      const [entry] = listing.skills;
      if (entry === undefined) throw new Error("no skill listed");
      const context = {
        server: new URL(server.url),
        client: connection.client,
        skills: connection.skills,
        readAnswers: connection.readAnswers,
        skillRoots: new Set(listing.skills.map(skillRoot)),
        packReads: new PackReads(),
      };
      await expect(downloadSkill(entry, context, undefined, 1024 * 1024)).rejects.toBeInstanceOf(
        PackFilesOverRoom,
      );
      expect(context.packReads.bytes).toBe(0);
      const alone = await downloadSkill(entry, context);
      expect("skill" in alone ? [...alone.skill.files.keys()] : alone).toEqual(["SKILL.md", "shared/big.md"]);
    } finally {
      await connection.close();
    }
  });

  it("holds pack files read for later skills up to its budget, the oldest dropped first", () => {
    const reads = new PackReads(100);
    const bytes = (length: number) => ({ bytes: new Uint8Array(length) });
    reads.keep("a", bytes(40));
    reads.keep("b", bytes(40));
    reads.get("a");
    reads.keep("c", bytes(40));
    expect(reads.bytes).toBeLessThanOrEqual(100);
    expect(reads.get("b")).toBeUndefined();
    expect(reads.get("a")).toEqual(bytes(40));
    reads.keep("huge", bytes(200));
    expect(reads.get("huge")).toBeUndefined();
    expect(reads.bytes).toBeLessThanOrEqual(100);
  });
});

// Regression: a listing whose cursors led back to a page already read (`a` → `b` → `a`) was walked to the
// last of 20,000 pages, the same skills held again on each, and ended after minutes in whatever failed first
// (a refused connection, as the test server's queue overflowed), naming no loop.
describe("a listing whose pages loop", () => {
  it.each(["modern", "legacy"] as const)(
    "is refused at the first cursor asked twice, saying so (%s era)",
    async (era) => {
      const cursorsAsked: (string | undefined)[] = [];
      server = await serveMcp(() => {
        const mcp = hostileServer({ entries: [GOOD.entry], files: GOOD.files, reads: [] })();
        mcp.server.setRequestHandler(
          SKILLS_LIST_METHOD,
          { params: ListSkillsRequestParamsSchema },
          (params) => {
            cursorsAsked.push(params.cursor);
            // An end at last, so that a client that does not see the loop finishes too.
            const next = cursorsAsked.length < 50 ? { nextCursor: params.cursor === "a" ? "b" : "a" } : {};
            return { skills: [GOOD.entry], ...next, ttlMs: 0, cacheScope: "private" as const };
          },
        );
        return mcp;
      });

      await expect(sync(server.url, target, { era })).rejects.toThrow(
        `cannot list the skills of ${server.url}: the server's skills/list pages loop: after 3 pages, its next cursor "a" is one an earlier page gave; no more of them was read`,
      );
      expect(cursorsAsked).toEqual([undefined, "a", "b"]);
      expect(await everythingIn(root.dir)).toEqual(["outside/sentinel.txt"]);
    },
  );
});

describe("a connection cut mid-read", () => {
  it("skips the skill naming the file and why the read failed, with its cause", async () => {
    const cut = skill("skill://evil/cut", "cut", {
      "SKILL.md": skillMd("cut", "The cut skill."),
      "notes.md": "x",
    });
    const script: Script = {
      entries: [GOOD.entry, cut.entry],
      files: new Map([...GOOD.files, ...cut.files]),
      reads: [],
    };
    server = await serveMcp(hostileServer(script));
    // In front of the server: closes the connection, without an answer, on a read of notes.md.
    const front = await cuttingProxy(new URL(server.url), (body) =>
      body.includes("skill://evil/cut/notes.md"),
    );
    try {
      const report = await sync(front.url, target);
      expect(report.counts).toMatchObject({ added: 1, skipped: 1 });
      expect(report.lines.find((line) => line.includes("cut: skipped"))).toMatch(
        /cut: skipped: reading skill:\/\/evil\/cut\/notes\.md failed: fetch failed: other side closed/,
      );
    } finally {
      await front.close();
    }
  });
});

describe("links", () => {
  it("writes nothing through a symlink in the target that bears a served skill's name", async () => {
    const outside = path.join(root.dir, "outside");
    await mkdir(target);
    await symlink(outside, path.join(target, "climb"));
    const hostile = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
    });
    const script: Script = {
      entries: [GOOD.entry, hostile.entry],
      files: new Map([...GOOD.files, ...hostile.files]),
      reads: [],
    };
    server = await serveMcp(hostileServer(script));

    const report = await sync(server.url, target);

    expect(report.lines).toContainEqual(expect.stringMatching(/^climb: skipped: .*did not install/));
    expect(await readdir(outside)).toEqual(["sentinel.txt"]);
    expect((await lstat(path.join(target, "climb"))).isSymbolicLink()).toBe(true);
  });

  it("leaves alone a skill it installed that was replaced by a symlink, and writes nothing through it", async () => {
    const outside = path.join(root.dir, "outside");
    const v1 = skill("skill://evil/climb", "climb", { "SKILL.md": skillMd("climb", "The climb skill.") });
    const script: Script = { entries: [v1.entry], files: v1.files, reads: [] };
    server = await serveMcp(hostileServer(script));
    await sync(server.url, target);
    await rm(path.join(target, "climb"), { recursive: true });
    await symlink(outside, path.join(target, "climb"));
    const v2 = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill.", "# v2\n"),
    });
    script.entries = [v2.entry];
    script.files = v2.files;

    const report = await sync(server.url, target);

    expect(report.lines).toContainEqual(
      expect.stringMatching(/^climb: skipped: changed here since sync installed it \(a symlink\)/),
    );
    expect(await readdir(outside)).toEqual(["sentinel.txt"]);
  });

  it("reads nothing through, and writes nothing into, a symlink planted as the files a stopped run kept", async () => {
    const outside = path.join(root.dir, "outside");
    const notes = "honest notes\n";
    const hex = createHash("sha256").update(notes).digest("hex");
    // The right bytes under the right name, but outside the target: not a file a run kept.
    await writeTree(outside, { [hex]: notes });
    await mkdir(path.join(target, STAGING_DIR), { recursive: true });
    await symlink(outside, path.join(target, STAGING_DIR, "verified"));
    const honest = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
      "notes.md": notes,
    });
    const script: Script = { entries: [honest.entry], files: honest.files, reads: [] };
    server = await serveMcp(hostileServer(script));

    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });

    expect(script.reads).toContain("skill://evil/climb/notes.md");
    expect((await readdir(outside)).sort()).toEqual([hex, "sentinel.txt"].sort());
    expect(await readdir(target)).toEqual(["climb", LOCK_FILE].sort());
  });

  it("writes a file served as a symlink as a plain file holding its text", async () => {
    const hostile = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill."),
      "link.md": { text: "/etc/passwd", mimeType: "inode/symlink" },
    });
    const script: Script = { entries: [hostile.entry], files: hostile.files, reads: [] };
    server = await serveMcp(hostileServer(script));
    await sync(server.url, target);
    const link = path.join(target, "climb", "link.md");
    expect((await lstat(link)).isFile()).toBe(true);
    expect((await readTree(target))["climb/link.md"]).toBe("/etc/passwd");
  });
});

// Regression: an installed skill's folder was listed whole before its limits applied: a million empty
// files in it took 1.4 s of CPU and 300 MB to check, and any number of empty folders was walked.
describe("an installed skill's folder holding more than sync wrote", () => {
  it("is left alone once it holds more folders than files sync wrote, and not walked further", async () => {
    const v1 = skill("skill://evil/climb", "climb", { "SKILL.md": skillMd("climb", "The climb skill.") });
    const script: Script = { entries: [v1.entry], files: v1.files, reads: [] };
    server = await serveMcp(hostileServer(script));
    await sync(server.url, target);
    await mkdir(path.join(target, "climb", "a", "b"), { recursive: true });
    const v2 = skill("skill://evil/climb", "climb", {
      "SKILL.md": skillMd("climb", "The climb skill.", "# v2\n"),
    });
    script.entries = [v2.entry];
    script.files = v2.files;

    const report = await sync(server.url, target);

    expect(report.lines).toContainEqual(
      expect.stringMatching(
        /^climb: skipped: changed here since sync installed it \(more folders than sync wrote\)/,
      ),
    );
    expect((await readTree(target))["climb/SKILL.md"]).toBe(skillMd("climb", "The climb skill."));
  });
});

describe("a server whose tools count skills its Skills extension does not list", () => {
  /** The hostile server with list_packs answering `packs`, and list_skills counted and naming nothing. */
  function withTools(script: Script, packs: string, calls: string[]): () => McpServer {
    return () => {
      const mcp = hostileServer(script)();
      mcp.registerTool("list_packs", {}, () => {
        calls.push("list_packs");
        return { content: [{ type: "text", text: packs }] };
      });
      mcp.registerTool("list_skills", { inputSchema: { pack: z.string() } }, ({ pack }) => {
        calls.push(`list_skills ${pack}`);
        return { content: [{ type: "text", text: "Next: read_skill." }] };
      });
      return mcp;
    };
  }

  it("is asked about 20 packs at most, however many it counts", async () => {
    const script: Script = { entries: [GOOD.entry], files: GOOD.files, reads: [] };
    const packs = Array.from({ length: 1000 }, (_, index) => `pack${index}: 5 skills`).join("\n");
    const calls: string[] = [];
    server = await serveMcp(withTools(script, packs, calls));
    const report = await sync(server.url, target);
    expect(calls).toHaveLength(21);
    expect(report.lines).toContainEqual(
      expect.stringMatching(/^5000 skills the server's tools serve are left out .*: 5000 more \(/),
    );
  });

  it("does not take an entry the client refused for one left out: it is reported as skipped only", async () => {
    const bad = skill("skill://evil/Good", "Good", { "SKILL.md": skillMd("x", "x") });
    const script: Script = {
      entries: [GOOD.entry, bad.entry],
      files: new Map([...GOOD.files, ...bad.files]),
      reads: [],
    };
    const calls: string[] = [];
    server = await serveMcp(withTools(script, "honest: 1 skill\nevil: 1 skill", calls));
    const report = await sync(server.url, target);
    expect(report.counts).toMatchObject({ added: 1, skipped: 1 });
    expect(report.lines.filter((line) => line.includes("left out"))).toEqual([]);
    expect(calls).toEqual(["list_packs"]);
  });
});
