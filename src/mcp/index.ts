import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ListToolsRequestSchema, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { CheckedTransport } from "./checked-transport.js";
import type { ToolContext } from "./context.js";
import { listPacksTool, registerListPacksTool } from "./list-packs.js";
import { listSkillsTool, registerListSkillsTool } from "./list-skills.js";
import { readPackFileTool, registerReadPackFileTool } from "./read-pack-file.js";
import { readSkillTool, registerReadSkillTool } from "./read-skill.js";
import { type ToolDefinition, toListedTool } from "./tool-metadata.js";

export type { ToolContext } from "./context.js";
export { formatPacks } from "./list-packs.js";

/** Sent on initialize: how a model should browse, in the fewest calls. */
export const INSTRUCTIONS =
  "Skills are expert instructions for specific tasks. To use one: list_skills(query=<task>) or " +
  "list_packs then list_skills(pack); read_skill(skill) and follow it; read_skill(skill, file) for files " +
  "it cites, read_pack_file(pack, file) for shared pack paths it cites.";

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** The fixed tool surface, the same for every caller and every catalog. */
const TOOLS: readonly ToolDefinition[] = [listPacksTool, listSkillsTool, readSkillTool, readPackFileTool];
const TOOL_LIST: ListToolsResult = { tools: TOOLS.map(toListedTool) };

/** The names of the tools, in the order tools/list gives them. */
export const TOOL_NAMES: readonly string[] = TOOL_LIST.tools.map((tool) => tool.name);

/**
 * Every tool takes at most two strings; a bigger `arguments` object is refused before it is
 * validated, so a hostile payload cannot make validation walk a huge structure.
 */
const MAX_TOOL_INPUT_ELEMENTS = 16;

/** An MCP server of the four tools, to connect to one transport. */
export interface SkillsServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/**
 * One MCP server exposing the four tools over `context`. Requests reach it through a CheckedTransport,
 * which answers malformed params, unknown tools and wrong arguments itself, saying what is valid.
 */
export function createMcpServer(info: ServerInfo, context: ToolContext): SkillsServer {
  const server = new McpServer(info, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
  });
  registerListPacksTool(server, context);
  registerListSkillsTool(server, context);
  registerReadSkillTool(server, context);
  registerReadPackFileTool(server, context);
  server.server.setRequestHandler(ListToolsRequestSchema, () => TOOL_LIST);
  // The tools never change while the server runs, and a stateless server has no stream to say so on.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return {
    connect: (transport) => server.connect(new CheckedTransport(transport, TOOLS)),
    close: () => server.close(),
  };
}
