import { rename } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpDepsOf } from "../../scripts/in-memory-client.js";
import {
  type Answer,
  AnswerCache,
  ASKED_ONCE_CHARACTERS,
  answerKeyOf,
  KEPT_ANSWER_BYTES,
} from "../../src/http/answer-cache.js";
import { McpEndpoints } from "../../src/http/mcp-endpoint.js";
import { type ServerFactory, serverFactoryFor } from "../../src/mcp/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { wireRequest as request, wireToolCall as toolCall } from "../helpers/requests.js";
import { ERAS, post, type RunningServer, startServer } from "../helpers/server.js";

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

describe.each(ERAS)("kept answers in the %s era", (era) => {
  it.each([
    ["tools/list", request(era, 1, "tools/list")],
    ["list_packs", toolCall(era, 1, "list_packs")],
    ["list_skills(pack)", toolCall(era, 1, "list_skills", { pack: "beta" })],
    ["read_skill", toolCall(era, 1, "read_skill", { skill: "two" })],
    ["read_pack_file", toolCall(era, 1, "read_pack_file", { pack: "beta", file: "shared/guide.md" })],
    ["resources/read", request(era, 1, "resources/read", { uri: "skill://beta/shared/guide.md" })],
  ])("%s: the same bytes as the MCP server gives, for any id", async (_name, { body, headers }) => {
    const url = `${server.url}/mcp`;
    const first = await post(url, body, headers);
    const again = await post(url, body, headers);
    // Another _meta makes another request, which the MCP server answers afresh.
    const params = (body as { params?: { _meta?: object } }).params ?? {};
    const fresh = { ...body, params: { ...params, _meta: { ...params._meta, "test.example/nonce": "1" } } };
    const uncached = await post(url, fresh, headers);
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(uncached.text).toBe(first.text);
    const otherId = await post(url, { ...body, id: "other" }, headers);
    expect(otherId.json).toEqual({ ...(first.json as object), id: "other" });
  });

  it("never gives one scope's answer to another", async () => {
    const { body, headers } = toolCall(era, 1, "list_skills");
    const alpha = await post(`${server.url}/mcp`, body, { ...headers, "x-skill-pack": "alpha" });
    const gamma = await post(`${server.url}/mcp`, body, { ...headers, "x-skill-pack": "gamma" });
    const again = await post(`${server.url}/mcp`, body, { ...headers, "x-skill-pack": "alpha" });
    expect(alpha.text).toContain("one: ");
    expect(gamma.text).not.toContain("one: ");
    expect(gamma.text).toContain("drill: ");
    expect(again.text).toBe(alpha.text);
  });

  it("never gives an answer to a request the SDK would refuse for its headers", async () => {
    const { body, headers } = toolCall(era, 1, "list_packs");
    expect((await post(`${server.url}/mcp`, body, headers)).status).toBe(200);
    // The 2025 transport checks what the client accepts; a 2026-07-28 request's headers must match its body.
    const wrong: Record<string, string> =
      era === "legacy" ? { accept: "application/json" } : { "mcp-name": "list_skills" };
    const refused = await post(`${server.url}/mcp`, body, { ...headers, ...wrong });
    expect(refused.status).toBe(era === "legacy" ? 406 : 400);
  });

  it("does not keep an error: a file that could not be read is read again next time", async () => {
    const own = await makeStandardCatalog();
    const ownServer = await startServer(own.skillsDir);
    try {
      const document = path.join(own.skillsDir, "gamma/tools/drill/SKILL.md");
      const { body, headers } = toolCall(era, 1, "read_skill", { skill: "drill" });
      await rename(document, `${document}.away`);
      const failed = await post(`${ownServer.url}/mcp`, body, headers);
      expect(failed.json).toMatchObject({ result: { isError: true } });
      await rename(`${document}.away`, document);
      const read = await post(`${ownServer.url}/mcp`, body, headers);
      expect(read.json).toMatchObject({
        result: { content: [{ text: expect.stringContaining("# drill") }] },
      });
    } finally {
      await ownServer.close();
      await own.remove();
    }
  });
});

