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

/** What a tools/call that names no tool is told it needs, after what was wrong. */
const CALL_NEEDS =
  'tools/call needs params such as {"name": "list_skills", "arguments": {"query": "<the task>"}}: the name of one of the tools (list_packs, list_skills, read_skill, read_pack_file) and its arguments, as tools/list describes them.';

/** What list_packs, which takes no arguments, is told its arguments must be beside "a JSON object". */
const NO_ARGUMENTS = "(list_packs takes no arguments, so it may be left out)";
/** What a method naming what it reads is told it needs, after what was wrong with its name or URI. */
const PROMPT_NEEDS =
  'prompts/get needs params such as {"name": "<prompt>"}: the name of one of the prompts, one per skill (its name, or pack/name where packs share it), as prompts/list gives them.';
const SKILL_NEEDS =
  'skills/get needs params such as {"uri": "skill://<pack>/<skill>/SKILL.md"}: the URI of a skill\'s SKILL.md, as skills/list gives them.';
const READ_NEEDS =
  'resources/read needs params such as {"uri": "skill://<pack>/<path>"}: the URI of a file, as resources/list gives them.';
const FOLDER_NEEDS =
  'resources/directory/read needs params such as {"uri": "skill://<pack>"}: the URI of a folder, as resources/list gives them.';

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
  // Regression: `"cursor": ""`, which clients send for the first page (a string left at its zero value),
  // was refused as a cursor never given by the paged listings, and answered by the other two.
  ["tools/list", { cursor: "" }, listing("tools")],
  ["resources/templates/list", { cursor: "" }, listing("resourceTemplates")],
  ["prompts/list", { cursor: "" }, listing("prompts")],
  ["resources/list", { cursor: "" }, listing("resources")],
  ["skills/list", { cursor: "" }, listing("skills")],
  ["resources/directory/read", { uri: "skill://design", cursor: "" }, listing("resources")],
  // Regression: the two one-page lists ignored a cursor, which the paged lists refuse when they never
  // gave it; MCP has an invalid cursor answered -32602.
  ...(["tools/list", "resources/templates/list"] as const).flatMap((list) =>
    ["x", "pAbCd~alpha/one"].map(
      (cursor) =>
        [
          list,
          { cursor },
          (result: unknown) =>
            expect(result).toEqual({
              code: -32602,
              message: `Invalid cursor: ${list} gives everything in one page and no cursor, so no cursor is valid; call ${list} without one.`,
            }),
        ] as const,
    ),
  ),
  // Regression: a prompt's arguments of any value but a string were refused, though the prompts take
  // none and ignore those sent.
  ["prompts/get", { name: "clean-csv", arguments: { a: 1, b: "1" } }, listing("messages")],
  // Regression: arguments that are no object were told "Invalid input: expected record, received
  // string", without what tools/call says of them.
  ...(
    [
      [{ name: "clean-csv", arguments: "x" }, 'not a string ("x")'],
      [
        { name: "clean-csv", arguments: '{"a": "b"}' },
        'not a string: this string holds a JSON object, so send the object itself, not a string holding it: "arguments": {"a":"b"}',
      ],
      [{ name: "clean-csv", arguments: [1] }, "not an array"],
      [
        { name: 5, arguments: 5 },
        "not a number",
        "name: Invalid input: expected string, received number; ",
        `. ${PROMPT_NEEDS}`,
      ],
    ] as const
  ).map(
    ([params, fault, before = "", after = ""]) =>
      [
        "prompts/get",
        params,
        (result: unknown) =>
          expect(result).toEqual({
            code: -32602,
            message: `Invalid params for prompts/get: ${before}arguments must be a JSON object (the prompts take none, so it may be left out), ${fault}${after}`,
          }),
      ] as const,
  ),
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
      [{ name: 5 }, `name: Invalid input: expected string, received number. ${CALL_NEEDS}`],
      [{}, `name: Invalid input: expected string, received undefined. ${CALL_NEEDS}`],
      // Regression: arguments that are no object were told "Invalid input: expected record, received
      // string", which a model did not act on; the arguments a tool takes are named, and a string that
      // holds the object meant is shown as the object to send (at most 100 characters of it).
      [
        { name: "read_skill", arguments: "x" },
        'arguments must be a JSON object of read_skill\'s arguments (skill, file), not a string ("x")',
      ],
      [
        { name: "list_skills", arguments: '{"query": "clean a csv"}' },
        'arguments must be a JSON object of list_skills\'s arguments (pack, query), not a string: this string holds a JSON object, so send the object itself, not a string holding it: "arguments": {"query":"clean a csv"}',
      ],
      [
        { name: "list_skills", arguments: JSON.stringify({ query: "q".repeat(200) }) },
        `arguments must be a JSON object of list_skills's arguments (pack, query), not a string: this string holds a JSON object, so send the object itself, not a string holding it: "arguments": {"query":"${"q".repeat(90)}…`,
      ],
      [
        { name: "read_skill", arguments: "x".repeat(300) },
        `arguments must be a JSON object of read_skill's arguments (skill, file), not a string ("${"x".repeat(100)}…")`,
      ],
      // Regression: list_packs's were told only "a JSON object", where the other tools name theirs.
      [{ name: "list_packs", arguments: 5 }, `arguments must be a JSON object ${NO_ARGUMENTS}, not a number`],
      [
        { name: "list_packs", arguments: [] },
        `arguments must be a JSON object ${NO_ARGUMENTS}, not an array`,
      ],
      [
        { arguments: '{"query": "x"}' },
        `name: Invalid input: expected string, received undefined; arguments must be a JSON object, not a string: this string holds a JSON object, so send the object itself, not a string holding it: "arguments": {"query":"x"}. ${CALL_NEEDS}`,
      ],
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
  // Regression: the SDK joined the faults of a handler's schema with ", ", which they hold themselves,
  // where every other refusal of params joins them with "; ".
  [
    "resources/directory/read",
    { uri: 5, cursor: 6 },
    (result) =>
      expect(result).toEqual({
        code: -32602,
        message: `Invalid params for resources/directory/read: cursor: Invalid input: expected string, received number; uri: Invalid input: expected string, received number. ${FOLDER_NEEDS}`,
      }),
  ],
  // Regression: a read or prompts/get without its URI or name was told only the schema's words, neither
  // what one looks like nor which method lists them.
  ...(
    [
      ["resources/read", { uri: 5 }, "uri: Invalid input: expected string, received number", READ_NEEDS],
      ["resources/read", {}, "uri: Invalid input: expected string, received undefined", READ_NEEDS],
      ["prompts/get", {}, "name: Invalid input: expected string, received undefined", PROMPT_NEEDS],
      [
        "prompts/get",
        { name: ["clean-csv"] },
        "name: Invalid input: expected string, received array",
        PROMPT_NEEDS,
      ],
      ["skills/get", {}, "uri: Invalid input: expected string, received undefined", SKILL_NEEDS],
      [
        "resources/directory/read",
        { cursor: "" },
        "uri: Invalid input: expected string, received undefined",
        FOLDER_NEEDS,
      ],
    ] as const
  ).map(
    ([method, params, fault, needs]) =>
      [
        method,
        params,
        (result: unknown) =>
          expect(result).toEqual({
            code: -32602,
            message: `Invalid params for ${method}: ${fault}. ${needs}`,
          }),
      ] as const,
  ),
  // Regression: the SDK's own check of resources/templates/list refused a cursor that is no string as an
  // internal error (-32603), with a dump of its schema's issues.
  [
    "resources/templates/list",
    { cursor: 5 },
    (result) =>
      expect(result).toEqual({
        code: -32602,
        message:
          "Invalid params for resources/templates/list: cursor: Invalid input: expected string, received number",
      }),
  ],
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

