import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Pack } from "../catalog/index.js";
import type { ToolContext } from "./context.js";
import { plural, text } from "./format.js";
import { READ_ONLY, type ToolDefinition } from "./tool-metadata.js";

/** Past this many groups a pack's answer shows its largest groups only, so huge catalogs stay readable. */
const LISTED_GROUPS = 25;

export const listPacksTool: ToolDefinition<Record<string, never>> = {
  name: "list_packs",
  description: "List skill packs and their groups with skill counts. Start here to browse.",
  inputSchema: {},
};

export function registerListPacksTool(server: McpServer, context: ToolContext): void {
  server.registerTool(listPacksTool.name, { ...listPacksTool, annotations: READ_ONLY }, () =>
    text(formatPacks(context.scope.packs)),
  );
}

export function formatPacks(packs: readonly Pack[]): string {
  const lines = packs.flatMap(formatPack);
  const hasFiles = packs.some((pack) => pack.files.size > 0);
  lines.push(
    `Next: list_skills(pack="<pack or group>") or list_skills(query="<task>")${hasFiles ? "; read_pack_file(pack) lists a pack's shared files" : ""}.`,
  );
  return lines.join("\n");
}

function formatPack(pack: Pack): string[] {
  const files = pack.files.size > 0 ? `, ${plural(pack.files.size, "pack file")}` : "";
  const lines = [`${pack.name}: ${plural(pack.skills.length, "skill")}${files}`];
  const groups = [...pack.groups].sort((a, b) => b.skills.length - a.skills.length).slice(0, LISTED_GROUPS);
  const shown = new Set(groups);
  for (const group of pack.groups) {
    if (shown.has(group)) lines.push(`  ${group.name}: ${group.skills.length}`);
  }
  const hidden = pack.groups.length - groups.length;
  if (hidden > 0) lines.push(`  … and ${plural(hidden, "smaller group")}`);
  return lines;
}
