/**
 * The MCP Skills extension (SEP-2640) through the real endpoint, with the v2 SDK's own SkillsClient, which
 * checks every entry it lists and every file it reads (size, SHA-256 digest, frontmatter) against the
 * entry: in both protocol eras, within every kind of scope, and against hostile URIs.
 */
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SkillIndex } from "../../src/search/skill-index.js";
import { PNG_BYTES } from "../helpers/fixtures.js";
import { stdioServerProcess } from "../helpers/process.js";
import { wireRequest } from "../helpers/requests.js";
import { call, ERAS, post, type RunningServer, serveTree, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree, type TreeEntry } from "../helpers/skill-tree.js";

/**
 * What a URI of the right shape that names nothing is told after "not found", the same whether the file is
 * missing or out of the caller's scope: where the URIs served are listed.
 */
const READ_HINT = "; resources/list gives the URIs served";
const SKILLS_HINT = "; skills/list gives the URIs of the skills served";

const GUIDE_FRONTMATTER =
  "---\nname: guide\ndescription: >-\n  Guide people through a task,\n  one step at a time.\n" +
  'license: Apache-2.0\nmetadata:\n  version: "2.1"\n  owner: docs\n---\n\n# Guide\nSee references/intro.md.\n';

const TREE: Record<string, TreeEntry> = {
  "alpha/guide/SKILL.md": GUIDE_FRONTMATTER,
  "alpha/guide/references/intro.md": "# Intro\n",
  "alpha/guide/assets/logo.png": PNG_BYTES,
  "alpha/guide/scripts/run.sh": "#!/bin/sh\necho guide\n",
  "alpha/guide/escape.md": { symlink: "/etc/passwd" },
  // Its folder is named otherwise: its URI ends with its name, as the tools name it.
  "alpha/renamed-folder/SKILL.md": skillMd("renamed", "A skill whose folder has another name."),
  "beta/shared/guide.md": "# Beta shared guide\n",
  "beta/tools/shared/tips.md": "# Tips for tools\n",
  "beta/tools/hammer/SKILL.md": skillMd("hammer", "Drive nails with a hammer.", "Read shared/guide.md.\n"),
  "beta/tools/saw/SKILL.md": skillMd("saw", "Cut planks with a saw."),
  "beta/common/SKILL.md": skillMd("common", "Beta's copy of a shared name."),
  "gamma/common/SKILL.md": skillMd("common", "Gamma's copy of a shared name."),
  "gamma/games/SKILL.md": skillMd("games", "Games, and the skills nested in them."),
  "gamma/games/web/SKILL.md": skillMd("web", "Web games, nested in games."),
  "gamma/games/web/engine.js": "export const engine = 1;\n",
  // Skills the extension cannot carry, which the tools still serve.
  "gamma/clockify/SKILL.md": skillMd("Clockify Automation", "A name against the naming rule."),
  "gamma/anchored/SKILL.md":
    "---\nname: anchored\ndescription: &d Uses an anchor.\nmetadata:\n  summary: *d\n---\n",
  "gamma/versioned/SKILL.md":
    "---\nname: versioned\ndescription: Numbers in metadata.\nmetadata:\n  version: 2\n---\n",
  "gamma/crowded/SKILL.md": skillMd("crowded", "More files than the extension carries."),
  ...Object.fromEntries(Array.from({ length: 512 }, (_, i) => [`gamma/crowded/parts/${i}.md`, `${i}\n`])),
};

const CARRIED = [
  "skill://alpha/guide/SKILL.md",
  "skill://alpha/renamed/SKILL.md",
  "skill://beta/common/SKILL.md",
  "skill://beta/tools/hammer/SKILL.md",
  "skill://beta/tools/saw/SKILL.md",
  "skill://gamma/common/SKILL.md",
  "skill://gamma/games/games/SKILL.md",
  "skill://gamma/games/games/web/SKILL.md",
];

