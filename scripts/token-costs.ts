/**
 * What the tool surface costs a model, in o200k tokens, asked through any connected MCP client: shared by
 * `npm run tokens` (in memory) and `npm run bench` (over HTTP against the real process).
 */
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

export interface TokenCosts {
  readonly toolsList: number;
  readonly tools: number;
  readonly instructions: number;
  readonly listPacks: number;
  /** `list_skills(pack)` for each pack asked about, in the order given. */
  readonly listSkillsByPack: readonly { readonly pack: string; readonly tokens: number }[];
}

export async function measureTokenCosts(client: Client, packs: readonly string[]): Promise<TokenCosts> {
  const { tools } = await client.listTools();
  const listSkillsByPack: { pack: string; tokens: number }[] = [];
  for (const pack of packs) {
    listSkillsByPack.push({ pack, tokens: countTokens(await callText(client, "list_skills", { pack })) });
  }
  return {
    toolsList: countTokens(JSON.stringify(tools)),
    tools: tools.length,
    instructions: countTokens(client.getInstructions() ?? ""),
    listPacks: countTokens(await callText(client, "list_packs", {})),
    listSkillsByPack,
  };
}

async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