describe("a 2025 batch", () => {
  it("answers each member from the kept answer when there is one, each under its own id", async () => {
    const deps = await mcpDepsOf(tree.skillsDir);
    const scope = deps.catalog.everything;
    let listed = 0;
    // The scope's servers, counting the prompt lists they make.
    const counting: ServerFactory = (made) => {
      const mcp = serverFactoryFor(deps, scope)(made);
      mcp.server.setRequestHandler("prompts/list", () => {
        listed++;
        return { prompts: [{ name: "only" }] };
      });
      return mcp;
    };
    const endpoints = new McpEndpoints(
      () => counting,
      () => {},
    );
    const raw = {
      method: "POST",
      url: "/mcp",
      headers: {
        host: "127.0.0.1",
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
    } as IncomingMessage;
    const batchOf = (ids: (number | string)[]) => ids.map((id) => request("legacy", id, "prompts/list").body);
    const answerOf = async (body: unknown) => {
      const asked = endpoints.request({ scope, key: "" }, raw, body);
      return JSON.parse((asked.kept ?? (await asked.answer()).answer).body.toString()) as unknown;
    };
    const expected = (ids: (number | string)[]) =>
      ids.map((id) => ({ jsonrpc: "2.0", id, result: { prompts: [{ name: "only" }] } }));
    // A hundred members of one list are made once, and never again by the batches after it.
    const ids = Array.from({ length: 100 }, (_, index) => (index % 2 === 0 ? index : `id-${index}`));
    expect(await answerOf(batchOf(ids))).toEqual(expected(ids));
    expect(await answerOf(batchOf([7, 7, "x"]))).toEqual(expected([7, 7, "x"]));
    expect(await answerOf(request("legacy", 3, "prompts/list").body)).toEqual(expected([3])[0]);
    expect(listed).toBe(1);
  });

  it("is answered by the SDK's transport, with its status, when the server refuses a member", async () => {
    const answer = await post(`${server.url}/mcp`, [
      request("legacy", 1, "tools/list").body,
      request("legacy", 2, "no/such/method").body,
    ]);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([
      { jsonrpc: "2.0", id: 1, result: expect.objectContaining({ tools: expect.any(Array) }) },
      { jsonrpc: "2.0", id: 2, error: expect.objectContaining({ code: -32601 }) },
    ]);
  });
});

function keyOf(body: unknown, headers: Record<string, string> = {}, scope = "") {
  return answerKeyOf(scope, headers, body);
}

describe("answerKeyOf", () => {
  it("keys lists, reads and calls of the reading tools by scope, checked headers and body but its id", () => {
    const list = request("legacy", 1, "tools/list").body;
    expect(keyOf(list)).toMatchObject({ id: 1, keptWhenRepeated: false });
    expect(keyOf({ ...list, id: 2 })?.key).toBe(keyOf(list)?.key);
    // The era is in what the key holds: the 2026-07-28 request has its envelope and its headers.
    const modern = request("modern", 1, "tools/list");
    expect(keyOf(modern.body, modern.headers)?.key).not.toBe(keyOf(list)?.key);
    expect(keyOf(list, {}, "alpha")?.key).not.toBe(keyOf(list)?.key);
    expect(keyOf(list, { "mcp-protocol-version": "2025-06-18" })?.key).not.toBe(keyOf(list)?.key);
    expect(keyOf(list, { "x-other": "1" })?.key).toBe(keyOf(list)?.key);
    const read = keyOf(toolCall("legacy", 2, "read_skill", { skill: "two" }).body);
    expect(read?.key).toContain('"skill":"two"');
    expect(keyOf(toolCall("legacy", 3, "list_skills", { pack: "beta", query: "  " }).body)).toMatchObject({
      keptWhenRepeated: false,
    });
  });

  it("keys a search by its exact words, so that only a repeated request is answered from memory", () => {
    const search = keyOf(toolCall("legacy", 1, "list_skills", { query: "drive nails" }).body);
    expect(search).toMatchObject({ keptWhenRepeated: true });
    expect(keyOf(toolCall("legacy", 7, "list_skills", { query: "drive nails" }).body)?.key).toBe(search?.key);
    expect(keyOf(toolCall("legacy", 1, "list_skills", { query: "drive screws" }).body)?.key).not.toBe(
      search?.key,
    );
    // A search under another name is one all the same (list_skills reads `search` as `query`).
    const misnamed = keyOf(toolCall("legacy", 1, "list_skills", { search: "drive nails" }).body);
    expect(misnamed).toMatchObject({ keptWhenRepeated: true });
  });

  it("leaves out unknown tools, the handshake, ping, notifications and batches", () => {
    expect(keyOf(toolCall("legacy", 1, "delete_everything").body)).toBeUndefined();
    expect(keyOf({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeUndefined();
    expect(keyOf({ jsonrpc: "2.0", id: 1, method: "ping" })).toBeUndefined();
    expect(keyOf({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} })).toBeUndefined();
    expect(keyOf([request("legacy", 1, "tools/list").body])).toBeUndefined();
  });
});

/** An answer as the SDK writes one: the result, then the JSON-RPC version and the id. */
function sdkAnswer(result: unknown, id: string | number): Answer {
  return {
    status: 200,
    contentType: "application/json",
    body: Buffer.from(JSON.stringify({ result, jsonrpc: "2.0", id })),
  };
}

describe("AnswerCache", () => {
  const result = { content: [{ type: "text", text: 'say "hi"\n' }] };
  const key = (name: string, id: string | number, keptWhenRepeated = false) => ({
    key: name,
    id,
    keptWhenRepeated,
  });

  it("keeps a search only once it is asked a second time, a reading at once, and never a failure", () => {
    const answers = new AnswerCache();
    answers.keep(key("search", 1, true), sdkAnswer(result, 1), true);
    expect(answers.answer(key("search", 2, true))).toBeUndefined();
    answers.keep(key("search", 2, true), sdkAnswer(result, 2), true);
    expect(answers.answer(key("search", 3, true))?.body.toString()).toBe(
      sdkAnswer(result, 3).body.toString(),
    );
    answers.keep(key("reading", 1), sdkAnswer(result, 1), true);
    expect(answers.answer(key("reading", "x"))?.body.toString()).toContain('"id":"x"');
    answers.keep(key("failed", 1), sdkAnswer({ ...result, isError: true }, 1), false);
    expect(answers.answer(key("failed", 2))).toBeUndefined();
    answers.keep(key("refused", 1), { ...sdkAnswer(result, 1), status: 400 }, true);
    expect(answers.answer(key("refused", 2))).toBeUndefined();
  });

  it("answers each request with its own id, whatever id the answer was kept with", () => {
    const answers = new AnswerCache();
    answers.keep(key("read", 1), sdkAnswer(result, 1), true);
    for (const id of [1, 1, "1", 2, 123456789, "a-long-string-id", 1]) {
      expect(answers.answer(key("read", id))?.body.toString()).toBe(sdkAnswer(result, id).body.toString());
    }
  });

  it("does not keep bytes that do not end with the request's id, as the SDK's do", () => {
    const answers = new AnswerCache();
    answers.keep(key("odd", 1), { ...sdkAnswer(result, 1), body: Buffer.from('{"id":1,"result":{}}') }, true);
    expect(answers.answer(key("odd", 2))).toBeUndefined();
  });

  // Regression (issue 24): a 20 MB answer was kept, then copied whole for every request with another id.
  it("never keeps an answer over a mebibyte, whatever its budget", () => {
    const answers = new AnswerCache(64 * 1024 * 1024);
    const large = { content: [{ type: "text", text: "x".repeat(KEPT_ANSWER_BYTES) }] };
    answers.keep(key("large", 1), sdkAnswer(large, 1), true);
    expect(answers.answer(key("large", 1))).toBeUndefined();
    expect(answers.heldBytes()).toBe(0);
  });

  it("stays within its budget whatever ids and arguments clients send", () => {
    const budget = 64 * 1024;
    const answers = new AnswerCache(budget);
    const big = { content: [{ type: "text", text: "x".repeat(200) }] };
    for (let i = 0; i < 200; i++) answers.keep(key(`read ${i}`, 1), sdkAnswer(big, 1), true);
    let framed = 0;
    for (let i = 0; i < 400; i++) {
      const id = `${"long id ".repeat(8000)}${i}`;
      const kept = answers.answer(key(`read ${i}`, id));
      if (kept !== undefined) {
        framed++;
        expect(kept.body.toString().endsWith(`"id":"${id}"}`)).toBe(true);
      }
      answers.keep(key(`read ${i}`, id), sdkAnswer(big, id), true);
      // A search asked once is remembered by its key, whatever its arguments hold.
      answers.keep(key(`search ${"junk".repeat(2000)} ${i}`, 1, true), sdkAnswer(big, 1), true);
    }
    // Some kept answers were framed anew for a long id, so the check above ran.
    expect(framed).toBeGreaterThan(0);
    expect(answers.heldBytes()).toBeLessThanOrEqual(budget + ASKED_ONCE_CHARACTERS * 2);
    expect(answers.heldBytes()).toBeGreaterThan(budget / 2);
  });
});