let tree: TempTree;
let server: RunningServer;
beforeAll(async () => {
  tree = await makeTree(TREE);
  server = await startServer(tree.dir);
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

function digestOf(entry: TreeEntry | undefined): { digest: string; size: number } {
  if (entry === undefined || (typeof entry === "object" && "symlink" in entry)) throw new Error("not a file");
  const bytes = Buffer.from(entry);
  return { digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, size: bytes.length };
}

/** What a read of `uri` gives a client: its contents, or the JSON-RPC error's code and message. */
async function read(client: Client, uri: string): Promise<unknown> {
  try {
    return (await client.readResource({ uri })).contents;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { code, message };
  }
}

/** A JSON-RPC error as a client sees it, with the URI it names put back as `<uri>`. */
async function refusal(attempt: Promise<unknown>, uri: string): Promise<unknown> {
  try {
    await attempt;
    return "served";
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { code, message: String(message).replaceAll(uri, "<uri>") };
  }
}

describe.each(ERAS)("the Skills extension in the %s era", (era) => {
  let client: Client;
  let skills: SkillsClient;
  beforeAll(async () => {
    client = await server.connect({ era });
    skills = new SkillsClient(client);
  });

  it("declares the extension with directory reads, beside resources, tools and prompts", () => {
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
    });
  });

  it("lists every skill it can carry at skill://<pack>/[<group>/]<name>/SKILL.md, and every file verifies", async () => {
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((skill) => skill.uri)).toEqual(CARRIED);
    for (const skill of listing.skills) {
      if (skill.resources === "dynamic") throw new Error(`${skill.uri} has dynamic resources`);
      for (const { uri } of skill.resources) {
        // SkillsClient throws unless size, digest (and for SKILL.md the frontmatter) match the entry.
        expect((await skills.read(skill, uri)).verified).toBe(true);
      }
    }
    if (era === "modern") expect(listing).toMatchObject({ ttlMs: 300_000, cacheScope: "private" });
  });

  it("gives each entry its frontmatter exactly as the file's YAML, and its complete manifest", async () => {
    const { skill } = await skills.get("skill://alpha/guide/SKILL.md");
    expect(skill.frontmatter).toEqual({
      name: "guide",
      description: "Guide people through a task, one step at a time.",
      license: "Apache-2.0",
      metadata: { version: "2.1", owner: "docs" },
    });
    // Digests and sizes of the very bytes on disk, in URI order.
    expect(skill.resources).toEqual(
      ["SKILL.md", "assets/logo.png", "references/intro.md", "scripts/run.sh"].map((file) => ({
        uri: `skill://alpha/guide/${file}`,
        ...digestOf(TREE[`alpha/guide/${file}`]),
      })),
    );
  });

  it("sends text as text and binary files as base64 blobs, each with its MIME type", async () => {
    expect(await read(client, "skill://alpha/guide/references/intro.md")).toEqual([
      { uri: "skill://alpha/guide/references/intro.md", mimeType: "text/markdown", text: "# Intro\n" },
    ]);
    expect(await read(client, "skill://alpha/guide/assets/logo.png")).toEqual([
      {
        uri: "skill://alpha/guide/assets/logo.png",
        mimeType: "image/png",
        blob: PNG_BYTES.toString("base64"),
      },
    ]);
  });

  it("lists a nested skill on its own below the skill around it, whose manifest holds its files", async () => {
    const outer = (await skills.get("skill://gamma/games/games/SKILL.md")).skill;
    const inner = (await skills.get("skill://gamma/games/games/web/SKILL.md")).skill;
    expect(outer.resources !== "dynamic" && outer.resources.map(({ uri }) => uri)).toEqual([
      "skill://gamma/games/games/SKILL.md",
      "skill://gamma/games/games/web/SKILL.md",
      "skill://gamma/games/games/web/engine.js",
    ]);
    // The same files at the same URIs, with the same digests: one file, whichever skill a host reads it for.
    expect(inner.resources).toEqual(
      outer.resources !== "dynamic" && outer.resources.filter(({ uri }) => uri.includes("/web/")),
    );
    expect((await skills.read(outer, "web/engine.js")).text).toBe("export const engine = 1;\n");
    expect((await skills.read(inner, "engine.js")).text).toBe("export const engine = 1;\n");
    // Where it was published before its URI was nested: no skill, as for any URI that names none.
    const before = "skill://gamma/games/web/SKILL.md";
    expect(await refusal(skills.get(before), before)).toEqual({
      code: -32602,
      message: `No skill is served at "<uri>"${SKILLS_HINT}`,
    });
    expect(await read(client, before)).toMatchObject({ code: -32602 });
  });

  it("leaves out what it cannot carry, which the tools still serve", async () => {
    for (const uri of ["skill://gamma/anchored/SKILL.md", "skill://gamma/versioned/SKILL.md"]) {
      expect(await refusal(skills.get(uri), uri)).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>"${SKILLS_HINT}`,
      });
    }
    for (const skill of ["Clockify Automation", "anchored", "versioned", "crowded"]) {
      expect((await call(client, "read_skill", { skill })).isError).toBe(false);
    }
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ skills: 12, skillsExtension: { skills: 8, leftOut: 4 } });
  });

  it("serves pack files at skill://<pack>/<path>, in no skill's manifest, and lists them", async () => {
    expect(await read(client, "skill://beta/shared/guide.md")).toEqual([
      { uri: "skill://beta/shared/guide.md", mimeType: "text/markdown", text: "# Beta shared guide\n" },
    ]);
    const { skills: listed } = await skills.list();
    const manifests = listed.flatMap((skill) => (skill.resources === "dynamic" ? [] : skill.resources));
    expect(manifests.map(({ uri }) => uri).filter((uri) => uri.includes("/shared/"))).toEqual([]);
    const { resources } = await client.listResources();
    expect(resources.map(({ uri }) => uri)).toEqual([
      ...CARRIED,
      "skill://beta/shared/guide.md",
      "skill://beta/tools/shared/tips.md",
    ]);
    expect(resources[0]).toMatchObject({
      name: "guide",
      description: expect.stringContaining("Guide people"),
    });
  });

  it("reads folders: a skill's, a pack's and a group's, each child once", async () => {
    const children = async (uri: string) =>
      (await skills.readDirectory(uri)).resources.map((child) => child.uri);
    expect(await children("skill://alpha/guide")).toEqual([
      "skill://alpha/guide/SKILL.md",
      "skill://alpha/guide/assets",
      "skill://alpha/guide/references",
      "skill://alpha/guide/scripts",
    ]);
    expect(await children("skill://beta")).toEqual([
      "skill://beta/common",
      "skill://beta/shared",
      "skill://beta/tools",
    ]);
    expect(await children("skill://beta/tools")).toEqual([
      "skill://beta/tools/hammer",
      "skill://beta/tools/saw",
      "skill://beta/tools/shared",
    ]);
  });

  it("offers each skill as a prompt named as read_skill takes it, its SKILL.md the user message", async () => {
    const { prompts } = await client.listPrompts();
    // In the order of every listing: by name, code point by code point, then by pack.
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      "Clockify Automation",
      "anchored",
      "beta/common",
      "gamma/common",
      "crowded",
      "games",
      "guide",
      "hammer",
      "renamed",
      "saw",
      "versioned",
      "web",
    ]);
    expect(prompts.find((prompt) => prompt.name === "hammer")?.description).toBe(
      "Drive nails with a hammer.",
    );
    const hammer = await client.getPrompt({ name: "hammer" });
    expect(hammer.messages).toEqual([
      {
        role: "user",
        content: {
          type: "text",
          text: skillMd("hammer", "Drive nails with a hammer.", "Read shared/guide.md.\n"),
        },
      },
    ]);
    expect(await refusal(client.getPrompt({ name: "common" }), '"common"')).toEqual({
      code: -32602,
      message: expect.stringContaining(
        "Several packs have a prompt <uri>; use one of: beta/common, gamma/common.",
      ),
    });
    expect(await refusal(client.getPrompt({ name: "nope" }), '"nope"')).toEqual({
      code: -32602,
      message: expect.stringContaining("No prompt <uri>"),
    });
    // A slip of a name, as read_skill answers one.
    expect(await refusal(client.getPrompt({ name: "hamer" }), '"hamer"')).toEqual({
      code: -32602,
      message: expect.stringMatching(/^No prompt <uri>\. Did you mean: hammer\b.*\? prompts\/list names/),
    });
  });

  // Regression: `"arguments": null`, which clients built on models send for none, was refused (-32602) as a
  // tools/call's was; and a name that is no prompt came back whole, however long, unescaped.
  it("reads a prompt's null arguments as none, and quotes a long name cut", async () => {
    const asked = wireRequest(era, 1, "prompts/get", { name: "hammer", arguments: null });
    const { json } = await post(`${server.url}/mcp`, asked.body, asked.headers);
    expect(json).toMatchObject({ result: { messages: [{ role: "user" }] } });
    const long = wireRequest(era, 2, "prompts/get", { name: `"${"n".repeat(5000)}` });
    const refused = await post(`${server.url}/mcp`, long.body, long.headers);
    expect(refused.json).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^No prompt "\\"n{99}…"\./) },
    });
  });

  // Regression: a name that is no prompt was searched for whole, to suggest close names, though
  // list_skills searches at most 1,000 characters and read_skill takes a name of 300: a prompts/get of
  // 60 KB of random words held the event loop some 1.4 s, over stdio a line of 10 MiB for minutes.
  it("searches no name longer than a skill's reference for close names", async () => {
    const searched = vi.spyOn(SkillIndex.prototype, "search");
    try {
      const words = Array.from({ length: 60 }, (_, index) => `hamer${index}`).join(" ");
      const long = wireRequest(era, 3, "prompts/get", { name: words });
      const refused = await post(`${server.url}/mcp`, long.body, long.headers);
      expect(refused.json).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(/^No prompt ".*…"\. prompts\/list names/) },
      });
      expect(searched).not.toHaveBeenCalled();
    } finally {
      searched.mockRestore();
    }
  });

  // The SDK's check of a spec request threw a plain error: a read without its URI was -32603, an internal
  // error, with a dump of the schema's complaint as its message.
  it("answers a read or a prompt without its uri or name as Invalid params, as skills/get", async () => {
    const requests: [string, Record<string, unknown>][] = [
      ["resources/read", {}],
      ["resources/read", { uri: 7 }],
      ["prompts/get", {}],
      ["prompts/get", { name: ["hammer"] }],
      ["skills/get", {}],
    ];
    for (const [method, params] of requests) {
      const { body, headers } = wireRequest(era, 1, method, params);
      const { json } = await post(`${server.url}/mcp`, body, headers);
      expect(json, `${method} ${JSON.stringify(params)}`).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(/^Invalid params for /) },
      });
    }
  });

  // The one answer of both eras (docs/protocol.md, "Protocol eras"): SEP-2164's -32602 for 2026-07-28, and the SDK's
  // for 2025 clients too, where those revisions asked -32002; `data.uri` tells it from other invalid params.
  it("answers a read of a URI that names nothing -32602 with the URI in its data", async () => {
    const uri = "skill://alpha/guide/no-such-file.md";
    const { body, headers } = wireRequest(era, 5, "resources/read", { uri });
    const { json } = await post(`${server.url}/mcp`, body, headers);
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32602, message: `Resource not found: "${uri}"${READ_HINT}`, data: { uri } },
    });
  });

  // Regression: the message repeated the whole URI that `data.uri` holds, so a 40,000-character URI
  // came back as an 80 KB error. (The 2026 era names the URI in a header too, which caps its length here.)
  it("quotes a long URI cut in the message, and whole in its data", async () => {
    const uri = `skill://alpha/${"x".repeat(5000)}`;
    const { body, headers } = wireRequest(era, 6, "resources/read", { uri });
    const { json, text } = await post(`${server.url}/mcp`, body, headers);
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: 6,
      error: {
        code: -32602,
        message: `Resource not found: "${uri.slice(0, 100)}…"${READ_HINT}`,
        data: { uri },
      },
    });
    expect(text.length).toBeLessThan(uri.length + 1000);
  });

  it("refuses hostile URIs exactly as it refuses a file that is not there", async () => {
    const missing = (await read(client, "skill://alpha/guide/no-such-file.md")) as { message?: string };
    expect(missing).toEqual({
      code: -32602,
      message: `Resource not found: "skill://alpha/guide/no-such-file.md"${READ_HINT}`,
    });
    for (const uri of [
      "skill://alpha/guide/%2e%2e/%2e%2e/etc/passwd",
      "skill://alpha/guide/a%2fb",
      "skill://alpha/guide/a%5cb",
      "skill://alpha/guide/a%00b",
      "skill://alpha/guide/.hidden",
      "skill:///etc/passwd",
      "file:///etc/passwd",
      "skill://alpha/guide/references/intro.md?x=1",
      "skill://alpha/guide/escape.md",
    ]) {
      const answer = (await read(client, uri)) as { code?: number; message?: string };
      expect(answer.code, uri).toBe(-32602);
      // The SDK reports the URI as it parsed it; the wording is that of any missing file.
      expect(answer.message, uri).toMatch(/^Resource not found: /);
    }
  });
});

