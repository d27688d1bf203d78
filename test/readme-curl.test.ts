/**
 * The README's Quick start `curl` commands, as written (their headers and bodies), against the bundled
 * examples: a newcomer's first look at a tool answer without a client, in each protocol era.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/process.js";
import { type RunningServer, startServer } from "./helpers/server.js";

interface CurlCommand {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The shell words of `line`: single-quoted strings (as the README writes every argument) and bare words. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? "");
}

/** Each `curl` command of the Quick start's shell blocks, its continuation lines joined. */
function quickStartCurls(readme: string): CurlCommand[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Quick start\n")) ?? "";
  const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((block) => (block[1] ?? "").replace(/\\\n/g, " ").trim())
    .filter((command) => command.startsWith("curl "));
  return commands.map((command) => {
    const words = shellWords(command);
    const headers: Record<string, string> = {};
    let body = "";
    let url = "";
    for (let i = 1; i < words.length; i++) {
      const word = words[i] ?? "";
      if (word === "-H") {
        const [name = "", ...value] = (words[++i] ?? "").split(":");
        headers[name.trim()] = value.join(":").trim();
      } else if (word === "-d") body = words[++i] ?? "";
      else if (word.startsWith("http")) url = word;
    }
    return { url, headers, body };
  });
}

describe("the README's Quick start curl commands", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(path.join(ROOT, "examples/skills"));
  });
  afterAll(() => server.close());

  const curls = quickStartCurls(readFileSync(path.join(ROOT, "README.md"), "utf8"));

  // Regression: the README showed only a 2025 call, and named the 2026-07-28 envelope and headers without
  // saying what they hold, so a reader could not make that era's call without reading the SDK.
  it("show a call in each protocol era", () => {
    expect(curls.map((curl) => curl.headers["MCP-Protocol-Version"] ?? "2025")).toEqual([
      "2025",
      "2026-07-28",
    ]);
  });

  it.each(curls.map((curl, i) => [i + 1, curl] as const))("get a tool answer (curl %i)", async (_, curl) => {
    expect(curl.url).toBe("http://127.0.0.1:8000/mcp");
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: curl.headers,
      body: curl.body,
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result?: { content?: { text?: string }[] } };
    expect(answer.result?.content?.[0]?.text).toMatch(/^clean-csv: /);
  });
});
