import type {
  CallToolResult,
  Tool as ListedTool,
  ServerContext,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import { type ZodRawShape, z } from "zod";
import { jsonKindOf } from "../json-rpc/index.js";
import { quoted } from "../shared/index.js";
import type { ToolContext } from "./context.js";

/**
 * Whether the answer to a call can be kept and given again to the same call in the same scope: every tool
 * only reads the catalog, which does not change while it is served. A search is kept only once asked a
 * second time, since most searches are asked once.
 */
export type AnswerKeeping = "always" | "when-repeated";

/** A mistake of the caller: its message goes back to the model as an `isError` result. */
export class ToolError extends Error {
  override name = "ToolError";
}

/** A tool as written: its contract with the model (name, description, arguments) and what it does. */
interface ToolSpec<Shape extends ZodRawShape> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Shape;
  /** Told the arguments as sent (not yet checked); every answer is kept when this is not given. */
  readonly keeping?: (args: Readonly<Record<string, unknown>>) => AnswerKeeping;
  /** Whether an answer may hold a file's text (at most MAX_FILE_BYTES of it), which weighs it. */
  readonly readsFiles?: boolean;
  /**
   * The string arguments that a list of strings may stand for, each with what joins the items: models
   * send words as a list (`keywords: ["helm", "chart"]`) and several packs as one.
   */
  readonly joins?: { readonly [Name in keyof Shape]?: string };
  /** The answer's text; a ToolError's message goes back to the model as an `isError` result. */
  readonly run: (args: z.output<z.ZodObject<Shape>>, context: ToolContext) => string | Promise<string>;
}

/** A tool ready to serve: its `tools/list` entry and its argument schema are built once, at startup. */
export interface Tool {
  readonly name: string;
  readonly listed: ListedTool;
  readonly readsFiles: boolean;
  keeping(args: Readonly<Record<string, unknown>>): AnswerKeeping;
  /** The answer to a call; `call` is the handler's context, which a failure inside the server is logged with. */
  call(
    args: Readonly<Record<string, unknown>>,
    context: ToolContext,
    call: ServerContext,
  ): Promise<CallToolResult>;
}

/** Every tool only reads the catalog baked into the server. */
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/**
 * Every tool takes at most two strings; a bigger `arguments` object is refused before it is checked, so
 * that a hostile payload cannot make the check walk a huge structure.
 */
const MAX_ARGUMENTS = 16;

export function defineTool<Shape extends ZodRawShape>(spec: ToolSpec<Shape>): Tool {
  const schema = z.object(spec.inputSchema);
  const optional = Object.entries(spec.inputSchema)
    .filter(([, field]) => z.safeParse(field, undefined).success)
    .map(([name]) => name);
  const keeping = spec.keeping ?? (() => "always");
  const names = Object.keys(spec.inputSchema);
  return {
    name: spec.name,
    listed: listedTool(spec, schema),
    readsFiles: spec.readsFiles ?? false,
    keeping: (args) => keeping(joined(renamed(spec.name, names, args).args, spec.joins)),
    async call(args, context, call) {
      const { args: named, note } = renamed(spec.name, names, args);
      const checked = checkArguments(spec, schema, withoutBlanks(joined(named, spec.joins), optional));
      if (!checked.ok) return failure(checked.problem, note);
      try {
        return success(await spec.run(checked.value, context), note);
      } catch (error) {
        if (error instanceof ToolError) return failure(error.message, note);
        // A file that vanished, a permission error: the operator hears of it, the caller gets no internals.
        context.onInternalError(error, spec.name, call);
        return failure(
          `${spec.name} failed inside the server; the error was logged. Try again or make another call.`,
          note,
        );
      }
    },
  };
}

function success(text: string, note = ""): CallToolResult {
  return { content: [{ type: "text", text: note + text }] };
}

/** A tool result, not a protocol error: the model reads it and calls again. */
export function failure(text: string, note = ""): CallToolResult {
  return { content: [{ type: "text", text: note + text }], isError: true };
}

/**
 * Keys that clients add to a call's arguments on their own, never the model's, passed over in silence:
 * n8n's MCP Client Tool adds toolCallId, the tool's name and at times a session id, and from a chat
 * trigger's item its action and chatInput (n8n issues #21500, #21716, #22787). So is any key beginning
 * with `_`, as `_meta`, which hosts that take request metadata from a tool's arguments leave there.
 */
const CLIENT_KEYS: ReadonlySet<string> = new Set([
  "toolCallId",
  "tool",
  "sessionId",
  "action",
  "chatInput",
  "input",
]);

/**
 * Names models give the arguments, written as {@link letters} makes them, each with the arguments it may
 * stand for: the first one the tool takes and the call leaves out is meant.
 */
