import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT, type StdioAnswer, stdioServerProcess } from "../helpers/process.js";
import { type WireEra, wireRequest } from "../helpers/requests.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

const SKILLS_DIR = path.join(ROOT, "examples/skills");

const UNKNOWN = {
  content: [
    {
      type: "text",
      text: 'Unknown tool "nope". The tools are: list_packs, list_skills, read_skill, read_pack_file.',
    },
  ],
  isError: true,
};
const SKILL_MISSING = {
  content: [
    {
      type: "text",
      text: 'Invalid arguments for read_skill: "skill" is required, a string (Skill name, or pack/name when several packs share it).',
    },
  ],
  isError: true,
};

type Check = (result: unknown) => void;
const listing =
  (member: string): Check =>
  (result) =>
    expect(result).toHaveProperty(member);

/** Each request, with the result it must get whatever carries it. */
const REQUESTS: readonly (readonly [string, Record<string, unknown>, Check])[] = [
  // Regression: `"cursor": null`, which typed clients send for an unset cursor, was an internal error
  // (-32603, a dump of the SDK's schema issues) on the first three, and refused (-32602) on the others.
  ["tools/list", { cursor: null }, listing("tools")],
  ["prompts/list", { cursor: null }, listing("prompts")],
  ["resources/list", { cursor: null }, listing("resources")],
  ["skills/list", { cursor: null }, listing("skills")],
  ["resources/directory/read", { uri: "skill://design", cursor: null }, listing("resources")],
  ["prompts/get", { name: "clean-csv", arguments: null }, listing("messages")],
  // Regression: `"arguments": null`, which clients built on models send for "no arguments", was refused
  // with -32602 and a dump of the SDK's schema issues; it reads as no arguments.
  [
    "tools/call",
    { name: "list_packs", arguments: null },
    (result) => expect((result as { content: { text: string }[] }).content[0]?.text).toMatch(/^design: /),
  ],
  [
    "tools/call",
    { name: "read_skill", arguments: null },
    (result) => expect(result).toMatchObject(SKILL_MISSING),
  ],
  // Regression: an unknown tool was answered as unknown with arguments that are an object, and refused
  // for its arguments (-32602) with any others: one answer now, naming the tools.
  ...[{}, null, "x", 5, [1], true].map(
    (args) =>
      [
        "tools/call",
        { name: "nope", arguments: args },
        (result: unknown) => expect(result).toMatchObject(UNKNOWN),
      ] as const,
  ),
  ["tools/call", { name: "nope" }, (result) => expect(result).toMatchObject(UNKNOWN)],
  // Regression: params that do not fit were refused with "Invalid tools/call request: " and a JSON dump of
  // the SDK's schema issues, where every other method's are named in one line.
  ...(
    [
      [{ name: "list_skills", arguments: "x" }, "arguments: Invalid input: expected record, received string"],
      [{ name: 5 }, "name: Invalid input: expected string, received number"],
    ] as const
  ).map(
    ([params, fault]) =>
      [
        "tools/call",
        params,
        (result: unknown) =>
          expect(result).toEqual({ code: -32602, message: `Invalid params for tools/call: ${fault}` }),
      ] as const,
  ),
];

/**
 * An answer's result, or its error if none, less the server's identity a 2026-07-28 result carries in
 * `_meta` (its version is the package's over stdio, the test's over HTTP).
 */
function resultOf(answer: StdioAnswer | undefined): unknown {
  if (answer?.result === undefined) return answer?.error;
  const { _meta: _identity, ...result } = answer.result as Record<string, unknown>;
  return result;
}

describe("null for an optional member, and a tools/call's arguments, over HTTP and stdio, in both eras", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it.each(["legacy", "modern"] as const satisfies readonly WireEra[])("are read alike (%s)", async (era) => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      for (const [index, [method, params]] of REQUESTS.entries())
        stdio.write(`${JSON.stringify(wireRequest(era, index, method, params).body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(REQUESTS.length), { timeout: 30_000 });
      const overStdio = new Map(stdio.answers().map((answer) => [answer.id, answer]));
      for (const [index, [method, params, check]] of REQUESTS.entries()) {
        const asked = wireRequest(era, index, method, params);
        const overHttp = await post(`${http.url}/mcp`, asked.body, asked.headers);
        expect(overHttp.status).toBe(200);
        const answered = overHttp.json as StdioAnswer;
        check(resultOf(answered));
        expect(resultOf(overStdio.get(index))).toEqual(resultOf(answered));
      }
    } finally {
      await stdio.end();
    }
  });
});