describe.each(ERAS)("URIs that are not what they name (%s)", (era) => {
  let client: Client;
  let skills: SkillsClient;
  beforeAll(async () => {
    client = await server.connect({ era });
    skills = new SkillsClient(client);
  });

  /** Spellings of `..` and `.`: plain, encoded in either case, half encoded, and encoded twice. */
  const UP = ["..", "%2e%2e", "%2E%2E", "%2e.", ".%2E", "%252e%252e"];
  const HERE = [".", "%2e", "%2E", "%252e"];
  const DOT_SEGMENTS = ": dot segments (. and .., %2e%2e) are not resolved: name the file by its own path";

  // Regression (issue 24): the SDK resolved dot segments before the URI was checked, so
  // skill://alpha/nothing/%2e%2e/guide/SKILL.md read skill://alpha/guide/SKILL.md.
  it("a URI with a dot segment names nothing, even where resolving it would name a served file", async () => {
    const uris = [
      ...UP.flatMap((up) => [
        `skill://alpha/nothing/${up}/guide/SKILL.md`,
        `skill://alpha/guide/references/${up}/SKILL.md`,
        `skill://beta/tools/hammer/${up}/${up}/shared/guide.md`,
      ]),
      ...HERE.map((here) => `skill://alpha/guide/${here}/references/intro.md`),
    ];
    for (const uri of uris) {
      // Said why, but where the dot is encoded twice (%252e is the name %2e, which nothing is named).
      const why = uri.includes("%25") ? undefined : DOT_SEGMENTS;
      expect(await read(client, uri), uri).toEqual({
        code: -32602,
        message: `Resource not found: "${uri}"${why ?? READ_HINT}`,
      });
      expect(await refusal(skills.get(uri), uri), uri).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>"${why ?? SKILLS_HINT}`,
      });
    }
  });

  // Regression: a URI that no served file could have (a query, a hidden name, another scheme) was refused
  // only as "not found", which did not say what to change; a URI that could name a file still is.
  it("a URI whose shape names nothing is told why, in each method's refusal", async () => {
    const shapes: readonly (readonly [string, string])[] = [
      [
        "skill://alpha/guide/SKILL.md?x=1",
        "a skill:// URI names a file by its path alone, without a query (?) or a fragment (#)",
      ],
      [
        "skill://alpha/guide/SKILL.md#top",
        "a skill:// URI names a file by its path alone, without a query (?) or a fragment (#)",
      ],
      [
        "file:///etc/passwd",
        'URIs here begin "skill://" and a pack, skill://<pack>/<path>, as resources/list gives them',
      ],
      [
        "skill:alpha/guide/SKILL.md",
        'URIs here begin "skill://" and a pack, skill://<pack>/<path>, as resources/list gives them',
      ],
      ["skill:///alpha/guide/SKILL.md", 'the pack comes right after "skill://": skill://<pack>/<path>'],
      ["skill://alpha//guide/SKILL.md", "a skill:// URI holds no empty segment (// or a / at its end)"],
      ["skill://alpha/guide/.hidden", "names beginning with a dot (hidden files and folders) are not served"],
      [
        "skill://alpha%2Fguide/SKILL.md",
        "a segment holds an encoded /, \\ or NUL, which no name served holds",
      ],
      // Climbing with an encoded separator was told that hidden files are not served.
      [
        "skill://alpha/guide/..%5c..%5cSKILL.md",
        "a segment holds an encoded /, \\ or NUL, which no name served holds",
      ],
      [
        "skill://alpha/..%2Fbeta/SKILL.md",
        "a segment holds an encoded /, \\ or NUL, which no name served holds",
      ],
      ["skill://alpha/guide/%zz", "it holds a % that begins no escape (%XX)"],
      ["skill://alpha/guide/SKILL.md%", "it holds a % that begins no escape (%XX)"],
      [
        "skill://alpha/guide/%ED%A0%80",
        "its escapes decode to bytes that are not UTF-8 (a skill:// URI escapes a name's UTF-8, %XX a byte)",
      ],
    ];
    for (const [uri, why] of shapes) {
      expect(await read(client, uri), uri).toEqual({
        code: -32602,
        message: `Resource not found: "${uri}": ${why}`,
      });
      expect(await refusal(skills.get(uri), uri), uri).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>": ${why}`,
      });
      expect(await refusal(skills.readDirectory(uri), uri), uri).toEqual({
        code: -32602,
        message: `Nothing is served at "<uri>": ${why}`,
      });
    }
    const missing = "skill://alpha/guide/no-such-file.md";
    expect(await read(client, missing)).toEqual({
      code: -32602,
      message: `Resource not found: "${missing}"${READ_HINT}`,
    });
  });

  // The SDK answers skills/get only with an entry whose URI is the one asked for, as a URL spells it: a
  // skill asked for by another spelling was answered -32603, an internal error of the server.
  it("skills/get by another spelling of a skill's URI is Invalid params, not an internal error", async () => {
    for (const uri of [
      "skill://alpha/guide/%53KILL.md",
      "skill://alpha/guide/SKILL.%6dd",
      "skill://%61lpha/guide/SKILL.md",
      "skill://alpha/%67uide/SKILL.md",
    ]) {
      expect(await refusal(skills.get(uri), uri), uri).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>"${SKILLS_HINT}`,
      });
    }
    // Spellings a URL makes the entry's own still name it.
    for (const uri of ["SKILL://alpha/guide/SKILL.md", "skill://alpha/guide/SKILL.md"]) {
      expect((await skills.get(uri)).skill.uri, uri).toBe("skill://alpha/guide/SKILL.md");
    }
  });

  it("a folder URI with a dot segment names no folder", async () => {
    const uris = [
      ...UP.flatMap((up) => [`skill://alpha/guide/references/${up}`, `skill://alpha/nothing/${up}/guide`]),
      ...HERE.map((here) => `skill://alpha/guide/${here}`),
    ];
    for (const uri of uris) {
      expect(await refusal(skills.readDirectory(uri), uri), uri).toEqual({
        code: -32602,
        message: `Nothing is served at "<uri>"${uri.includes("%25") ? READ_HINT : DOT_SEGMENTS}`,
      });
    }
  });

  // Regression: …/SKILL.md/, a file's URI written as a folder's, was told "Nothing is served at".
  it("resources/directory/read of a file says it is one, with a folder's slash after it too", async () => {
    for (const uri of ["skill://alpha/guide/references/intro.md", "skill://alpha/guide/SKILL.md/"]) {
      expect(await refusal(skills.readDirectory(uri), uri), uri).toEqual({
        code: -32602,
        message: `"<uri>" is not a directory resource; read it with resources/read`,
      });
    }
  });

  // Regression: a read of a folder was told only "Resource not found …; resources/list gives the URIs
  // served", which lists no folder, where a folder read of a file is told to read it.
  it("resources/read of a folder says it is one, and how to list it", async () => {
    for (const uri of ["skill://beta", "skill://beta/tools", "skill://alpha/guide", "skill://alpha/guide/"]) {
      expect(await refusal(client.readResource({ uri }), uri), uri).toEqual({
        code: -32602,
        message: `"<uri>" is a directory resource, not a file; list it with resources/directory/read`,
      });
    }
  });

  // Regression: skills/get of a skill's folder, as a client that takes a skill for its folder asks, was told
  // only "No skill is served …; skills/list gives the URIs of the skills served".
  it("skills/get of a skill's folder names the skill's URI", async () => {
    const skillUris: [string, string][] = [
      ["skill://alpha/guide", "skill://alpha/guide/SKILL.md"],
      ["skill://alpha/guide/", "skill://alpha/guide/SKILL.md"],
      ["skill://beta/tools/hammer", "skill://beta/tools/hammer/SKILL.md"],
      ["skill://Alpha/renamed", "skill://Alpha/renamed/SKILL.md"],
    ];
    for (const [uri, skillUri] of skillUris) {
      expect(await refusal(skills.get(uri), uri), uri).toEqual({
        code: -32602,
        // (refusal writes the URI asked as <uri>, in the skill's URI too.)
        message: `No skill is served at "<uri>": a skill's URI is that of its SKILL.md, here "${skillUri.replace(uri, "<uri>")}"`,
      });
    }
    // A group's folder is no skill's.
    expect(await refusal(skills.get("skill://beta/tools"), "skill://beta/tools")).toEqual({
      code: -32602,
      message: `No skill is served at "<uri>"${SKILLS_HINT}`,
    });
  });

  // Issue 26: a folder is commonly written with a trailing slash.
  it("a folder URI may end with one slash; a file URI may not", async () => {
    for (const folder of ["skill://beta", "skill://beta/tools", "skill://alpha/guide"]) {
      const children = (uri: string) => skills.readDirectory(uri).then((page) => page.resources);
      expect(await children(`${folder}/`)).toEqual(await children(folder));
      expect(await refusal(children(`${folder}//`), `${folder}//`)).toMatchObject({ code: -32602 });
    }
    const file = "skill://alpha/guide/references/intro.md/";
    expect(await read(client, file)).toEqual({
      code: -32602,
      message: `Resource not found: "${file}": a skill:// URI holds no empty segment (// or a / at its end)`,
    });
  });
});

