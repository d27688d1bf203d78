/**
 * Prints what the tool surface costs a model, in o200k tokens: `tools/list`, the initialize
 * instructions, `list_packs`, and `list_skills` for each pack of a catalog folder.
 *
 *   npm run tokens -- [catalog folder]     (default: the bundled examples)
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { loadCatalog, readSkillDocument } from "../src/catalog/index.js";
import { EXAMPLES_DIR } from "../src/config/index.js";
import { createMcpServer, INSTRUCTIONS } from "../src/mcp/index.js";
import { buildIndex } from "../src/search/index.js";

async function main(dir: string): Promise<void> {
  const { catalog } = loadCatalog(dir);
  const server = createMcpServer(
    { name: "skills-mcp", version: "tokens" },
    {
      catalog,
      index: buildIndex(catalog.everything.skills, readSkillDocument),
      scope: catalog.everything,
      onInternalError: (error) => console.error(error),
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "tokens", version: "1" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

  const rows: [string, number][] = [];
  const { tools } = await client.listTools();
  rows.push([`tools/list (${tools.length} tools)`, countTokens(JSON.stringify(tools))]);
  rows.push(["initialize instructions", countTokens(INSTRUCTIONS)]);
  rows.push(["list_packs", countTokens(await callText(client, "list_packs", {}))]);
  for (const pack of catalog.everything.packs) {
    const answer = await callText(client, "list_skills", { pack: pack.name });
    rows.push([`list_skills(pack="${pack.name}") (${pack.skills.length} skills)`, countTokens(answer)]);
  }
  await client.close();

  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`Tokens (o200k) for ${dir}: ${catalog.everything.skills.length} skills`);
  for (const [label, tokens] of rows) console.log(`${label.padEnd(width)}  ${String(tokens).padStart(7)}`);
}

async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

main(process.argv[2] ?? EXAMPLES_DIR).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