// Regression: a tools/call without params was told only "params: Invalid input: expected object, received
// undefined", and one without a name its schema's words, neither what a call holds.
describe("a tools/call without params, over HTTP and stdio", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("is told what a call holds", async () => {
    const asked = wireRequest("legacy", 1, "tools/call");
    const error = {
      code: -32602,
      message: `Invalid params for tools/call: params: Invalid input: expected object, received undefined. ${CALL_NEEDS}`,
    };
    expect((await post(`${http.url}/mcp`, asked.body)).json).toMatchObject({ id: 1, error });
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(asked.body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(1), { timeout: 30_000 });
      expect(stdio.answers()[0]?.error).toEqual(error);
    } finally {
      await stdio.end();
    }
  });
});

// Regression: initialize without params, or missing one of its three members, was answered -32603 (an
// internal error) with a dump of the SDK's schema issues. The SDK's schema decides what it takes (it needs
// capabilities too, as MCP's schema does): only the answer to what it refuses changed.
describe("a handshake the SDK refuses, over HTTP and stdio", () => {
  const NEEDS =
    'initialize needs params such as {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "<client>", "version": "<its version>"}}: the newest protocol version the client speaks, its capabilities ({} for none), and its name and version.';
  const CLIENT = { name: "raw", version: "1" };
  const HANDSHAKES: readonly (readonly [Record<string, unknown> | undefined, string])[] = [
    [undefined, "params: Invalid input: expected object, received undefined"],
    [
      {},
      "protocolVersion: Invalid input: expected string, received undefined; capabilities: Invalid input: expected object, received undefined; clientInfo: Invalid input: expected object, received undefined",
    ],
    [
      { protocolVersion: "2025-06-18", clientInfo: CLIENT },
      "capabilities: Invalid input: expected object, received undefined",
    ],
    [
      { protocolVersion: 20250618, capabilities: {}, clientInfo: CLIENT },
      "protocolVersion: Invalid input: expected string, received number",
    ],
    [
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw" } },
      "clientInfo.version: Invalid input: expected string, received undefined",
    ],
  ];
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("is refused as invalid params, saying what was wrong and what initialize needs", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      const asked = HANDSHAKES.map(([params], index) => wireRequest("legacy", index, "initialize", params));
      // A handshake that fits is still answered, after those refused.
      const fits = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT };
      asked.push(wireRequest("legacy", HANDSHAKES.length, "initialize", fits));
      for (const { body } of asked) stdio.write(`${JSON.stringify(body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(asked.length), { timeout: 30_000 });
      const overStdio = new Map(stdio.answers().map((answer) => [answer.id, answer]));
      for (const [index, [, fault]] of HANDSHAKES.entries()) {
        const overHttp = await post(`${http.url}/mcp`, asked[index]?.body);
        expect(overHttp.status).toBe(200);
        const error = { code: -32602, message: `Invalid params for initialize: ${fault}. ${NEEDS}` };
        expect((overHttp.json as StdioAnswer).error).toEqual(error);
        expect(overStdio.get(index)?.error).toEqual(error);
      }
      expect(overStdio.get(HANDSHAKES.length)?.result).toMatchObject({ protocolVersion: "2025-06-18" });
    } finally {
      await stdio.end();
    }
  });
});

// Regression: a subscriptions/listen without its filter was told only the SDK's "'notifications' is required
// and must be a valid SubscriptionFilter", where every other method's refusal says what it needs.
describe("a subscriptions/listen without a filter, over HTTP and stdio", () => {
  const LISTEN_NEEDS =
    'subscriptions/listen needs params such as {"notifications": {"toolsListChanged": true}}: the notifications to receive (toolsListChanged, promptsListChanged and resourcesListChanged, each true or false; resourceSubscriptions, a list of resource URIs), of which the acknowledgement names those this server sends.';
  const error = {
    code: -32602,
    message: `Invalid params: 'notifications' is required and must be a valid SubscriptionFilter. ${LISTEN_NEEDS}`,
  };
  const LISTENS: readonly Record<string, unknown>[] = [
    {},
    { notifications: "toolsListChanged" },
    { notifications: { toolsListChanged: "yes" } },
  ];
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("is told what a subscription asks for", async () => {
    const asked = LISTENS.map((params, index) =>
      wireRequest("modern", index, "subscriptions/listen", params),
    );
    for (const { body, headers } of asked)
      expect((await post(`${http.url}/mcp`, body, headers)).json).toEqual({
        jsonrpc: "2.0",
        id: body.id,
        error,
      });
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      for (const { body } of asked) stdio.write(`${JSON.stringify(body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(asked.length), { timeout: 30_000 });
      for (const answer of stdio.answers()) expect(answer.error).toEqual(error);
    } finally {
      await stdio.end();
    }
  });
});
