/**
 * Searches over the bundled examples (examples/skills), as the README's first command serves them: defects
 * a user met there are pinned here, each named by its test.
 */
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInMemory, mcpDepsOf } from "../../scripts/in-memory-client.js";
import { ROOT } from "../helpers/process.js";
import { call } from "../helpers/server.js";

const RECEIVE_WEBHOOKS =
  "receive-webhooks: Accept incoming webhooks safely - verify signatures, answer fast, process " +
  "asynchronously and deduplicate retries. Use when an external service pushes events to a workflow.";

let client: Client;
beforeAll(async () => {
  client = await connectInMemory(await mcpDepsOf(path.join(ROOT, "examples/skills")));
});
afterAll(async () => {
  await client.close();
});

describe("list_skills over the bundled examples", () => {
  // `webhok` alone was read as webhook, but beside a word that one skill holds it needed two of that
  // word's matches to hold webhook, and left unread it raised the floor past every match: "No skill matches".
  it.each(["webhok signature", "verify webhok"])(
    "reads a mistyped word beside a right one: %j",
    async (query) => {
      const { text } = await call(client, "list_skills", { query });
      expect(text.split("\n").slice(0, 2)).toEqual(['Read "webhok" as "webhook".', RECEIVE_WEBHOOKS]);
    },
  );

  // `write-commit-messages` names webhooks in passing: it held the one word asked, faintly, yet the hint
  // said the others matched "only in part", as though they lacked a word of the request.
  it("says other skills matched less well, not only in part, when they hold every word of the request", async () => {
    const { text } = await call(client, "list_skills", { query: "webhooks" });
    expect(text.split("\n")).toEqual([
      RECEIVE_WEBHOOKS,
      "… other skills matched less well: add words to the query, or narrow with pack.",
      'Next: read_skill(skill="<name>").',
    ]);
  });

  it("still says they matched only in part when they lack a word of the request", async () => {
    const { text } = await call(client, "list_skills", { query: "webhook signature" });
    expect(text.split("\n")).toEqual([
      RECEIVE_WEBHOOKS,
      "… other skills matched only in part: add words to the query, or narrow with pack.",
      'Next: read_skill(skill="<name>").',
    ]);
  });
});
