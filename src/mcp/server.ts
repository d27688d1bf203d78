import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  ReadResourceDirectoryRequestParamsSchema,
} from "@modelcontextprotocol/core/ext/skills";
import {
  type CacheHint,
  type CallToolRequest,
  type CallToolResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  McpServer,
  type McpServerOptions,
  type ProtocolEra,
  type Result,
  type Server,
  type ServerCapabilities,
  type ServerContext,
  type StandardSchemaV1,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import {
  SKILLS_EXTENSION_ID,
  SkillsExtension,
  type SkillWarning,
} from "@modelcontextprotocol/server/ext/skills";
import { z } from "zod";
import type { Catalog, Pack, Scope, Skill } from "../catalog/index.js";
import type { Inspection } from "../inspection/index.js";
import { isJsonObject } from "../json-rpc/index.js";
import {
  type Preview,
  type PreviewSettings,
  previewOf,
  steeringLine,
  TermFrequencies,
  workOutAhead,
} from "../preview/index.js";
import type { SearchIndex } from "../search/index.js";
import { editDistance, quoted, visible } from "../shared/index.js";
import type { RequestTag, ToolContext } from "./context.js";
import { type OnePageList, onePageCursor } from "./cursor.js";
import { notAnObject } from "./format.js";
import { listPacksTool } from "./list-packs.js";
import { listSkillsTool } from "./list-skills.js";
import { getPrompt, listPrompts } from "./prompts.js";
import { readPackFileTool } from "./read-pack-file.js";
import { readSkillTool } from "./read-skill.js";
import { readResource } from "./resource-read.js";
import type { ResourceWarning } from "./skill-namespace.js";
import { SkillResources } from "./skill-resources.js";
import { SCHEME } from "./skill-uris.js";
import { failure, type Tool } from "./tool.js";

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** The fixed tool surface, the same for every caller and every catalog. */
const TOOLS: readonly Tool[] = [listPacksTool, listSkillsTool, readSkillTool, readPackFileTool];
const TOOLS_BY_NAME: ReadonlyMap<string, Tool> = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** The names of the tools, in the order tools/list gives them. */
export const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);

/**
 * How long a 2026-07-28 client may keep a listing or a read: the skills change only when the server is
 * redeployed. Private, since what a caller sees depends on its X-Skill-Pack header and `?pack=`.
 */
const CACHE_HINT: CacheHint = { ttlMs: 5 * 60_000, cacheScope: "private" };

/** Everything a server is made of that does not depend on the caller: built once, at startup. */
export interface McpDeps {
  readonly info: ServerInfo;
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly resources: SkillResources;
  /** `PROMPTS=off` leaves the prompts out. */
  readonly prompts: boolean;
  /** How each scope's preview is written: on or off, and the packs' descriptions. */
  readonly preview: PreviewSettings;
  /**
   * How telling each term of the skills shown to models is, for the previews' summaries: read from the
   * saved index or tallied, after listening (see warmPreviews) or by the first preview, never before: at
   * ten thousand skills it takes tens to hundreds of milliseconds.
   */
  readonly terms: TermFrequencies;
  /** The skills no listing, search or preview names to a model (`disable-model-invocation: true`). */
  readonly unlisted: ReadonlySet<Skill>;
  /**
   * Told about failures that are not the caller's fault, so they can be logged without reaching it, with
   * what ties the line to the request they failed in.
   */
  readonly onInternalError: (error: unknown, tool: string, request: RequestTag) => void;
  /** Told what the SDK's Skills extension warns of while serving. */
  readonly onWarning: (warning: SkillWarning) => void;
}

interface McpDepsOptions {
  readonly info: ServerInfo;
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  /** What the inspection of each skill found: the Skills extension serves the entries it made. */
  readonly inspection: Inspection;
  readonly prompts?: boolean;
  /** `CATALOG_PREVIEW=off` sends the short, catalog-blind texts up front instead (default on). */
  readonly catalogPreview?: boolean;
  /** Descriptions of packs by name, over those `sources.json` gives. */
  readonly packDescriptions?: ReadonlyMap<string, string>;
  readonly onInternalError?: McpDeps["onInternalError"];
  readonly onWarning?: McpDeps["onWarning"];
  /** Told once of each skill and pack file that cannot be a `skill://` resource as it is. */
  readonly onResourceWarning?: (warning: ResourceWarning) => void;
  /** The tally of the listed skills' terms, when the saved index held it; else one is made, to be tallied. */
  readonly terms?: TermFrequencies;
}

/** The skills a listing, search or preview may name to a model: all but `disable-model-invocation: true`. */
export function listedSkills(catalog: Catalog): Skill[] {
  return catalog.everything.skills.filter((skill) => skill.modelInvocable);
}

