/**
 * `resources/read` and `prompts/get` of files that are too large to carry, or that changed or vanished
 * since the catalog was loaded: a clear answer in both protocol eras, never the whole file and never a
 * path of the server.
 */
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { mkdir, rm, symlink, truncate, unlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  call,
  ERAS,
  httpSettings,
  post,
  type RunningServer,
  serveTree,
  startServer,
} from "../helpers/server.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

const MiB = 1024 * 1024;
/** Over the 8 MiB a read carries, in numbered lines, so that where the text is cut shows. */
const HUGE_TEXT = Array.from(
  { length: 400_000 },
  (_, i) => `line ${i} of a huge pack file, forty bytes\n`,
).join("");

/** Control characters but NUL, tab, line feed, form feed and carriage return, with a little text. */
const CONTROLS = Buffer.from([
  ...Buffer.from("id:"),
  ...Array.from({ length: 0x20 }, (_, byte) => byte).filter((byte) => ![0, 9, 10, 12, 13].includes(byte)),
  0x7f,
]);

/** 8 KiB of text up front, then 64 KiB of control characters: text to a look at its start. */
const CONTROLS_BEHIND = Buffer.concat([
  Buffer.from("plain line of text\n".repeat(432)),
  Buffer.alloc(64 * 1024, 1),
]);
/** 8 KiB of text up front, then control characters to 256 KiB: 1.5 MiB as JSON text. */
const CONTROLS_TO_THE_CAP = Buffer.concat([
  Buffer.from("plain line of text\n".repeat(432)),
  Buffer.alloc(256 * 1024 - 432 * 19, 1),
]);
/** A fifteenth control characters, the rest quotes: under the rule of base64, yet 2.3 times its size as JSON. */
const QUOTES_AND_CONTROLS = Buffer.from(`${"\x01"}${'"'.repeat(14)}`.repeat(4096));
/** Files that become FIFOs after the load: more than libuv's four threads, which a blocked open holds. */
const PIPED = ["big/piped-1.md", "big/piped-2.md", "big/piped-3.md", "big/piped-4.md", "big/piped-5.md"];
const COLORS = "\x1b[31mred\x1b[0m and plain words after it, line after line\n".repeat(200);

