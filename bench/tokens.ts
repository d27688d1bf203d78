/** The `npm run tokens` figures, asked of the real process over HTTP with the SDK's client. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { measureTokenCosts, type TokenCosts } from "../scripts/token-costs.js";
import { quantile } from "./load.js";
import { startServer } from "./processes.js";

export interface TokenRow {
  readonly catalog: string;
  readonly skills: number;
  readonly packs: number;
  readonly toolsList: number;
  readonly instructions: number;
  readonly listPacks: number;
  readonly listSkillsPackMedian: number;
  readonly listSkillsPackMax: number;
  readonly costs: TokenCosts;
}

export async function measureTokensOfServer(catalog: string, url: string): Promise<TokenRow> {
  const health = JSON.parse(await (await fetch(`${url}/health`)).text()) as {
    packs: string[];
    skills: number;
  };
  const client = new Client({ name: "skills-mcp-bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  try {
    const costs = await measureTokenCosts(client, health.packs);
    const perPack = costs.listSkillsByPack.map((entry) => entry.tokens);
    return {
      catalog,
      skills: health.skills,
      packs: health.packs.length,
      toolsList: costs.toolsList,
      instructions: costs.instructions,
      listPacks: costs.listPacks,
      listSkillsPackMedian: quantile(perPack, 0.5),
      listSkillsPackMax: Math.max(...perPack),
      costs,
    };
  } finally {
    await client.close();
  }
}

/**
 * Load shedding is off: what is counted here is words, not time, and a shed request only failed the run
 * (`--only tokens` on a busy machine: the 50,000-skill catalog's first previews hold the event loop past
 * SHED_EVENT_LOOP_DELAY_MS's second).
 */
const NO_SHEDDING = { SHED_EVENT_LOOP_DELAY_MS: "0", SHED_EVENT_LOOP_UTILIZATION: "0", SHED_RSS_MB: "0" };

/** Starts the server on `skillsDir` just long enough to ask it. */
export async function measureTokensOfCatalog(
  catalog: string,
  skillsDir: string,
  workDir: string,
): Promise<TokenRow> {
  const server = await startServer({
    skillsDir,
    logDir: workDir,
    name: `server-tokens-${catalog}`,
    env: NO_SHEDDING,
  });
  try {
    return await measureTokensOfServer(catalog, server.url);
  } finally {
    await server.stop();
  }
}