/** What every server of a catalog is made of, built once: the catalog's resources are worked out here. */
export function buildMcpDeps(options: McpDepsOptions): McpDeps {
  const { inspection, catalog } = options;
  const resources = SkillResources.build(
    catalog.everything,
    (skill) => inspection.of(skill).entry,
    options.onResourceWarning ?? (() => {}),
  );
  const listed = listedSkills(catalog);
  const unlisted = new Set(catalog.everything.skills);
  for (const skill of listed) unlisted.delete(skill);
  const described = catalog.sources.flatMap(({ name, description }) =>
    description === undefined ? [] : [[name, description] as const],
  );
  return {
    info: options.info,
    catalog,
    index: options.index,
    resources,
    prompts: options.prompts ?? true,
    preview: {
      enabled: options.catalogPreview ?? true,
      describedPack: describedWhole(new Map([...described, ...(options.packDescriptions ?? [])]), listed),
    },
    terms: options.terms ?? new TermFrequencies(listed),
    unlisted,
    onInternalError: options.onInternalError ?? (() => {}),
    onWarning: options.onWarning ?? (() => {}),
  };
}

/** Each pack's description, for a scope whose pack holds every listed skill of the pack. */
function describedWhole(
  descriptions: ReadonlyMap<string, string>,
  listed: readonly Skill[],
): (pack: Pack) => string | undefined {
  const wholeSizes = new Map<string, number>();
  for (const skill of listed) wholeSizes.set(skill.pack, (wholeSizes.get(skill.pack) ?? 0) + 1);
  return (pack) =>
    pack.skills.length === wholeSizes.get(pack.name) ? descriptions.get(pack.name) : undefined;
}

/** The protocol revision of the modern era, which a request names in its `_meta` envelope. */
export const MODERN_REVISION = "2026-07-28";

/**
 * Makes a server of a scope for the protocol era it will serve, as the SDK's entries (`createMcpHandler`,
 * `serveStdio`) tell their factories; legacy when not told.
 */
export type ServerFactory = (made?: { readonly era: ProtocolEra }) => McpServer;

/**
 * What every server of a scope says of itself: its instructions are the scope's preview. The McpServer
 * handles resources, for the Skills extension; the tools and prompts are answered by handlers of this
 * file, and declared beside them. A server made for the modern era lists its revision among those it
 * supports: the SDK binds a server to that revision on connecting it only then (its own entries add it
 * themselves).
 */
function serverOptions(preview: Preview, era: ProtocolEra): McpServerOptions {
  return {
    ...(era === "modern"
      ? { supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION] }
      : {}),
    // Nothing changes while the server runs, and a stateless server has no stream to say so on.
    capabilities: { resources: { listChanged: false } },
    instructions: preview.instructions,
    cacheHints: {
      "tools/list": CACHE_HINT,
      "prompts/list": CACHE_HINT,
      "resources/list": CACHE_HINT,
      "resources/templates/list": CACHE_HINT,
      "resources/read": CACHE_HINT,
      "server/discover": CACHE_HINT,
    },
  };
}

/**
 * `tools/list` for a scope: list_skills described by the scope's preview and marked to load up front
 * (Claude Code defers the descriptions of MCP tools, and shows those marked `anthropic/alwaysLoad`); the
 * other three can wait until a model looks for them.
 */
function toolListFor(preview: Preview): ListToolsResult {
  return {
    tools: TOOLS.map((tool) =>
      tool === listSkillsTool
        ? { ...tool.listed, description: preview.listSkillsDescription, _meta: ALWAYS_LOAD }
        : tool.listed,
    ),
  };
}
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true };

/**
 * `resources/templates/list`: the one template the Skills extension registers (its id, every URI of the
 * scheme), as McpServer's own handler lists it, which ignores a cursor (see onePage). Assumption (held by
 * test/http/sdk-contract.test.ts): the extension registers exactly this, and McpServer lists it so.
 */
export const RESOURCE_TEMPLATES: ListResourceTemplatesResult = {
  resourceTemplates: [{ name: SKILLS_EXTENSION_ID, uriTemplate: `${SCHEME}{+path}` }],
};

/**
 * A handler of `list`, which gives everything in one page: `result`, or, for any cursor (none and `""`
 * read alike before this, see requestAsMeant), the refusal the paged lists give a cursor they never gave.
 */
function onePage<Result>(list: OnePageList, result: Result): (params: { cursor?: string }) => Result {
  return ({ cursor }) => {
    if (cursor !== undefined) throw onePageCursor(list);
    return result;
  };
}
/**
 * The params of resources/read, prompts/get and the listings this file answers, checked here: the SDK's
 * own check of a spec request throws a plain error, which a client would get as -32603 (an internal
 * error, typescript-sdk#2284), not as Invalid params.
 */