let tree: TempTree;
let server: RunningServer;
beforeAll(async () => {
  tree = await makeTree({
    "big/reader/SKILL.md": skillMd("reader", "Reads big files."),
    "big/reader/edited.md": "# Notes, version 1\n",
    "big/heavy/SKILL.md": skillMd("heavy", "Carries a file larger than a read carries."),
    "big/vanishing/SKILL.md": skillMd("vanishing", "Its SKILL.md goes away."),
    "big/huge.txt": HUGE_TEXT,
    "big/gone.md": "# Here at load time\n",
    "big/grown.md": "# Grows after load\n",
    ...Object.fromEntries(PIPED.map((file) => [file, "# A plain file at load time\n"])),
    "big/relinked.md": "# A plain file at load time\n",
    "big/moved/notes.md": "# In a folder at load time\n",
    "big/steady.md": "# Stays as it was\n",
    // Valid UTF-8, binary by the NUL up front.
    "big/padded.bin": Buffer.from("\0\0\0\0 a header, then text\n"),
    // Valid UTF-8 without a NUL, but mostly control characters.
    "big/controls.dat": CONTROLS,
    "big/controls-behind.txt": CONTROLS_BEHIND,
    "big/controls-to-the-cap.txt": CONTROLS_TO_THE_CAP,
    "big/quotes.txt": QUOTES_AND_CONTROLS,
    // Text with a few terminal escapes: still text.
    "big/colors.txt": COLORS,
    "other/hidden/SKILL.md": skillMd("hidden", "A skill outside the scope of a caller of pack big."),
  });
  // Sparse: MiBs of NUL bytes, binary by any measure, that cost no disk.
  for (const [file, size] of [
    ["big/huge.bin", 17 * MiB],
    ["big/heavy/assets/video.bin", 9 * MiB],
    ["big/seven.bin", 7 * MiB],
    ["other/hidden/assets/seven.bin", 7 * MiB],
  ] as const) {
    await mkdir(path.dirname(path.join(tree.dir, file)), { recursive: true });
    await writeFile(path.join(tree.dir, file), "");
    await truncate(path.join(tree.dir, file), size);
  }
  server = await startServer(tree.dir);
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

/** What a read of `uri` gives a client: its contents, or the JSON-RPC error's code and message. */
async function read(client: Client, uri: string): Promise<unknown> {
  try {
    return (await client.readResource({ uri })).contents;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { code, message };
  }
}

describe.each(ERAS)("files too large to carry (%s)", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await server.connect({ era });
  });

  // Regression (issue 24): a read carried any file whole, so parallel reads of one 15 MB file took the
  // server's memory past 1 GB.
  it("a text file over 8 MiB: its first 256 KiB, cut at a line, and a note saying why", async () => {
    const [content] = (await read(client, "skill://big/huge.txt")) as { text: string; mimeType: string }[];
    expect(content?.mimeType).toBe("text/plain");
    const text = content?.text ?? "";
    expect(text.startsWith("line 0 of a huge pack file")).toBe(true);
    expect(text).toMatch(
      /forty bytes\n\n\n\[skill:\/\/big\/huge\.txt is 17\.1 MiB, over the 8\.0 MiB a resource read carries: this is its first 25\d\.\d KiB\.\]$/,
    );
    expect(text.length).toBeLessThan(257 * 1024);
  });

  // Regression: a file with NULs that decodes as UTF-8 was sent as text, each NUL six bytes of JSON (a
  // 7 MiB file of them, 44 MB), though the tools and the audit take it for binary.
  it("a file with a NUL up front is a blob, binary as the tools and the audit tell it", async () => {
    expect(await read(client, "skill://big/padded.bin")).toEqual([
      {
        uri: "skill://big/padded.bin",
        mimeType: "application/octet-stream",
        blob: Buffer.from("\0\0\0\0 a header, then text\n").toString("base64"),
      },
    ]);
  });

  // Regression: a file of control characters but NUL was sent as text by resources/read and
  // read_pack_file alike, each character six bytes of JSON (\u0001).
  it("a file mostly of control characters is a blob, and a binary file to read_pack_file", async () => {
    expect(await read(client, "skill://big/controls.dat")).toEqual([
      {
        uri: "skill://big/controls.dat",
        mimeType: "application/octet-stream",
        blob: CONTROLS.toString("base64"),
      },
    ]);
    expect(await call(client, "read_pack_file", { pack: "big", file: "controls.dat" })).toEqual({
      text: `controls.dat is a binary file of ${CONTROLS.length} B; binary files are not shown as text.`,
      isError: false,
    });
  });

  // Regression: text up front hid 64 KiB of control characters behind it, sent as 384 KiB of JSON text.
  it("a file whose control characters would weigh more as JSON text than as base64 is a blob", async () => {
    expect(await read(client, "skill://big/controls-behind.txt")).toEqual([
      {
        uri: "skill://big/controls-behind.txt",
        mimeType: "text/plain",
        blob: CONTROLS_BEHIND.toString("base64"),
      },
    ]);
    expect(await read(client, "skill://big/colors.txt")).toEqual([
      { uri: "skill://big/colors.txt", mimeType: "text/plain", text: COLORS },
    ]);
  });

  // Regression: 8 KiB of text, then control characters to the 256 KiB a tool shows: read_pack_file
  // answered 1.5 MiB of JSON for a read the budget of answers counts as 256 KiB.
  it("a tool shows no text that JSON spells in more than twice the 256 KiB it counts", async () => {
    const answer = await call(client, "read_pack_file", { pack: "big", file: "controls-to-the-cap.txt" });
    expect(answer.isError).toBe(false);
    expect(JSON.stringify(answer.text).length).toBeLessThanOrEqual(512 * 1024 + 200);
    expect(answer.text.startsWith("plain line of text\n".repeat(432))).toBe(true);
    expect(answer.text).toMatch(
      /\n\n\[controls-to-the-cap\.txt is cut here: showing the first \d+\.\d KiB of 256\.0 KiB; the tools serve no more of it\.\]$/,
    );
  });

  // Regression: within the rule of base64 (a fifteenth control characters), quotes made the text 2.3 times
  // the file as JSON.
  it("a file JSON spells in more than twice its bytes is a blob", async () => {
    expect(await read(client, "skill://big/quotes.txt")).toEqual([
      { uri: "skill://big/quotes.txt", mimeType: "text/plain", blob: QUOTES_AND_CONTROLS.toString("base64") },
    ]);
  });

  it("a binary file over 8 MiB: a note instead of its bytes", async () => {
    expect(await read(client, "skill://big/huge.bin")).toEqual([
      {
        uri: "skill://big/huge.bin",
        mimeType: "text/plain",
        text: "skill://big/huge.bin is 17.0 MiB, over the 8.0 MiB a resource read carries: it is a binary file, not sent.",
      },
    ]);
  });
});

