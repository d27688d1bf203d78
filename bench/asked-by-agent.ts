import { readFileSync } from "node:fs";
import type { LabeledQuery } from "./scoring.js";

/**
 * The `list_skills` query an agent wrote for each request, by request id: what the tool is really asked
 * when an agent, not the user, fills in its arguments (see docs/search.md, *How agents ask*).
 */
export type AgentQueries = ReadonlyMap<string, string>;

export function readAgentQueries(file: string): AgentQueries {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`${file}: expected a JSON object of request id to query`);
  }
  const queries = new Map<string, string>();
  const blank: string[] = [];
  for (const [id, query] of Object.entries(raw)) {
    if (typeof query === "string" && query.trim() !== "") queries.set(id, query);
    else blank.push(id);
  }
  if (blank.length > 0)
    throw new Error(`${file}: these ids need a query (non-empty text): ${blank.join(", ")}`);
  return queries;
}

/**
 * Each request asked as the agent phrased it; labels stay. Throws, naming them, if the agent left requests
 * out: an agent's file must hold a query for every request of the set.
 */
export function askedByAgent(queries: readonly LabeledQuery[], agent: AgentQueries): LabeledQuery[] {
  const asked: LabeledQuery[] = [];
  const missing: string[] = [];
  for (const query of queries) {
    const phrased = agent.get(query.id);
    if (phrased === undefined) missing.push(query.id);
    else asked.push({ ...query, query: phrased });
  }
  if (missing.length > 0) {
    throw new Error(`no agent query for ${missing.join(", ")}: it needs one for every request of the set`);
  }
  return asked;
}
