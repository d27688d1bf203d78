import { rename } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnswerCache, ASKED_ONCE_CHARACTERS, answerKey } from "../../src/http/answers.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

/** Answers the catalog always gives the same way are kept; these tests hold that to the uncached path. */

let tree: StandardCatalog;
let server: RunningServer;
beforeAll(async () => {
  tree = await makeStandardCatalog();
  server = await startServer(tree.skillsDir);
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

function toolCall(id: number | string, name: string, args: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

describe("kept answers", () => {
  it.each([
    ["tools/list", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
    ["list_packs", toolCall(1, "list_packs")],
    ["list_skills(pack)", toolCall(1, "list_skills", { pack: "beta" })],
    ["read_skill", toolCall(1, "read_skill", { skill: "two" })],
    ["read_pack_file", toolCall(1, "read_pack_file", { pack: "beta", file: "shared/guide.md" })],
  ])("%s: the same bytes as the MCP server gives, for any id", async (_name, request) => {
    const first = await post(`${server.url}/mcp`, request);
    const again = await post(`${server.url}/mcp`, request);
    // A batch of one is never kept, so it shows what the server itself answers.
    const uncached = await post(`${server.url}/mcp`, [request]);
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(uncached.text).toBe(first.text);
    const otherId = await post(`${server.url}/mcp`, { ...request, id: "other" });
    expect(otherId.json).toEqual({ ...(first.json as object), id: "other" });
  });

  it("never gives one ceiling's answer to another", async () => {
    const request = toolCall(1, "list_skills");
    const alpha = await post(`${server.url}/mcp`, request, { "x-skill-pack": "alpha" });
    const gamma = await post(`${server.url}/mcp`, request, { "x-skill-pack": "gamma" });
    const again = await post(`${server.url}/mcp`, request, { "x-skill-pack": "alpha" });
    expect(alpha.text).toContain("one: ");
    expect(gamma.text).not.toContain("one: ");
    expect(gamma.text).toContain("drill: ");
    expect(again.text).toBe(alpha.text);
  });

  it("does not keep an error: a file that could not be read is read again next time", async () => {
    const own = await makeStandardCatalog();
    const ownServer = await startServer(own.skillsDir);
    try {
      const document = path.join(own.skillsDir, "gamma/tools/drill/SKILL.md");
      await rename(document, `${document}.away`);
      const failed = await post(`${ownServer.url}/mcp`, toolCall(1, "read_skill", { skill: "drill" }));
      expect(failed.json).toMatchObject({ result: { isError: true } });
      await rename(`${document}.away`, document);
      const read = await post(`${ownServer.url}/mcp`, toolCall(1, "read_skill", { skill: "drill" }));
      expect(read.json).toMatchObject({
        result: { content: [{ text: expect.stringContaining("# drill") }] },
      });
    } finally {
      await ownServer.close();
      await own.remove();
    }
  });
});

describe("answerKey", () => {
  it("keys tools/list and calls of the reading tools by their parameters", () => {
    expect(answerKey({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toEqual({
      request: "tools/list\n{}",
      id: 1,
      keptWhenRepeated: false,
    });
    const read = answerKey(toolCall(2, "read_skill", { skill: "two" }) as never);
    expect(read?.request).toContain('"skill":"two"');
    expect(answerKey(toolCall(3, "list_skills", { pack: "beta", query: "  " }) as never)).toBeDefined();
  });

  it("keys a search by its exact words, so that only a repeated request is answered from memory", () => {
    const search = answerKey(toolCall(1, "list_skills", { query: "drive nails" }) as never);
    expect(search).toMatchObject({ keptWhenRepeated: true });
    expect(search?.request).toContain('"query":"drive nails"');
    expect(answerKey(toolCall(7, "list_skills", { query: "drive nails" }) as never)?.request).toBe(
      search?.request,
    );
    expect(answerKey(toolCall(1, "list_skills", { query: "drive screws" }) as never)?.request).not.toBe(
      search?.request,
    );
  });

  it("keeps a search only once it is asked a second time, and a reading at once", () => {
    const answers = new AnswerCache();
    const result = { content: [{ type: "text", text: "hammer: Drive nails." }] };
    answers.keep("search", 1, result, true);
    expect(answers.answer("search", 2)).toBeUndefined();
    answers.keep("search", 2, result, true);
    expect(answers.answer("search", 3)?.toString()).toBe(
      `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":3}`,
    );
    answers.keep("reading", 1, result);
    expect(answers.answer("reading", "x")?.toString()).toContain('"id":"x"');
    answers.keep("failed", 1, { ...result, isError: true });
    expect(answers.answer("failed", 2)).toBeUndefined();
  });

  it("answers each request with its own id, whatever id the answer was kept with", () => {
    const answers = new AnswerCache();
    const result = { content: [{ type: "text", text: 'say "hi"\n' }] };
    const whole = (id: string | number) => JSON.stringify({ result, jsonrpc: "2.0", id });
    expect(answers.keep("read", 1, result).toString()).toBe(whole(1));
    for (const id of [1, 1, "1", 2, 123456789, "a-long-string-id", 1]) {
      expect(answers.answer("read", id)?.toString()).toBe(whole(id));
    }
  });

  it("stays within its budget whatever ids and arguments clients send", () => {
    const budget = 64 * 1024;
    const answers = new AnswerCache(budget);
    const result = { content: [{ type: "text", text: "x".repeat(200) }] };
    for (let i = 0; i < 200; i++) answers.keep(`read ${i}`, 1, result);
    for (let i = 0; i < 400; i++) {
      const id = `${"long id ".repeat(8000)}${i}`;
      const answer = answers.answer(`read ${i}`, id) ?? answers.keep(`read ${i}`, id, result);
      expect(answer.toString().endsWith(`"id":"${id}"}`)).toBe(true);
      // A search asked once is remembered by its key, whatever its arguments hold.
      answers.keep(`search ${"junk".repeat(2000)} ${i}`, 1, result, true);
    }
    expect(answers.heldBytes()).toBeLessThanOrEqual(budget + ASKED_ONCE_CHARACTERS * 2);
    expect(answers.heldBytes()).toBeGreaterThan(budget / 2);
  });

  it("leaves out unknown tools, _meta, tasks, notifications and other methods", () => {
    expect(answerKey(toolCall(1, "delete_everything") as never)).toBeUndefined();
    const withMeta = toolCall(1, "list_packs");
    expect(
      answerKey({ ...withMeta, params: { ...withMeta.params, _meta: { progressToken: 1 } } } as never),
    ).toBe(undefined);
    expect(
      answerKey({ ...withMeta, params: { ...withMeta.params, task: { ttl: 1 } } } as never),
    ).toBeUndefined();
    expect(answerKey({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeUndefined();
    expect(answerKey({ jsonrpc: "2.0", id: 1, method: "ping" })).toBeUndefined();
  });
});