describe("what one request may read", () => {
  it("a skill with a file over 8 MiB is left out of the Skills extension; the tools serve it", async () => {
    const client = await server.connect({ era: "modern" });
    const uri = "skill://big/heavy/SKILL.md";
    expect(
      await new SkillsClient(client).get(uri).then(
        () => "served",
        (error: Error) => error.message,
      ),
    ).toBe(`No skill is served at "${uri}"; skills/list gives the URIs of the skills served`);
    expect((await call(client, "read_skill", { skill: "heavy" })).isError).toBe(false);
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({
      skillsExtension: { leftOut: 1 },
    });
  });

  // Regression (issue 24): a batch read any number of files into one answer.
  it("a batch that may read more than 8 MiB of files is refused, saying what to do instead", async () => {
    const read = { jsonrpc: "2.0", method: "resources/read", params: { uri: "skill://big/seven.bin" } };
    const twice = await post(`${server.url}/mcp`, [
      { ...read, id: 1 },
      { ...read, id: 2 },
    ]);
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message:
          "Invalid request: this batch may read 14.0 MiB of files and skill entries, and one request may read at most 8.0 MiB; send its reads in smaller batches.",
      },
      id: null,
    });
    const small = { ...read, params: { uri: "skill://big/reader/SKILL.md" } };
    const within = await post(`${server.url}/mcp`, [
      { ...small, id: 1 },
      { ...small, id: 2 },
    ]);
    expect(within.status).toBe(200);
    expect(within.json).toMatchObject([
      { id: 1, result: {} },
      { id: 2, result: {} },
    ]);
  });

  // Regression: what a batch may read was weighed over the whole catalog, so a caller of one pack told a
  // file of another from a missing one (and its size) by whether its batch was refused.
  it("weighs a batch in its caller's scope: a file outside it weighs what a missing one does", async () => {
    const batchReading = async (uri: string) => {
      const answer = await post(
        `${server.url}/mcp`,
        [
          { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "skill://big/seven.bin" } },
          { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } },
        ],
        { "mcp-protocol-version": "2025-11-25", "x-skill-pack": "big" },
      );
      return { status: answer.status, second: (answer.json as { error?: unknown }[])[1]?.error };
    };
    const outside = await batchReading("skill://other/hidden/assets/seven.bin");
    const missing = await batchReading("skill://other/hidden/assets/eight.bin");
    expect(outside.status).toBe(200);
    expect(outside.second).toMatchObject({ message: expect.stringMatching(/not found/i) });
    expect(JSON.stringify(outside.second).replaceAll("seven", "eight")).toBe(JSON.stringify(missing.second));
    // In the whole catalog's scope the same batch is what it weighs.
    const unscoped = await post(
      `${server.url}/mcp`,
      ["skill://big/seven.bin", "skill://other/hidden/assets/seven.bin"].map((uri, id) => ({
        jsonrpc: "2.0",
        id,
        method: "resources/read",
        params: { uri },
      })),
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(unscoped.status).toBe(400);
  });
});

describe("a client that never takes its answer", () => {
  // Regression (issue 24): an answer a client does not read stays in the server's memory as long as the
  // connection lasts, and once such answers hold the budget of file bytes, no other file is read.
  it("loses its connection after REQUEST_TIMEOUT_MS, and its share of file bytes", {
    timeout: 60_000,
  }, async () => {
    const patient = await startServer(
      tree.dir,
      [],
      httpSettings({ REQUEST_TIMEOUT_MS: "500", SHED_EVENT_LOOP_DELAY_MS: "0" }),
    );
    const socket = net.connect(Number(new URL(patient.url).port), "127.0.0.1");
    try {
      // Asks for a 7 MiB file (9 MB of base64, more than the socket's buffers take), then never reads.
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/read",
        params: { uri: "skill://big/seven.bin" },
      });
      socket.pause();
      // Once the server writes this answer it holds its share; a second read sent before that could take
      // the budget first. Unread, the bytes wait in the socket's buffers.
      const answering = new Promise((resolve) => socket.once("readable", resolve));
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const closed = new Promise((resolve) => socket.once("close", resolve));
      await answering;
      // Its share and another read's are more than the budget: this one is answered once the first is gone.
      const next = await post(`${patient.url}/mcp`, {
        jsonrpc: "2.0",
        id: 2,
        method: "resources/read",
        params: { uri: "skill://big/seven.bin" },
      });
      expect(next.status).toBe(200);
      socket.resume();
      await closed;
      expect(socket.bytesRead).toBeLessThan(9 * MiB);
    } finally {
      socket.destroy();
      await patient.close();
    }
  });
});