const MEANT: ReadonlyMap<string, readonly string[]> = new Map(
  (
    [
      [
        ["query"],
        "search q keyword keywords filter term terms searchquery searchterm searchtext text task topic " +
          "question prompt request description goal intent words phrase",
      ],
      // A skill's name where no argument is `skill`: list_skills searches for it, which puts it first.
      [["skill", "query"], "skill skillname slug skills"],
      [["skill"], "skillid id"],
      // `name`, where no argument is `skill` either, is read_pack_file's pack.
      [["skill", "query", "pack"], "name"],
      [["pack"], "packname packid packs group groupname collection category namespace"],
      [["file"], "path filename filepath files relativepath uri document"],
    ] as const
  ).flatMap(([meant, aliases]) => aliases.split(" ").map((alias) => [alias, meant] as const)),
);

/** A name as models vary it: `skill_name`, `skillName`, `Skill-Name` are all `skillname`. */
function letters(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, "");
}

/**
 * The arguments, those sent one level down lifted up, with each unknown one a model misnamed under the
 * name it meant (`search` as `query`), and a first line telling the model what was read otherwise or
 * ignored and what the tool takes; no line for a call without unknown arguments, nor for the keys
 * clients add (see {@link CLIENT_KEYS}).
 */
function renamed(
  tool: string,
  names: readonly string[],
  args: Readonly<Record<string, unknown>>,
): { args: Readonly<Record<string, unknown>>; note: string } {
  // Refused as too many before anything else (see checkArguments): no walk, no note on each key.
  if (Object.keys(args).length > MAX_ARGUMENTS) return { args, note: "" };
  const given = unwrapped(names, args);
  const unknown = Object.keys(given).filter(
    (key) => !names.includes(key) && !CLIENT_KEYS.has(key) && !key.startsWith("_") && !blank(given[key]),
  );
  if (unknown.length === 0) return { args: given, note: "" };
  const named: Record<string, unknown> = { ...given };
  const read: string[] = [];
  const ignored: string[] = [];
  for (const key of unknown) {
    const candidates = [
      ...names.filter((name) => letters(name) === letters(key)),
      ...(MEANT.get(letters(key)) ?? []),
    ];
    const meant = candidates.find((name) => names.includes(name) && blank(named[name]));
    if (meant === undefined) {
      ignored.push(quoted(key, 40));
      continue;
    }
    named[meant] = named[key];
    delete named[key];
    read.push(`${quoted(key, 40)} as "${meant}"`);
  }
  const takes = names.length === 0 ? "no arguments" : names.join(" and ");
  const lines = [
    ...(read.length > 0 ? [`Read ${read.join(", ")}.`] : []),
    ...(ignored.length > 0 ? [`Ignored ${ignored.join(", ")}: ${tool} takes ${takes}.`] : []),
  ];
  return { args: named, note: `${lines.join("\n")}\n` };
}

/**
 * Keys under which some clients send the arguments themselves, one level down: the Hermes agent runtime
 * sends `{"arguments": {…}}` (homeassistant-ai/ha-mcp#2216), and models copy the shape from the protocol.
 */
const WRAPPERS: ReadonlySet<string> = new Set([
  "arguments",
  "args",
  "params",
  "parameters",
  "input",
  "kwargs",
]);

/**
 * The arguments with those sent one level down (see {@link WRAPPERS}) lifted up, in silence: the answer
 * is the one meant, and a model cannot fix what its client does. What is given at the top prevails.
 */
function unwrapped(
  names: readonly string[],
  args: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  for (const [wrapper, value] of Object.entries(args)) {
    if (!WRAPPERS.has(wrapper) || names.includes(wrapper)) continue;
    const inner = wrappedArguments(value);
    if (inner === undefined) continue;
    if (Object.keys(inner).length > MAX_ARGUMENTS) return args;
    const { [wrapper]: _lifted, ...rest } = args;
    const lifted = Object.entries(inner).filter(([key]) => blank(rest[key]));
    return { ...rest, ...Object.fromEntries(lifted) };
  }
  return args;
}

/**
 * The arguments a wrapper holds: an object, or a string holding one, as models write the arguments
 * when they encode them as JSON twice (`{"arguments": "{\"query\": \"csv\"}"}`). Ignored, that
 * string left the call without its arguments: a search answered with the whole listing.
 */
function wrappedArguments(value: unknown): Readonly<Record<string, unknown>> | undefined {
  const held = typeof value === "string" && value.trimStart().startsWith("{") ? parsedOrNot(value) : value;
  return typeof held === "object" && held !== null && !Array.isArray(held)
    ? (held as Readonly<Record<string, unknown>>)
    : undefined;
}

