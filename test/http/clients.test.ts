/**
 * Clients as deployments have them today: the 1.x SDK most MCP clients are built on, a client that
 * behaves as n8n's MCP Client Tool does (a new connection for every call, a credential header and an
 * X-Skill-Pack ceiling), and the v2 SDK negotiating its era.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import {
  call,
  connectTo,
  httpSettings,
  type RunningServer,
  startServer,
  THE_FOUR_TOOLS,
} from "../helpers/server.js";

const KEY = "n8n-credential-0123456789";

let tree: StandardCatalog;
let server: RunningServer;
beforeAll(async () => {
  tree = await makeStandardCatalog();
  server = await startServer(tree.skillsDir, [], httpSettings({ API_KEYS: KEY }));
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

/** A 1.x SDK client on /mcp with `headers`, connected (the 2025 handshake). */
async function connectV1(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "v1", version: "1.32.2" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

function textOf(result: unknown): string {
  const { content } = result as { content: { type: string; text?: string }[] };
  return content.map((part) => part.text ?? "").join("");
}

describe("the 1.32 SDK client", () => {
  it("uses the tools, the resources and the prompts as it always did", async () => {
    const client = await connectV1({ authorization: `Bearer ${KEY}` });
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "skills-mcp" });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(THE_FOUR_TOOLS);
      expect(textOf(await client.callTool({ name: "read_skill", arguments: { skill: "hammer" } }))).toContain(
        "Read shared/guide.md.",
      );
      const read = await client.readResource({ uri: "skill://beta/tools/hammer/SKILL.md" });
      expect(read.contents[0]).toMatchObject({
        mimeType: "text/markdown",
        text: expect.stringContaining("name: hammer"),
      });
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toContain("alpha/shared-name");
    } finally {
      await client.close();
    }
  });
});

describe("a client that behaves as n8n's MCP Client Tool", () => {
  it("opens a new connection for every call, with its credential and its ceiling, and sees only that", async () => {
    const headers = { authorization: `Bearer ${KEY}`, "x-skill-pack": "beta" };
    const calls: [string, Record<string, unknown>][] = [
      ["list_packs", {}],
      ["list_skills", { query: "drive nails" }],
      ["read_skill", { skill: "hammer" }],
      ["read_pack_file", { pack: "beta", file: "shared/guide.md" }],
      ["read_skill", { skill: "drill" }],
    ];
    const answers: string[] = [];
    for (const [name, args] of calls) {
      const client = await connectV1(headers);
      try {
        await client.listTools();
        answers.push(textOf(await client.callTool({ name, arguments: args })));
      } finally {
        await client.close();
      }
    }
    expect(answers[0]).toMatch(/^beta: 5 skills, 2 pack files — /);
    expect(answers[1]).toMatch(/^hammer: Drive nails with a hammer\./);
    expect(answers[2]).toContain("Read shared/guide.md.");
    expect(answers[3]).toBe("# Beta shared guide\n");
    // gamma's drill lies outside the ceiling: it reads as missing.
    expect(answers[4]).toMatch(/^No skill "drill"\./);
  });

  it("is refused without its credential", async () => {
    await expect(connectV1({ "x-skill-pack": "beta" })).rejects.toThrow(/401|Unauthorized/);
  });
});

describe("the v2 SDK client negotiating its era", () => {
  it("negotiates 2026-07-28 in auto mode, and serves it", async () => {
    const client = await connectTo(new URL(`${server.url}/mcp`), {
      era: "auto",
      headers: { authorization: `Bearer ${KEY}` },
    });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect((await call(client, "list_skills", { pack: "gamma" })).text).toMatch(/^drill: /);
    } finally {
      await client.close();
    }
  });
});

// Assumption behind HTTP's `"id": null` where stdio leaves the id out (docs/security.md, rate limit): the
// SDK's client reads an answer that is no 2xx by its status and text, never by its id (in 2026-07-28 a 400
// too, but for an error under the request's own id), so a refusal under `"id": null` reaches its user in
// our words, where over stdio the same line would be dropped unread.
describe("the v2 SDK client refused under an id of null", () => {
  it.each(["legacy", "modern"] as const)("shows the refusal's message (%s)", async (era) => {
    const limited = await startServer(tree.skillsDir, [], httpSettings({ RATE_LIMIT_PER_MINUTE: "3" }));
    const client = await connectTo(new URL(`${limited.url}/mcp`), { era });
    try {
      // The handshake took one request of the three, or two (2025's initialized notification).
      const refused = (async () => {
        for (let request = 0; request < 3; request++) await call(client, "list_packs", {});
      })();
      // A second of the window may have passed by the refusal on a busy machine: "retry in 59 seconds".
      await expect(refused).rejects.toThrow(
        /Error POSTing to endpoint: .*"Rate limit exceeded, retry in (?:1 minute|[1-5]?\d seconds?)".*"id":null/,
      );
    } finally {
      await client.close();
      await limited.close();
    }
  });
});
