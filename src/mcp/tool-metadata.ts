import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { type ZodRawShape, z } from "zod";

/** A tool's contract with the model: its name, what it does and its arguments. Data, not code. */
export interface ToolDefinition<Shape extends ZodRawShape = ZodRawShape> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Shape;
}

/** Every tool only reads the catalog baked into the server. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations: ToolAnnotations;
}

/**
 * The `tools/list` entry of a tool, computed once: the SDK would rebuild the JSON Schema on every
 * call, and adds `$schema` and `execution` fields that no client needs but every model pays for.
 */
export function toListedTool(tool: ToolDefinition): ListedTool {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(z.object(tool.inputSchema), { io: "input" });
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { ...schema, type: "object" },
    annotations: READ_ONLY,
  };
}