/** `text` parsed as JSON, or undefined when it is none. */
function parsedOrNot(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether an argument reads as not given. */
function blank(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/**
 * The `tools/list` entry: the JSON Schema of the arguments without `$schema`, which no client needs but
 * every model would pay for on every turn, and without the keywords of {@link CHECKED_HERE}.
 */
function listedTool<Shape extends ZodRawShape>(
  spec: ToolSpec<Shape>,
  schema: z.ZodObject<Shape>,
): ListedTool {
  const { $schema: _ignored, properties = {}, ...inputSchema } = z.toJSONSchema(schema, { io: "input" });
  const shown = Object.entries(properties).map(([name, property]) => [name, forModels(property)]);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: { ...inputSchema, type: "object", properties: Object.fromEntries(shown) },
    annotations: READ_ONLY,
  };
}

/**
 * Keywords that the server applies itself and leaves out of the listed schema: OpenAI's strict mode
 * refuses them, so a host that passes the schema on in strict mode (the OpenAI Agents SDK with
 * convert_schemas_to_strict) fails every request, and VS Code strips them from GPT-4 models' tools with a
 * warning. A default the model should know is said in the argument's description.
 */
const CHECKED_HERE: ReadonlySet<string> = new Set(["default", "maxLength"]);

function forModels(property: z.core.JSONSchema._JSONSchema): z.core.JSONSchema._JSONSchema {
  if (typeof property === "boolean") return property;
  return Object.fromEntries(Object.entries(property).filter(([keyword]) => !CHECKED_HERE.has(keyword)));
}

/** The arguments with each list of strings that `joins` says a string argument may be given as joined. */
function joined(
  args: Readonly<Record<string, unknown>>,
  joins: Readonly<Record<string, string | undefined>> | undefined,
): Readonly<Record<string, unknown>> {
  if (joins === undefined) return args;
  const lists = Object.entries(args).flatMap(([name, value]) => {
    // Own members only: an argument named `constructor` would otherwise find Object.prototype's.
    const joiner = Object.hasOwn(joins, name) ? joins[name] : undefined;
    const strings = Array.isArray(value) && value.every((item) => typeof item === "string");
    return joiner !== undefined && strings ? [[name, value.join(joiner)] as const] : [];
  });
  return lists.length === 0 ? args : { ...args, ...Object.fromEntries(lists) };
}

/**
 * The arguments less the optional ones sent as null or "", which read as not given. OpenAI's strict mode
 * makes every argument required, so models fill those they mean to leave out with null or "" (and clients
 * that adapt schemas for it send null); refused, the call fails for an argument the model never meant.
 */
function withoutBlanks(
  args: Readonly<Record<string, unknown>>,
  optional: readonly string[],
): Readonly<Record<string, unknown>> {
  const blank = (name: string) => optional.includes(name) && (args[name] === null || args[name] === "");
  if (!optional.some(blank)) return args;
  return Object.fromEntries(Object.entries(args).filter(([name]) => !blank(name)));
}

/**
 * A tool's arguments as its schema makes them, or what is wrong with them, told so that the model can fix
 * it: which argument, what it must be, and what it is for.
 */
function checkArguments<Shape extends ZodRawShape>(
  spec: ToolSpec<Shape>,
  schema: z.ZodObject<Shape>,
  args: Readonly<Record<string, unknown>>,
): { ok: true; value: z.output<z.ZodObject<Shape>> } | { ok: false; problem: string } {
  const count = Object.keys(args).length;
  if (count > MAX_ARGUMENTS) {
    return {
      ok: false,
      problem: `Too many arguments for ${spec.name}: ${count}, where the maximum of ${MAX_ARGUMENTS} is more than any tool takes.`,
    };
  }
  const checked = schema.safeParse(args);
  if (checked.success) return { ok: true, value: checked.data };
  // Parsed again to report the input, which the check that passes nearly every call leaves out.
  const issues = schema.safeParse(args, { reportInput: true }).error?.issues ?? [];
  const problems = issues.map((issue) => {
    const [field] = issue.path;
    const fieldSchema = typeof field === "string" ? spec.inputSchema[field] : undefined;
    const purpose = fieldSchema ? z.globalRegistry.get(fieldSchema)?.description : undefined;
    const problem = describeIssue(issue, `"${issue.path.join(".")}"`);
    return purpose ? `${problem} (${purpose})` : problem;
  });
  return { ok: false, problem: `Invalid arguments for ${spec.name}: ${problems.join("; ")}.` };
}

/** One problem in plain words: `"skill" is required, a string`, `"file" must be a string, not a number`. */
function describeIssue(issue: z.core.$ZodIssue, name: string): string {
  if (issue.code === "invalid_type") {
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    return issue.input === undefined
      ? `${name} is required, ${expected}`
      : `${name} must be ${expected}, not ${jsonKindOf(issue.input)}`;
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
