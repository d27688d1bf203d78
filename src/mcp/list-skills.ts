import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Scope, Skill } from "../catalog/index.js";
import type { SearchResult } from "../search/index.js";
import type { ToolContext } from "./context.js";
import { narrowByPack, plural, runTool, skillRef, text } from "./format.js";
import { READ_ONLY, type ToolDefinition } from "./tool-metadata.js";

/** A listing longer than this would flood the model's context; it is cut with a hint to narrow. */
export const LISTED_SKILLS = 200;
/** A search shows only its best matches: past these, a model does better refining than reading on. */
export const LISTED_MATCHES = 10;

export const listSkillsTool = {
  name: "list_skills",
  description: "List skills as `name: description` lines. Narrow with pack; search with query.",
  inputSchema: {
    pack: z.string().max(1000).optional().describe("Pack, group or pack/group from list_packs"),
    query: z
      .string()
      .max(1000)
      .optional()
      .describe(`Words describing the task; returns the ${LISTED_MATCHES} best-matching skills, best first`),
  },
} satisfies ToolDefinition;

export function registerListSkillsTool(server: McpServer, context: ToolContext): void {
  server.registerTool(listSkillsTool.name, { ...listSkillsTool, annotations: READ_ONLY }, ({ pack, query }) =>
    runTool(listSkillsTool.name, context.onInternalError, () => {
      const scope = narrowByPack(context.scope, pack);
      if (query === undefined || query.trim() === "") return text(formatListing(scope.skills, context.scope));
      const found = context.index.search(query, scope, LISTED_MATCHES);
      if (found.skills.length === 0) return text(noMatch(query, pack));
      return text(formatMatches(found, context.scope));
    }),
  );
}

/**
 * The matches, then what lies past them. A long request shares a word with nearly every skill, so the
 * count given is of strong matches (at least half the first one's score): many of them means the request
 * is ambiguous; none means the rest match only in part.
 */
function formatMatches(found: SearchResult, ceiling: Scope): string {
  const lines = found.skills.map((skill) => `${skillRef(skill, ceiling)}: ${skill.description}`);
  const strongMore = found.strongMatches - found.skills.length;
  if (strongMore > 0) {
    lines.push(
      `… ${plural(strongMore, "more skill")} matched nearly as well: add words to the query, or narrow with pack.`,
    );
  } else if (found.matched > found.skills.length) {
    lines.push("… other skills matched only in part: add words to the query, or narrow with pack.");
  }
  lines.push('Next: read_skill(skill="<name>").');
  return lines.join("\n");
}

function noMatch(query: string, pack: string | undefined): string {
  if (pack === undefined) {
    return `No skill matches "${query}". Describe the task in other words, or call list_packs to browse.`;
  }
  return (
    `No skill in "${pack}" matches "${query}". Describe the task in other words, search every pack ` +
    `by leaving out pack, or browse with list_skills(pack="${pack}").`
  );
}

function formatListing(skills: readonly Skill[], ceiling: Scope): string {
  const shown = skills.slice(0, LISTED_SKILLS);
  const lines = shown.map((skill) => `${skillRef(skill, ceiling)}: ${skill.description}`);
  if (skills.length > shown.length) {
    lines.push(`… ${plural(skills.length - shown.length, "more skill")}: narrow with pack or query.`);
  }
  lines.push('Next: read_skill(skill="<name>").');
  return lines.join("\n");
}