describe("one scope everywhere", () => {
  /** What a client within `connect`'s scope sees of the extension, the prompts and the resources. */
  async function seen(client: Client) {
    const skills = new SkillsClient(client);
    return {
      skills: (await skills.list()).skills.map((skill) => skill.uri),
      prompts: (await client.listPrompts()).prompts.map((prompt) => prompt.name),
      resources: (await client.listResources()).resources.map((resource) => resource.uri),
      beta: (await skills.readDirectory("skill://beta")).resources.map((child) => child.uri),
    };
  }

  it.each(ERAS)(
    "X-Skill-Pack and ?pack= narrow skills, prompts, resources and folders alike (%s)",
    async (era) => {
      const expected = {
        skills: ["skill://beta/tools/hammer/SKILL.md", "skill://beta/tools/saw/SKILL.md"],
        prompts: ["hammer", "saw"],
        resources: [
          "skill://beta/tools/hammer/SKILL.md",
          "skill://beta/tools/saw/SKILL.md",
          "skill://beta/shared/guide.md",
          "skill://beta/tools/shared/tips.md",
        ],
        beta: ["skill://beta/shared", "skill://beta/tools"],
      };
      const byHeader = await server.connect({ era, headers: { "X-Skill-Pack": "beta/tools" } });
      expect(await seen(byHeader)).toEqual(expected);
      const byQuery = await server.connect({ era, query: "?pack=beta/tools" });
      expect(await seen(byQuery)).toEqual(expected);
      // The header is a ceiling: ?pack= narrows within it, never beyond.
      const both = await server.connect({ era, headers: { "X-Skill-Pack": "beta" }, query: "?pack=tools" });
      expect(await seen(both)).toEqual(expected);
    },
  );

  it.each(ERAS)(
    "out of scope reads exactly like missing, for skills, files, folders and prompts (%s)",
    async (era) => {
      const scoped = await server.connect({ era, headers: { "X-Skill-Pack": "beta/tools" } });
      const skills = new SkillsClient(scoped);
      const pairs: [string, string, (uri: string) => Promise<unknown>][] = [
        ["skill://alpha/guide/SKILL.md", "skill://alpha/nothing/SKILL.md", (uri) => skills.get(uri)],
        [
          "skill://alpha/guide/references/intro.md",
          "skill://alpha/guide/references/none.md",
          (uri) => scoped.readResource({ uri }),
        ],
        ["skill://alpha/guide", "skill://alpha/nothing", (uri) => skills.readDirectory(uri)],
        ["skill://alpha/guide", "skill://alpha/nothing", (uri) => scoped.readResource({ uri })],
        ["skill://alpha/guide", "skill://alpha/nothing", (uri) => skills.get(uri)],
        // Not "guide": a word of hammer's SKILL.md, so told "Did you mean: hammer?", which "nothing" is not.
        ["renamed", "nothing", (name) => scoped.getPrompt({ name })],
      ];
      for (const [hidden, missing, ask] of pairs) {
        expect(await refusal(ask(hidden), hidden)).toEqual(await refusal(ask(missing), missing));
      }
    },
  );

  it("SKILL_PACKS leaves the rest out of everything, not loaded at all", async () => {
    const narrowed = await startServer(tree.dir, ["gamma"]);
    try {
      const client = await narrowed.connect({ era: "modern" });
      const { skills } = await new SkillsClient(client).list();
      expect(skills.map((skill) => skill.uri)).toEqual([
        "skill://gamma/common/SKILL.md",
        "skill://gamma/games/games/SKILL.md",
        "skill://gamma/games/games/web/SKILL.md",
      ]);
      expect(await read(client, "skill://beta/shared/guide.md")).toMatchObject({ code: -32602 });
    } finally {
      await narrowed.close();
    }
  });

  it("PROMPTS=off leaves the prompts out, and nothing else", async () => {
    const quiet = await startServer(tree.dir, [], undefined, { PROMPTS: "off" });
    try {
      const client = await quiet.connect({ era: "modern" });
      expect(client.getServerCapabilities()?.prompts).toBeUndefined();
      const { body, headers } = wireRequest("modern", 1, "prompts/list");
      expect((await post(`${quiet.url}/mcp`, body, headers)).json).toMatchObject({ error: { code: -32601 } });
      expect((await new SkillsClient(client).list()).skills).toHaveLength(CARRIED.length);
    } finally {
      await quiet.close();
    }
  });
});

