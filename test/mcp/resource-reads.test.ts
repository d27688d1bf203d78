/**
 * `resources/read` and `prompts/get` of files that changed or vanished since the catalog was loaded: a
 * clear answer in both protocol eras, never a path of the server.
 */
import { unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, ERAS, type RunningServer, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

let tree: TempTree;
let server: RunningServer;
beforeAll(async () => {
  tree = await makeTree({
    "big/reader/SKILL.md": skillMd("reader", "Reads big files."),
    "big/vanishing/SKILL.md": skillMd("vanishing", "Its SKILL.md goes away."),
    "big/gone.md": "# Here at load time\n",
    "big/grown.md": "# Grows after load\n",
  });
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
