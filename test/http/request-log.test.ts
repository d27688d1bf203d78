import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { buildApp } from "../../src/http/index.js";
import { mcpDepsFor, prepare } from "../../src/startup/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { TEST_ENV } from "../helpers/process.js";
import { post } from "../helpers/server.js";

/** The request log as an operator reads it: JSON lines, one for each refused or failed request. */
let tree: StandardCatalog;
let app: FastifyInstance;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  tree = await makeStandardCatalog();
  const config = loadConfig({ ...TEST_ENV, SKILLS_DIR: tree.skillsDir });
  const silent = pino({ level: "silent" });
  const prepared = await prepare(config, silent);
  app = await buildApp({
    mcp: mcpDepsFor(prepared, config, silent, { name: "skills-mcp", version: "test" }),
    logger: pino({ level: "info" }, { write: (line: string) => lines.push(line) }),
    settings: config.http,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await app.close();
  await tree.remove();
});

/** Characters JSON leaves raw that end a line, control a terminal or reorder text in a log viewer. */
const UNSEEN_RAW = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("the request log", () => {
  it("writes what a client sent that no reader sees as {U+…}: no line separator, C1 control or bidi override", async () => {
    // node:http sends the header in UTF-8, as curl would send it: CSI is the bytes C2 9B.
    const answer = await post(
      `${url}/mcp`,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "read\u2028_\u202eskill", arguments: {} },
      },
      { "x-skill-pack": "alpha\u009b31m" },
    );
    expect(answer.status).toBe(400);
    const written = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const request = written.find((line) => line.msg === "request" && line.status === 400);
    expect(request).toMatchObject({
      rpc: "tools/call",
      tool: "read{U+2028}_{U+202E}skill",
      scope: "header=alpha{U+009B}31m",
    });
    for (const line of lines) expect(line).not.toMatch(UNSEEN_RAW);
  });
});