// A skill named as a group of its pack, or as a pack folder, had a folder in the namespace that held files
// not its own: a folder read of the skill listed them while its manifest did not, so a host took the skill
// for changed (the extension's stale-manifest case) on every read, and a skill below it for nested in it.
describe("a skill whose folder in the namespace holds what is not its own", () => {
  const served = serveTree(
    {
      "p/other/SKILL.md": skillMd("data", "Named as the group beside it."),
      "p/data/clean/SKILL.md": skillMd("clean", "A skill of group data."),
      "p/ren/SKILL.md": skillMd("shared", "Named as the pack folder beside it."),
      "p/shared/notes.md": "# Notes\n",
      "p/plain/SKILL.md": skillMd("plain", "Its folder holds its own files alone."),
      "p/plain/refs/r.md": "# R\n",
    },
    "modern",
  );

  it("is left out of the extension, which then lists only skills whose folders hold their files", async () => {
    const skills = new SkillsClient(served.client);
    const { skills: listed } = await skills.list();
    expect(listed.map((skill) => skill.uri)).toEqual([
      "skill://p/data/clean/SKILL.md",
      "skill://p/plain/SKILL.md",
    ]);
    for (const skill of listed) {
      const manifest = skill.resources === "dynamic" ? [] : skill.resources.map(({ uri }) => uri);
      const root = skill.uri.slice(0, -"/SKILL.md".length);
      const files = (await skills.readDirectory(root)).resources
        .filter((child) => child.mimeType !== "inode/directory")
        .map((child) => child.uri);
      expect(manifest).toEqual(expect.arrayContaining(files));
    }
    for (const uri of ["skill://p/data/SKILL.md", "skill://p/shared/SKILL.md"]) {
      expect(await refusal(skills.get(uri), uri)).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>"${SKILLS_HINT}`,
      });
    }
    expect(await read(served.client, "skill://p/shared/notes.md")).toEqual([
      { uri: "skill://p/shared/notes.md", mimeType: "text/markdown", text: "# Notes\n" },
    ]);
    for (const skill of ["p/data", "p/shared"]) {
      expect((await call(served.client, "read_skill", { skill })).isError).toBe(false);
    }
    expect(await (await fetch(`${served.server.url}/health`)).json()).toMatchObject({
      skills: 4,
      skillsExtension: { skills: 2, leftOut: 2 },
    });
  });
});

/** An absolute `skill://` URI as RFC 3986 writes it: a `reg-name`, then path segments of `pchar`s. */
const RFC_3986_SKILL_URI =
  /^skill:\/\/(?:[\w.~!$&'()*+,;=-]|%[\dA-F]{2})*(?:\/(?:[\w.~!$&'()*+,;=:@-]|%[\dA-F]{2})*)*$/;