const READ_PARAMS = z.object({ uri: z.string() });
const LIST_PARAMS = z.object({ cursor: z.string().optional() });
const PROMPT_ARGUMENTS = "a JSON object (the prompts take none, so it may be left out)";
/**
 * A prompt's `arguments` are checked only to be an object, refused in the words a tools/call's are (see
 * notAnObject): the prompts take no arguments, and ignore those sent, as the tools ignore unknown ones,
 * whatever their values (`{"a": 1}` was refused, `{"a": "1"}` ignored).
 */
const PROMPT_PARAMS = z
  .object({ name: z.string(), arguments: z.unknown().optional() })
  .refine(({ arguments: args }) => args === undefined || isJsonObject(args), {
    // Also beside a wrong name, so that one answer says all that is wrong, as a tools/call's does.
    when: ({ value }) => isJsonObject(value),
    error: ({ input }) =>
      notAnObject("arguments", isJsonObject(input) ? input.arguments : input, PROMPT_ARGUMENTS),
  });

/**
 * Each method this file answers with a handler whose params the SDK checks first, and the schema it checks
 * them against: declared here only, registered by answerChecked and looked up by paramsSchemaOf.
 */
const CHECKED_PARAMS = {
  "tools/list": LIST_PARAMS,
  "prompts/list": LIST_PARAMS,
  "prompts/get": PROMPT_PARAMS,
  "resources/list": LIST_PARAMS,
  "resources/templates/list": LIST_PARAMS,
  "resources/read": READ_PARAMS,
} as const;
type CheckedMethod = keyof typeof CHECKED_PARAMS;

/** The params schemas of the Skills extension's handlers, which it registers itself (its package exports them). */
const EXTENSION_PARAMS: ReadonlyMap<string, StandardSchemaV1> = new Map<string, StandardSchemaV1>([
  ["skills/list", ListSkillsRequestParamsSchema],
  ["skills/get", GetSkillRequestParamsSchema],
  ["resources/directory/read", ReadResourceDirectoryRequestParamsSchema],
]);

/** Registers `handler` for `method` with the one schema CHECKED_PARAMS declares for it. */
function answerChecked<Method extends CheckedMethod>(
  server: Server,
  method: Method,
  handler: (
    params: StandardSchemaV1.InferOutput<(typeof CHECKED_PARAMS)[Method]>,
    ctx: ServerContext,
  ) => Result | Promise<Result>,
): void {
  server.setRequestHandler(method, { params: CHECKED_PARAMS[method] }, handler);
}

/** The schema of `method`'s params that the SDK checks before its handler, if it checks one. */
export function paramsSchemaOf(method: string): StandardSchemaV1 | undefined {
  return isChecked(method) ? CHECKED_PARAMS[method] : EXTENSION_PARAMS.get(method);
}

function isChecked(method: string): method is CheckedMethod {
  return Object.hasOwn(CHECKED_PARAMS, method);
}

const TOOLS_CAPABILITY: ServerCapabilities = { tools: { listChanged: false } };
const PROMPTS_CAPABILITY: ServerCapabilities = { prompts: { listChanged: false } };

/**
 * What ties a failed call to its request where the transport has no request of its own (stdio): the
 * JSON-RPC id the client gave it, as the SDK hands it to the handler, written visibly (see `visible`).
 */
function rpcIdOf(call: ServerContext): RequestTag {
  const { id } = call.mcpReq;
  return { rpcId: typeof id === "string" ? visible(id) : id };
}

/**
 * The MCP servers of one caller's scope: the four tools, each skill as a prompt, and the Skills
 * extension with every skill file and pack file as a `skill://` resource. What depends on the scope alone
 * (the handlers bound to it, the extension and its view of the scope) is made here, once; each call then
 * builds a server (over HTTP, one per scope and era, and one for each request the SDK's entries answer;
 * over stdio, one per connection), registering a fixed number of handlers whatever the size of the
 * catalog.
 */
