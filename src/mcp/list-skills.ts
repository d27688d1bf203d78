import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Scope, Skill } from "../catalog/index.js";
import type { ToolContext } from "./context.js";
import { narrowByPack, plural, runTool, skillRef, text } from "./format.js";
import { READ_ONLY, type ToolDefinition } from "./tool-metadata.js";

/** A listing longer than this would flood the model's context; it is cut with a hint to narrow. */
export const LISTED_SKILLS = 200;

export const listSkillsTool = {
  name: "list_skills",
  description: "List skills as `name: description` lines. Narrow with pack; search with query.",
  inputSchema: {
    pack: z.string().max(1000).optional().describe("Pack, group or pack/group from list_packs"),
    query: z.string().max(1000).optional().describe("Words describing the task; finds matching skills"),
  },
} satisfies ToolDefinition;

export function registerListSkillsTool(server: McpServer, context: ToolContext): void {
  server.registerTool(listSkillsTool.name, { ...listSkillsTool, annotations: READ_ONLY }, ({ pack, query }) =>
    runTool(listSkillsTool.name, context.onInternalError, () => {
      const scope = narrowByPack(context.scope, pack);
      if (query === undefined || query.trim() === "") return text(formatListing(scope.skills, context.scope));
      const found = context.index.search(query, scope);
      if (found.length === 0) {
        const where = pack === undefined ? "" : ` in "${pack}"`;
        return text(
          `No skill matches "${query}"${where}. Try other or fewer words, or list_packs to browse.`,
        );
      }
      return text(formatListing(found, context.scope));
    }),
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
