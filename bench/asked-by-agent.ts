import { readFileSync } from "node:fs";
import type { LabeledQuery } from "./scoring.js";

/**
 * The `list_skills` query an agent wrote for each request, by request id: what the tool is really asked
 * when an agent, not the user, fills in its arguments (see docs/search.md, *How agents ask*).
 */
export type AgentQueries = ReadonlyMap<string, string>;

export function readAgentQueries(file: string): AgentQueries {
  const raw: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`${file}: expected a JSON object of request id to query`);
  }
  const entries = Object.entries(raw);
  const notText = entries.filter(([, query]) => typeof query !== "string" || query.trim() === "");
  if (notText.length > 0) {
    throw new Error(
      `${file}: these ids need a query (non-empty text): ${notText.map(([id]) => id).join(", ")}`,
    );
  }
  return new Map(entries as [string, string][]);
}

/** Each request asked as the agent phrased it; labels stay. Throws if the agent left a request out. */
export function askedByAgent(queries: readonly LabeledQuery[], agent: AgentQueries): LabeledQuery[] {
  const missing = queries.filter(({ id }) => !agent.has(id)).map(({ id }) => id);
  if (missing.length > 0) throw new Error(`no agent query for: ${missing.join(", ")}`);
  return queries.map((query) => ({ ...query, query: agent.get(query.id) ?? query.query }));
}