describe("files that changed or vanished since the catalog was loaded", () => {
  // Regression (issue 24): the SDK's error carried the file's absolute path to the client.
  it.each(ERAS)("resources/read and prompts/get say so without a path of the server (%s)", async (era) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const client = await server.connect({ era });
      await unlink(path.join(tree.dir, "big/gone.md")).catch(() => {});
      await writeFile(path.join(tree.dir, "big/grown.md"), "# Grows after load, and it grew\n");
      for (const uri of ["skill://big/gone.md", "skill://big/grown.md"]) {
        expect(await read(client, uri)).toEqual({
          code: -32603,
          message: `${uri} could not be read inside the server; the error was logged. Try again or read another resource.`,
        });
      }
      await unlink(path.join(tree.dir, "big/vanishing/SKILL.md")).catch(() => {});
      const prompt = await client.getPrompt({ name: "vanishing" }).then(
        () => "served",
        (error: { code?: unknown; message?: unknown }) => ({ code: error.code, message: error.message }),
      );
      expect(prompt).toEqual({
        code: -32603,
        message:
          'Prompt "vanishing" could not be read inside the server; the error was logged. Try again or pick another prompt.',
      });
      // As the tools already answered it.
      expect(await call(client, "read_skill", { skill: "vanishing" })).toEqual({
        text: "read_skill failed inside the server; the error was logged. Try again or make another call.",
        isError: true,
      });
      // The operator's log has what the client is not told: which file, and why.
      const details = logged.mock.calls.map((args) => String(args[0]));
      expect(details.some((detail) => detail.includes(path.join(tree.dir, "big/gone.md")))).toBe(true);
      expect(details.some((detail) => detail.includes(path.join(tree.dir, "big/grown.md")))).toBe(true);
      expect(details.some((detail) => detail.includes(path.join(tree.dir, "big/vanishing/SKILL.md")))).toBe(
        true,
      );
    } finally {
      logged.mockRestore();
    }
  });
});

describe("a skill file edited in place since the catalog was loaded, its size kept", () => {
  // Regression: the read sent the new bytes, which the digest of the skill's entry (made at startup, and
  // given again by skills/get, the host's way to refresh it) no longer matched: a host checking them
  // could neither use the file nor recover, and nothing said why. A fix of a typo keeps a file's size.
  it.each(ERAS)(
    "resources/read refuses it as a file that changed, never bytes against its digest (%s)",
    async (era) => {
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const client = await server.connect({ era });
        const uri = "skill://big/reader/edited.md";
        await writeFile(path.join(tree.dir, "big/reader/edited.md"), "# Notes, version 2\n");
        expect(await read(client, uri)).toEqual({
          code: -32603,
          message: `${uri} could not be read inside the server; the error was logged. Try again or read another resource.`,
        });
        const details = logged.mock.calls.map((args) => String(args[0]));
        expect(
          details.some((detail) => detail.includes("edited.md changed since the catalog was loaded")),
        ).toBe(true);
        // The skill's other files still verify against its entry.
        const skills = new SkillsClient(client);
        const { skill } = await skills.get("skill://big/reader/SKILL.md");
        expect((await skills.read(skill)).verified).toBe(true);
      } finally {
        logged.mockRestore();
      }
    },
  );
});

