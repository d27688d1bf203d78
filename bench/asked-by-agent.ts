import { readJsonObject } from "./json-object.js";
import type { LabeledQuery } from "./scoring.js";

/**
 * The `list_skills` query an agent wrote for each request, by request id: what the tool is really asked
 * when an agent, not the user, fills in its arguments (see docs/search.md, *How agents ask*).
 */
type AgentQueries = ReadonlyMap<string, string>;

export function readAgentQueries(file: string): AgentQueries {
  const queries = new Map<string, string>();
  const blank: string[] = [];
  for (const [id, query] of readJsonObject(file, "request id to query")) {
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