describe.each(ERAS)("names RFC 3986 does not allow raw in a path, in the %s era", (era) => {
  const served = serveTree(
    {
      "p/[draft]/notes/SKILL.md": skillMd("notes", "Notes in a group whose name is bracketed."),
      "p/[draft]/notes/a[1]^b.md": "one\n",
      // The name the other's URI decodes to, were it spelled otherwise: it must keep a URI of its own.
      "p/[draft]/notes/a%5B1%5D%5Eb.md": "two\n",
    },
    era,
  );
  const SKILL = "skill://p/%5Bdraft%5D/notes/SKILL.md";

  // Regression: entries, folder reads and resources/list wrote `[`, `]` and `^` raw (`|` too, a name the catalog no
  // longer serves: Windows refuses it), as a WHATWG URL
  // does; a host parsing URIs by RFC 3986 refuses those, or encodes them into a URI the entry does not list.
  it("percent-encodes them in every URI it gives, each file's its own, and every file verifies", async () => {
    const skills = new SkillsClient(served.client);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    const [skill] = listing.skills;
    expect(skill?.uri).toBe(SKILL);
    if (skill === undefined || skill.resources === "dynamic") throw new Error("no manifest");
    expect(skill.resources.map(({ uri }) => uri)).toEqual([
      SKILL,
      "skill://p/%5Bdraft%5D/notes/a%255B1%255D%255Eb.md",
      "skill://p/%5Bdraft%5D/notes/a%5B1%5D%5Eb.md",
    ]);
    const texts = [];
    for (const { uri } of skill.resources) {
      expect(uri).toMatch(RFC_3986_SKILL_URI);
      const file = await skills.read(skill, uri);
      expect(file.verified).toBe(true);
      texts.push(file.text);
    }
    expect(texts.slice(1)).toEqual(["two\n", "one\n"]);
    expect((await skills.get(SKILL)).skill).toEqual(skill);
    const folders = [
      ...(await skills.readDirectory("skill://p")).resources,
      ...(await skills.readDirectory("skill://p/%5Bdraft%5D/notes")).resources,
      ...(await served.client.listResources()).resources,
    ];
    expect(folders.map(({ uri }) => uri)).toEqual([
      "skill://p/%5Bdraft%5D",
      ...skill.resources.map(({ uri }) => uri),
      SKILL,
    ]);
  });

  it("still answers the raw spelling entries had before, with the entry spelled so", async () => {
    const skills = new SkillsClient(served.client);
    const { skill } = await skills.get(SKILL);
    if (skill.resources === "dynamic") throw new Error("no manifest");
    const before = await skills.get("skill://p/[draft]/notes/SKILL.md");
    expect(before.skill).toEqual({
      ...skill,
      uri: "skill://p/[draft]/notes/SKILL.md",
      resources: [
        { ...skill.resources[0], uri: "skill://p/[draft]/notes/SKILL.md" },
        { ...skill.resources[1], uri: "skill://p/[draft]/notes/a%255B1%255D%255Eb.md" },
        { ...skill.resources[2], uri: "skill://p/[draft]/notes/a[1]%5Eb.md" },
      ],
    });
    const file = await skills.read(before.skill, "skill://p/[draft]/notes/a[1]%5Eb.md");
    expect([file.verified, file.text]).toEqual([true, "one\n"]);
    const children = (await skills.readDirectory("skill://p/[draft]/notes")).resources;
    expect(children.map(({ uri }) => uri)).toEqual(skill.resources.map(({ uri }) => uri));
  });
});

describe.each(ERAS)("a pack named in capitals, asked for in lowercase, in the %s era", (era) => {
  const served = serveTree(
    {
      "MyPack/tools/hammer/SKILL.md": skillMd("hammer", "Drive nails."),
      "MyPack/tools/hammer/references/grip.md": "# Grip\n",
      "MyPack/shared/tips.md": "# Tips\n",
    },
    era,
  );
  const LISTED = "skill://MyPack/tools/hammer/SKILL.md";
  const ASKED = "skill://mypack/tools/hammer/SKILL.md";

  // Regression: RFC 3986 makes a URI's host case-insensitive, and a host lowercasing it (as Python's
  // urlparse(...).hostname does) asked skill://mypack/..., which named nothing: the pack is `MyPack`.
  it("answers skills/get, reads and folder reads, spelling every URI of the answer as asked", async () => {
    const skills = new SkillsClient(served.client);
    const listing = await skills.list();
    expect(listing.skills.map(({ uri }) => uri)).toEqual([LISTED]);
    const { skill } = await skills.get(ASKED);
    if (skill.resources === "dynamic") throw new Error("no manifest");
    expect(skill.uri).toBe(ASKED);
    expect(skill.resources.map(({ uri }) => uri)).toEqual([
      ASKED,
      "skill://mypack/tools/hammer/references/grip.md",
    ]);
    for (const { uri } of skill.resources) expect((await skills.read(skill, uri)).verified).toBe(true);
    expect(await read(served.client, "skill://MYPACK/shared/tips.md")).toEqual([
      { uri: "skill://MYPACK/shared/tips.md", mimeType: "text/markdown", text: "# Tips\n" },
    ]);
    const folders = [
      ...(await skills.readDirectory("skill://mypack")).resources,
      ...(await skills.readDirectory("skill://mypack/tools/hammer/")).resources,
    ];
    expect(folders.map(({ uri }) => uri)).toEqual([
      "skill://mypack/shared",
      "skill://mypack/tools",
      ASKED,
      "skill://mypack/tools/hammer/references",
    ]);
  });

  it("still reads the path below the pack in its own case only", async () => {
    const skills = new SkillsClient(served.client);
    const uri = "skill://mypack/Tools/hammer/SKILL.md";
    expect(await refusal(skills.get(uri), uri)).toEqual({
      code: -32602,
      message: `No skill is served at "<uri>"${SKILLS_HINT}`,
    });
    expect(await read(served.client, uri)).toMatchObject({ code: -32602 });
  });
});

describe.each(ERAS)(
  "a pack named with a capital outside ASCII, asked for in lowercase, in the %s era",
  (era) => {
    const served = serveTree(
      {
        "Études/guide/SKILL.md": skillMd("guide", "Guide studies."),
        "Études/guide/references/plan.md": "# Plan\n",
      },
      era,
    );
    // The pack as listed, percent-encoded UTF-8: `É` is %C3%89; a host lowercasing the name, not its escapes
    // (Python's `urlparse(…).hostname` of the raw name, then quoted again), asks `é`, %C3%A9.
    const ASKED = "skill://%C3%A9tudes/guide/SKILL.md";

    // Regression: resources/read found the pack in that case, as it finds `MyPack` for `mypack`, but skills/get
    // refused the skill ("No skill is served"), and a folder read listed its children below the pack as listed,
    // outside the folder asked for, which the SDK's client refuses.
    it("answers skills/get and folder reads as resources/read does, spelling the answer as asked", async () => {
      const skills = new SkillsClient(served.client);
      expect((await skills.list()).skills.map(({ uri }) => uri)).toEqual([
        "skill://%C3%89tudes/guide/SKILL.md",
      ]);
      const { skill } = await skills.get(ASKED);
      if (skill.resources === "dynamic") throw new Error("no manifest");
      expect(skill.resources.map(({ uri }) => uri)).toEqual([
        ASKED,
        "skill://%C3%A9tudes/guide/references/plan.md",
      ]);
      for (const { uri } of skill.resources) expect((await skills.read(skill, uri)).verified).toBe(true);
      const children = (await skills.readDirectory("skill://%C3%A9tudes")).resources;
      expect(children.map(({ uri }) => uri)).toEqual(["skill://%C3%A9tudes/guide"]);
    });

    it("still takes no other spelling of the pack's characters as another case", async () => {
      const uri = "skill://%C3%89tude%73/guide/SKILL.md";
      expect(await refusal(new SkillsClient(served.client).get(uri), uri)).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>"${SKILLS_HINT}`,
      });
    });
  },
);