describe("files that became a FIFO or a symlink, or moved, since the catalog was loaded", () => {
  // Regression: a read opened such a FIFO and waited for a writer for good, holding one of libuv's four
  // threads; after four, no file of any skill could be read any more, and the answers never came. And a
  // file, or a folder on its path, replaced by a symlink was followed wherever it led.
  it("answers each read with an error, and keeps serving the other files", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const fifos = PIPED.map((file) => path.join(tree.dir, file));
    try {
      const client = await server.connect({ era: "legacy" });
      for (const fifo of fifos) {
        await unlink(fifo);
        execFileSync("mkfifo", [fifo]);
      }
      const secret = path.join(tree.dir, "secret.txt");
      await writeFile(secret, "a secret beside the skills folder\n");
      await unlink(path.join(tree.dir, "big/relinked.md"));
      await symlink(secret, path.join(tree.dir, "big/relinked.md"));
      // A folder on the path replaced by a symlink to one outside, holding a file of the same name.
      await mkdir(path.join(tree.dir, "elsewhere"));
      await writeFile(path.join(tree.dir, "elsewhere/notes.md"), "a secret beside the skills folder\n");
      await rm(path.join(tree.dir, "big/moved"), { recursive: true });
      await symlink(path.join(tree.dir, "elsewhere"), path.join(tree.dir, "big/moved"));
      const failed = {
        text: "read_pack_file failed inside the server; the error was logged. Try again or make another call.",
        isError: true,
      };
      for (const file of [...PIPED, "big/relinked.md", "big/moved/notes.md"]) {
        expect(
          await call(client, "read_pack_file", { pack: "big", file: file.slice("big/".length) }),
        ).toEqual(failed);
      }
      expect(await read(client, "skill://big/piped-1.md")).toEqual({
        code: -32603,
        message:
          "skill://big/piped-1.md could not be read inside the server; the error was logged. Try again or read another resource.",
      });
      expect(await call(client, "read_pack_file", { pack: "big", file: "steady.md" })).toEqual({
        text: expect.stringContaining("# Stays as it was"),
        isError: false,
      });
      const details = logged.mock.calls.map((args) => String(args[0]));
      expect(details.some((detail) => detail.includes("piped-1.md is no longer a regular file"))).toBe(true);
      expect(details.some((detail) => detail.includes("notes.md now leads elsewhere"))).toBe(true);
    } finally {
      logged.mockRestore();
      // Without the fix, a writer lets the opens left waiting go.
      for (const fifo of fifos) closeSync(openSync(fifo, constants.O_RDWR));
    }
  });
});

describe("skills whose manifests are large", () => {
  // A skill's entry lists each of its files (up to 512), with its digest: these 16 skills' entries take
  // some 1.3 MB, where 100 ordinary skills take some 50 KB.
  const WIDE_SKILLS = 16;
  const wide: Record<string, string> = {};
  for (let skill = 0; skill < WIDE_SKILLS; skill++) {
    const name = `wide-${String(skill).padStart(2, "0")}`;
    wide[`wide/${name}/SKILL.md`] = skillMd(name, "Cites many reference files.");
    for (let file = 0; file < 250; file++) {
      wide[`wide/${name}/references/${"a-long-reference-file-name-".repeat(5)}${file}.md`] = `${file}\n`;
    }
  }
  const served = serveTree(wide);
  const list = (batch: number, cursor?: string) =>
    post(
      `${served.server.url}/mcp`,
      Array.from({ length: batch }, (_, id) => ({
        jsonrpc: "2.0",
        id,
        method: "skills/list",
        ...(cursor === undefined ? {} : { params: { cursor } }),
      })),
    );

  // Regression: a page held 100 skills whatever their manifests, so a page of such skills took some
  // 9 MB, made afresh for every request, and a batch of 100 of them held the server for half a minute.
  it("skills/list ends a page before its answer reaches 1 MiB, and the pages list every skill once", async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const answer = await list(1, cursor);
      expect(answer.status).toBe(200);
      expect(answer.text.length).toBeLessThan(MiB);
      const [page] = answer.json as { result: { skills: { uri: string }[]; nextCursor?: string } }[];
      uris.push(...(page?.result.skills.map((skill) => skill.uri) ?? []));
      cursor = page?.result.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < WIDE_SKILLS);
    expect(pages).toBeGreaterThan(1);
    expect(uris).toEqual(
      Object.keys(wide)
        .filter((file) => file.endsWith("SKILL.md"))
        .map((file) => `skill://${file}`),
    );
  });

  it("a batch of skills/list whose pages hold more than 8 MiB is refused, as a batch of reads is", async () => {
    const refused = await list(20);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: {
        code: -32600,
        message: expect.stringMatching(
          /^Invalid request: this batch may read \d+\.\d MiB of files and skill entries/,
        ),
      },
    });
    expect((await list(2)).status).toBe(200);
  });
});
