import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ZodType, z } from "zod";
import type { ToolDefinition } from "./tool-metadata.js";

/** The methods this server answers besides tools/call, by the shape of their params. */
const REQUEST_SCHEMAS: ReadonlyMap<string, ZodType> = new Map<string, ZodType>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
]);

/** A tool and the schema of its arguments, built once: building a zod object costs more than using it. */
interface CheckedTool {
  readonly definition: ToolDefinition;
  readonly arguments: z.ZodObject;
}

/**
 * Answers a request that the SDK would answer badly, before the server sees it: params of the wrong
 * shape (the SDK says -32603, an internal error, with a multi-line dump of the schema's issues; here
 * -32602, invalid params), an unknown tool or arguments that do not fit the tool (the SDK's bare "Tool x
 * not found" and "expected string, received undefined at skill"). Each answer says what was wrong and
 * what is valid.
 */
export class CheckedTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  readonly #tools: ReadonlyMap<string, CheckedTool>;

  constructor(
    private readonly inner: Transport,
    tools: readonly ToolDefinition[],
  ) {
    this.#tools = new Map(
      tools.map((tool) => [tool.name, { definition: tool, arguments: z.object(tool.inputSchema) }]),
    );
  }

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message, extra) => {
      // Told by its members, not parsed again: the transport gave a valid JSON-RPC message.
      const answer = "method" in message && "id" in message ? this.#check(message) : undefined;
      if (answer === undefined) this.onmessage?.(message, extra);
      else this.inner.send(answer).catch((error: unknown) => this.onerror?.(asError(error)));
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The answer to a request that should not reach the server, or undefined to pass it on. */
  #check(request: JSONRPCRequest): JSONRPCMessage | undefined {
    if (request.method === "tools/call") return this.#checkCall(request);
    const schema = REQUEST_SCHEMAS.get(request.method);
    return schema === undefined || schema.safeParse(request).success
      ? undefined
      : invalidParams(request, schema);
  }

  #checkCall(request: JSONRPCRequest): JSONRPCMessage | undefined {
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) return invalidParams(request, CallToolRequestSchema);
    const { name, arguments: args } = parsed.data.params;
    const tool = this.#tools.get(name);
    const problem =
      tool === undefined
        ? `Unknown tool "${name}". The tools are: ${[...this.#tools.keys()].join(", ")}.`
        : argumentProblem(tool, args ?? {});
    if (problem === undefined) return undefined;
    // A tool result, as the SDK answers these, so that the model reads it and calls again.
    const result: CallToolResult = { content: [{ type: "text", text: problem }], isError: true };
    return { jsonrpc: "2.0", id: request.id, result };
  }
}

/**
 * Invalid params, each problem named. Parsed again to report the input, which the check that passes
 * nearly every request leaves out: reporting it costs three times as much.
 */
function invalidParams(request: JSONRPCRequest, schema: ZodType): JSONRPCMessage {
  const issues = schema.safeParse(request, { reportInput: true }).error?.issues ?? [];
  const problems = issues.map((issue) => describeIssue(issue, issue.path.join(".") || "the request"));
  return failure(request, `Invalid params for ${request.method}: ${problems.join("; ")}.`);
}

/** What is wrong with a tool's arguments, told so the model can fix it: which, what it must be, and why. */
function argumentProblem(tool: CheckedTool, args: Record<string, unknown>): string | undefined {
  if (tool.arguments.safeParse(args).success) return undefined;
  const issues = tool.arguments.safeParse(args, { reportInput: true }).error?.issues ?? [];
  const { inputSchema, name } = tool.definition;
  const problems = issues.map((issue) => {
    const [field] = issue.path;
    const schema = typeof field === "string" ? inputSchema[field] : undefined;
    const description = schema ? z.globalRegistry.get(schema)?.description : undefined;
    const problem = describeIssue(issue, `"${issue.path.join(".")}"`);
    return description ? `${problem} (${description})` : problem;
  });
  return `Invalid arguments for ${name}: ${problems.join("; ")}.`;
}

function describeIssue(issue: z.core.$ZodIssue, name: string): string {
  if (issue.code === "invalid_type") {
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    return issue.input === undefined
      ? `${name} is required, ${expected}`
      : `${name} must be ${expected}, not ${kindOf(issue.input)}`;
  }
  if (issue.code === "too_big" && issue.origin === "string") {
    return `${name} is too long: at most ${issue.maximum} characters`;
  }
  return `${name}: ${issue.message}`;
}

/** Zod's names of types, as a caller writing JSON knows them. */
const EXPECTED: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "an array",
};

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function failure(request: JSONRPCRequest, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id: request.id, error: { code: ErrorCode.InvalidParams, message } };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