describe.each(ERAS)("relative links to files named with brackets, in the %s era", (era) => {
  const LINKS = ["references/a[1].md", "references/b%5B2%5D.md", "./references/a[1].md"];
  const body = `${LINKS.map((link) => `See [this](${link}).`).join("\n")}\n`;
  const served = serveTree(
    {
      "p/[draft]/notes/SKILL.md": skillMd("notes", "Notes in a bracketed group.", body),
      "p/[draft]/notes/references/a[1].md": "one\n",
      "p/[draft]/notes/references/b[2].md": "two\n",
      "p/plain/SKILL.md": skillMd("plain", "Notes at the top of the pack.", body),
      "p/plain/references/a[1].md": "three\n",
      "p/plain/references/b[2].md": "four\n",
    },
    era,
  );

  // A host resolves a SKILL.md's relative link against the skill's URI as a URL does, which keeps the
  // link's `[` and `]` raw while the manifest lists `%5B` and `%5D`: the URI it gets must read, and verify.
  it("reads the URI a URL makes of each link against the skill's URI, as the manifest's file", async () => {
    const skills = new SkillsClient(served.client);
    const texts: Record<string, unknown> = {};
    for (const skill of (await skills.list()).skills) {
      for (const link of LINKS) {
        const uri = new URL(link, skill.uri).href;
        const [content] = (await read(served.client, uri)) as { text?: unknown }[];
        const file = await skills.read(skill, uri);
        texts[uri] = [content?.text, file.verified, file.text];
      }
    }
    expect(texts).toEqual({
      "skill://p/%5Bdraft%5D/notes/references/a[1].md": ["one\n", true, "one\n"],
      "skill://p/%5Bdraft%5D/notes/references/b%5B2%5D.md": ["two\n", true, "two\n"],
      "skill://p/plain/references/a[1].md": ["three\n", true, "three\n"],
      "skill://p/plain/references/b%5B2%5D.md": ["four\n", true, "four\n"],
    });
  });
});

describe("files whose names tell no MIME type", () => {
  const served = serveTree(
    {
      "t/tooling/SKILL.md": skillMd("tooling", "Build tooling."),
      "t/tooling/Makefile": "all:\n\techo build\n",
      "t/tooling/scripts/deploy.rb": "puts 'deploy'\n",
      "t/tooling/assets/blob.dat": Buffer.from([0, 1, 2, 3, 0, 255]),
    },
    "modern",
  );

  // Regression: text files were read back as text labelled application/octet-stream, "arbitrary binary",
  // which a host may keep from its model; the extension asks each file a type appropriate to its content.
  it("reads a text file as text/plain, and a binary one as application/octet-stream", async () => {
    const types: Record<string, unknown> = {};
    for (const file of ["Makefile", "scripts/deploy.rb", "assets/blob.dat"]) {
      const [content] = (await read(served.client, `skill://t/tooling/${file}`)) as Record<string, unknown>[];
      types[file] = [content?.mimeType, "text" in (content ?? {}) ? "text" : "blob"];
    }
    expect(types).toEqual({
      Makefile: ["text/plain", "text"],
      "scripts/deploy.rb": ["text/plain", "text"],
      "assets/blob.dat": ["application/octet-stream", "blob"],
    });
  });
});

// A nested skill was published at skill://<pack>/<group>/<name>/SKILL.md, beside the skill around it rather
// than below it: a host that followed the extension found its SKILL.md twice, once in the outer skill's
// manifest at a URI that skills/get said named no skill, and once as a skill of its own at a URI sharing
// no path with the outer one (skill://n/g/inner/SKILL.md for n/g/outer/inner).
describe("nested skills", () => {
  const served = serveTree(
    {
      "n/kit/SKILL.md": skillMd("kit", "A collection of skills."),
      "n/kit/notes.md": "# Kit notes\n",
      "n/kit/web/SKILL.md": skillMd("web", "Web, nested in kit."),
      "n/kit/web/engine.js": "export const engine = 2;\n",
      "n/kit/web/more/SKILL.md": skillMd("more", "Nested in web, nested in kit."),
      "n/kit/tools/deep/SKILL.md": skillMd("deep", "Two folders below kit."),
      "n/g/outer/SKILL.md": skillMd("outer", "In group g, holding a skill."),
      "n/g/outer/inner/SKILL.md": skillMd("inner", "Nested in outer."),
      "n/g/outer/inner/x.md": "# X\n",
      // Named otherwise than its folder: a URI ending with its name is no file of outer, so it stays beside.
      "n/g/outer/ren/SKILL.md": skillMd("renamed", "Its folder is named ren."),
      "n/plain/SKILL.md": skillMd("plain", "Nested in nothing."),
      "r/SKILL.md": skillMd("r", "The pack's own folder, holding a skill."),
      "r/r.md": "# R\n",
      "r/grp/y/SKILL.md": skillMd("y", "Nested in r, in group grp."),
      "r/grp/y/y.md": "# Y\n",
    },
    "modern",
  );

  /** Every file below a folder URI, read folder by folder. */
  async function filesBelow(skills: SkillsClient, uri: string): Promise<string[]> {
    const files: string[] = [];
    for (const child of (await skills.readDirectory(uri)).resources) {
      if (child.mimeType === "inode/directory") files.push(...(await filesBelow(skills, child.uri)));
      else files.push(child.uri);
    }
    return files.sort();
  }

  it("publishes each below the skill it is nested in; every manifest is its folder's files, and verifies", async () => {
    const skills = new SkillsClient(served.client);
    const { skills: listed, invalid } = await skills.list();
    expect(invalid).toEqual([]);
    expect(listed.map((skill) => skill.uri)).toEqual([
      "skill://n/g/outer/SKILL.md",
      "skill://n/g/outer/inner/SKILL.md",
      "skill://n/g/renamed/SKILL.md",
      "skill://n/kit/kit/SKILL.md",
      "skill://n/kit/kit/tools/deep/SKILL.md",
      "skill://n/kit/kit/web/SKILL.md",
      "skill://n/kit/kit/web/more/SKILL.md",
      "skill://n/plain/SKILL.md",
      "skill://r/r/SKILL.md",
      "skill://r/r/grp/y/SKILL.md",
    ]);
    for (const skill of listed) {
      if (skill.resources === "dynamic") throw new Error(`${skill.uri} has dynamic resources`);
      const manifest = skill.resources.map(({ uri }) => uri).sort();
      expect(await filesBelow(skills, skill.uri.slice(0, -"/SKILL.md".length))).toEqual(manifest);
      for (const { uri } of skill.resources) expect((await skills.read(skill, uri)).verified).toBe(true);
      expect((await skills.get(skill.uri)).skill).toEqual(skill);
    }
    const kit = listed.find((skill) => skill.frontmatter.name === "kit");
    expect(kit?.resources !== "dynamic" && kit?.resources.map(({ uri }) => uri)).toEqual([
      "skill://n/kit/kit/SKILL.md",
      "skill://n/kit/kit/notes.md",
      "skill://n/kit/kit/tools/deep/SKILL.md",
      "skill://n/kit/kit/web/SKILL.md",
      "skill://n/kit/kit/web/engine.js",
      "skill://n/kit/kit/web/more/SKILL.md",
    ]);
  });

  it("answers the URIs nested skills had before as naming no skill", async () => {
    const skills = new SkillsClient(served.client);
    for (const uri of [
      "skill://n/kit/web/SKILL.md",
      "skill://n/kit/deep/SKILL.md",
      "skill://n/kit/more/SKILL.md",
      "skill://n/g/inner/SKILL.md",
    ]) {
      expect(await refusal(skills.get(uri), uri)).toEqual({
        code: -32602,
        message: `No skill is served at "<uri>"${SKILLS_HINT}`,
      });
    }
  });

  it("serves a nested skill's files, also the skill's around it, to a scope holding only the nested one", async () => {
    // The pack's own folder is skill r; group grp holds only y, nested in r.
    const scoped = await served.server.connect({ era: "modern", headers: { "X-Skill-Pack": "r/grp" } });
    const skills = new SkillsClient(scoped);
    const { skills: listed } = await skills.list();
    expect(listed.map((skill) => skill.uri)).toEqual(["skill://r/r/grp/y/SKILL.md"]);
    const [y] = listed;
    if (y === undefined) throw new Error("no skill listed");
    expect((await skills.read(y, "y.md")).text).toBe("# Y\n");
    expect(await filesBelow(skills, "skill://r/r")).toEqual([
      "skill://r/r/grp/y/SKILL.md",
      "skill://r/r/grp/y/y.md",
    ]);
    expect(await read(scoped, "skill://r/r/SKILL.md")).toMatchObject({ code: -32602 });
    expect(await read(scoped, "skill://r/r/r.md")).toMatchObject({ code: -32602 });
    const everything = new SkillsClient(served.client);
    expect((await everything.get("skill://r/r/SKILL.md")).skill.resources).toHaveLength(4);
  });

  it("leaves the tools as they were: each skill by its name, and its URI, old or new, answered with its call", async () => {
    for (const skill of ["kit", "web", "more", "deep", "outer", "inner", "renamed"]) {
      expect((await call(served.client, "read_skill", { skill })).isError).toBe(false);
    }
    for (const file of ["skill://n/g/outer/inner/x.md", "skill://n/g/inner/x.md"]) {
      expect(await call(served.client, "read_pack_file", { pack: "n", file })).toEqual({
        isError: true,
        text: `"${file}" is a path of skill inner: read_skill(skill="inner", file="x.md").`,
      });
    }
    // Its URI lies below the skill around it, which holds the same file: the nested skill is named.
    for (const skill of ["skill://n/kit/kit/web/SKILL.md", "skill://n/kit/web/SKILL.md"]) {
      expect(await call(served.client, "read_skill", { skill })).toEqual({
        isError: true,
        text: `"${skill}" is a path of skill web: read_skill(skill="web").`,
      });
    }
  });
});