export function serverFactoryFor(
  deps: McpDeps,
  scope: Scope,
  /** What ties a failed call to its request, asked only of a call that failed inside the server. */
  tagOf: (call: ServerContext) => RequestTag = rpcIdOf,
): ServerFactory {
  const listed = scope.without(deps.unlisted);
  const preview = previewOf(listed, deps.terms, deps.preview);
  // On first use: a scope's first request is seldom a prompt's, and the filter goes over every skill.
  let prompted: readonly Skill[] | undefined;
  const context: ToolContext = {
    catalog: deps.catalog,
    index: deps.index,
    scope,
    listed,
    preview,
    get prompted() {
      prompted ??= scope.skills.filter((skill) => skill.userInvocable);
      return prompted;
    },
    onInternalError: (error, tool, call) => deps.onInternalError(error, tool, tagOf(call)),
  };
  const options = { legacy: serverOptions(preview, "legacy"), modern: serverOptions(preview, "modern") };
  const toolList = toolListFor(preview);
  const listTools = onePage("tools/list", toolList);
  const listTemplates = onePage("resources/templates/list", RESOURCE_TEMPLATES);
  const source = deps.resources.sourceFor(scope, deps.catalog.files);
  const extension = new SkillsExtension({ source, cacheHint: CACHE_HINT, onWarning: deps.onWarning });
  const answerRead = ({ uri }: { uri: string }, ctx: ServerContext) =>
    readResource(source, uri, ctx, context.onInternalError, (asked) =>
      deps.resources.isFolderIn(scope, asked),
    );
  const answerToolCall = ({ params }: CallToolRequest, ctx: ServerContext) =>
    callTool(params.name, params.arguments ?? {}, context, ctx);
  const answerPromptList = ({ cursor }: { cursor?: string }) => listPrompts(context, cursor);
  const answerResourceList = ({ cursor }: { cursor?: string }) => deps.resources.listResources(scope, cursor);
  const answerPrompt = ({ name }: { name: string }, ctx: ServerContext) => getPrompt(context, name, ctx);
  return (made) => {
    const mcp = new McpServer(deps.info, options[made?.era ?? "legacy"]);
    // The tools and prompts are answered here rather than registered one by one: their lists are fixed,
    // and a prompt per skill would cost a registration per skill for every request.
    const { server } = mcp;
    server.registerCapabilities(TOOLS_CAPABILITY);
    answerChecked(server, "tools/list", listTools);
    server.setRequestHandler("tools/call", answerToolCall);
    if (deps.prompts) {
      server.registerCapabilities(PROMPTS_CAPABILITY);
      answerChecked(server, "prompts/list", answerPromptList);
      answerChecked(server, "prompts/get", answerPrompt);
    }
    extension.attach(mcp);
    // The extension's resources/read resolves `..` and `.` in a URI before reading it, its resources/list
    // takes no cursor, listing every file of a large catalog at once, and the resources/templates/list of
    // its template ignores one: all three are answered here instead.
    server.removeRequestHandler("resources/read");
    answerChecked(server, "resources/read", answerRead);
    server.removeRequestHandler("resources/list");
    answerChecked(server, "resources/list", answerResourceList);
    server.removeRequestHandler("resources/templates/list");
    answerChecked(server, "resources/templates/list", listTemplates);
    return mcp;
  };
}

function callTool(
  name: string,
  args: Readonly<Record<string, unknown>>,
  context: ToolContext,
  call: ServerContext,
): Promise<CallToolResult> | CallToolResult {
  const tool = TOOLS_BY_NAME.get(name);
  if (tool !== undefined) return tool.call(args, context, call);
  const meant = TOOL_NAMES.find((tool) => standsFor(name, tool));
  const guess = meant === undefined ? "" : ` Did you mean: ${meant}?`;
  return failure(`Unknown tool ${quoted(name)}.${guess} The tools are: ${TOOL_NAMES.join(", ")}.`);
}

/**
 * Whether an unknown tool's `name` stands for `tool`: the same letters in another case or spelling
 * (`listSkills`, `list-skills`), the name behind a prefix a host gives MCP tools (`mcp__skills__read_skill`,
 * `skills.list_packs`), or a slip away (`list_skill`).
 */
function standsFor(name: string, tool: string): boolean {
  const given = name.toLowerCase().replace(/[_\-\s]/g, "");
  const wanted = tool.replace(/_/g, "");
  return given.endsWith(wanted) || editDistance(given, wanted, 2) <= 2;
}

/**
 * The steering line of `scope` (see steeringLine): what to add to CLAUDE.md, AGENTS.md or a system prompt
 * so that a model looks for these skills, naming only what the scope's listings would.
 */
export function steeringFor(deps: McpDeps, scope: Scope): string {
  return steeringLine(scope.without(deps.unlisted), deps.terms, deps.preview);
}

/** The tool a `tools/call` names, if it is one of the four. */
export function findTool(name: unknown): Tool | undefined {
  return typeof name === "string" ? TOOLS_BY_NAME.get(name) : undefined;
}

/**
 * Works out ahead what the first previews of the whole catalog need (see workOutAhead), awaiting
 * `between` between slices so that requests are served meanwhile; nothing when previews are off.
 */
export function warmPreviews(deps: McpDeps, between: () => Promise<void>): Promise<void> {
  if (!deps.preview.enabled) return Promise.resolve();
  return workOutAhead(deps.catalog.everything.without(deps.unlisted), deps.terms, between);
}