// Each skill's walk follows symlinks within its own folder: the skill around a nested one may hold other
// files in its folder than the nested one does. Published below it, either would have held files in its
// namespace folder that its manifest lacks, and been left out of the extension.
describe("a nested skill whose files are not those the skill around it holds in its folder", () => {
  const served = serveTree(
    {
      "s/outer/SKILL.md": skillMd("outer", "Holds a file in inner's folder that inner does not."),
      "s/outer/notes.md": "# Notes\n",
      "s/outer/inner/SKILL.md": skillMd("inner", "Its link leads out of its folder."),
      "s/outer/inner/link.md": { symlink: "../notes.md" },
      "t/around/SKILL.md": skillMd("around", "Walks sub through its link a first."),
      "t/around/a": { symlink: "within/sub" },
      "t/around/within/SKILL.md": skillMd("within", "Holds sub, which around holds as a/."),
      "t/around/within/sub/x.md": "# X\n",
    },
    "modern",
  );

  it("stays beside it, and both are carried", async () => {
    const { skills: listed } = await new SkillsClient(served.client).list();
    expect(listed.map((skill) => skill.uri)).toEqual([
      "skill://s/outer/inner/SKILL.md",
      "skill://s/outer/outer/SKILL.md",
      "skill://t/around/around/SKILL.md",
      "skill://t/around/within/SKILL.md",
    ]);
    expect(await (await fetch(`${served.server.url}/health`)).json()).toMatchObject({
      skillsExtension: { skills: 4, leftOut: 0 },
    });
  });
});

// What a host checks is the bytes it reads back (text as UTF-8, a blob decoded) against the entry: line
// endings, a BOM, separators JSON escapes and bytes that are not UTF-8 must all come back as on disk.
describe.each(ERAS)("files whose bytes a careless read would change (%s)", (era) => {
  const odd = {
    "e/crlf/SKILL.md": skillMd("crlf", "Written with CRLF line endings.").replaceAll("\n", "\r\n"),
    "e/crlf/notes.md": "one\r\ntwo\r\n",
    "e/crlf/old-mac.txt": "one\rtwo\r",
    "e/bom/SKILL.md": `\uFEFF${skillMd("bom", "Starts with a byte order mark.")}`,
    "e/bom/notes.txt": "\uFEFFwith a BOM\n",
    "e/bom/empty.md": "",
    "e/bom/separators.txt": "a\u2028b\u2029c\n",
    "e/bom/latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    "e/bom/nul-bytes.txt": Buffer.from("abc\0def\n"),
    "e/bom/a b%20é#;.md": "a name a URI must encode\n",
  };
  // A line separator is a high finding of the audit, which would leave its skill out: served all the same.
  const served = serveTree(odd, era, { UNSAFE_SKILLS: "serve" });

  it("each reads back as the very bytes its digest and size cover, and SKILL.md as its frontmatter", async () => {
    const skills = new SkillsClient(served.client);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    let checked = 0;
    for (const skill of listing.skills) {
      if (skill.resources === "dynamic") throw new Error(`${skill.uri} has dynamic resources`);
      for (const { uri } of skill.resources) {
        expect((await skills.read(skill, uri)).verified).toBe(true);
        checked++;
      }
    }
    expect(checked).toBe(Object.keys(odd).length);
  });
});

// Regression: over stdio as over HTTP, a read of a long URI naming nothing quoted it whole in the message,
// beside `data.uri`.
describe.each(ERAS)("a long URI naming nothing, over stdio (%s)", (era) => {
  it("is quoted cut in the message, and whole in its data", async () => {
    const uri = `skill://alpha/${"x".repeat(40_000)}`;
    const stdio = stdioServerProcess({
      PATH: process.env.PATH ?? "",
      SKILLS_DIR: tree.dir,
      NODE_OPTIONS: "",
    });
    try {
      // Regression: skills/get and resources/directory/read sent the 40,000 characters back in the message
      // too, the latter calling a URI that names nothing "not a directory resource".
      stdio.write(`${JSON.stringify(wireRequest(era, 4, "resources/read", { uri }).body)}\n`);
      stdio.write(`${JSON.stringify(wireRequest(era, 5, "skills/get", { uri }).body)}\n`);
      stdio.write(`${JSON.stringify(wireRequest(era, 6, "resources/directory/read", { uri }).body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(3), { timeout: 30_000 });
      const quoted = `"${uri.slice(0, 100)}…"`;
      expect(stdio.answers().sort((a, b) => Number(a.id) - Number(b.id))).toEqual(
        [
          `Resource not found: ${quoted}${READ_HINT}`,
          `No skill is served at ${quoted}${SKILLS_HINT}`,
          `Nothing is served at ${quoted}${READ_HINT}`,
        ].map((message, index) => ({
          jsonrpc: "2.0",
          id: 4 + index,
          error: { code: -32602, message, data: { uri } },
        })),
      );
    } finally {
      await stdio.end();
    }
  });
});
