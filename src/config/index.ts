import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMap, parseDocument } from "yaml";
import { MAX_PACK_DESCRIPTION } from "../catalog/index.js";

export type Transport = "http" | "stdio";

export interface Config {
  readonly skillsDir: string;
  /** Where `skillsDir` came from, so the log can say when the bundled examples are served. */
  readonly skillsDirOrigin: "SKILLS_DIR" | "./skills" | "examples";
  /** `SKILL_PACKS` selectors: everything else is not loaded at all. Empty means every pack. */
  readonly skillPacks: readonly string[];
  readonly port: number;
  readonly host: string;
  readonly logLevel: string;
  readonly transport: Transport;
  readonly help: boolean;
  /** `--version`: print the version and exit. */
  readonly version: boolean;
  /**
   * `--steering`: print a line for CLAUDE.md, AGENTS.md or a system prompt that tells a model when to use
   * the skills of `steeringPacks` (all loaded when empty), and exit.
   */
  readonly steering: boolean;
  readonly steeringPacks: readonly string[];
  /** `--build-index`: build the search index, save it to `savedIndexFile` and exit instead of serving. */
  readonly buildIndex: boolean;
  /** The saved index: written by `--build-index`, loaded at startup when it fits the catalog. */
  readonly savedIndexFile: string;
  /** `PROMPTS`: whether each skill is also an MCP prompt. */
  readonly prompts: boolean;
  /** `CATALOG_PREVIEW`: whether what a model sees up front names the packs in scope and their tasks. */
  readonly catalogPreview: boolean;
  /** `PACK_DESCRIPTIONS`: descriptions of packs by name, over those of `sources.json`. */
  readonly packDescriptions: ReadonlyMap<string, string>;
  /** `UNSAFE_SKILLS=serve`: serve skills a high finding of the audit makes unsafe (with a warning). */
  readonly serveUnsafeSkills: boolean;
  /** How the HTTP transport defends itself; ignored over stdio. */
  readonly http: HttpSettings;
  /** How long SIGTERM keeps serving with readiness failed, so load balancers stop sending first. */
  readonly shutdownDrainMs: number;
}

/** The HTTP edge's protections and limits. Every field has a safe default; see USAGE. */
export interface HttpSettings {
  /** Browser origins allowed to call the server; any other `Origin` header is refused with 403. */
  readonly allowedOrigins: readonly string[];
  /** When not empty, `/mcp` refuses a `Host` header that is not listed (`host` or `host:port`). */
  readonly allowedHosts: readonly string[];
  /** When not empty, `/mcp` requires `Authorization: Bearer <one of these>`. */
  readonly apiKeys: readonly string[];
  /** Requests per minute per client on `/mcp`; 0 means no limit. */
  readonly rateLimitPerMinute: number;
  /** Proxies in front whose `X-Forwarded-For` names the client (for rate limiting and logs). */
  readonly trustProxyHops: number;
  /** `/mcp` answers 503 while the mean event-loop delay is over this; 0 turns the check off. */
  readonly shedEventLoopDelayMs: number;
  /** `/mcp` answers 503 while event-loop utilisation (0-1) is over this; 0 turns the check off. */
  readonly shedEventLoopUtilization: number;
  /** `/mcp` answers 503 while resident memory is over this many bytes; 0 turns the check off. */
  readonly shedRssBytes: number;
  /** A client must send a whole request within this time, or the connection is closed. */
  readonly requestTimeoutMs: number;
  /** Larger request bodies are refused with 413. */
  readonly maxBodyBytes: number;
}

/** A configuration problem: the server cannot start, and the message says what is valid. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export const EXAMPLES_DIR = fileURLToPath(new URL("../../examples/skills", import.meta.url));
/** In the skills folder, hidden so that the catalog does not take it for a pack. */
export const SAVED_INDEX_NAME = ".search-index";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const DEFAULT_SHED_DELAY_MS = 1000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
const DEFAULT_DRAIN_MS = 2000;
/** After the drain, in-flight requests get this long before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 2500;
/** Shorter keys are refused at startup: a bearer key must not be guessable. */
const MIN_API_KEY_LENGTH = 16;

export const USAGE = `Usage: skills-mcp [--stdio] [--build-index] [--steering [--pack SELECTOR]...] [--version] [--help]
       skills-mcp sync <server URL> --to <folder> [options]   (skills-mcp sync --help)

Serves Agent Skills over MCP: Streamable HTTP on /mcp (default) or stdio. \`sync\` installs a server's skills
into a local skills folder, verified, for coding agents that read skills from disk.

Options:
  --stdio        serve over stdin/stdout instead of HTTP (same as TRANSPORT=stdio)
  --build-index  build the search index of the skills (SKILLS_DIR, as SKILL_PACKS selects them) and the
                 digests of their files, save them to SKILLS_DIR/${SAVED_INDEX_NAME} and exit; a server started
                 on the same skills then loads them instead (what no longer fits is worked out again)
  --steering     print a line for CLAUDE.md, AGENTS.md or an agent's system prompt that tells a model when to
                 look for these skills, and exit; --pack (repeatable, or a comma list) narrows it as
                 X-Skill-Pack would
  --version      print the version and exit
  -h, --help     show this help

Environment:
  SKILLS_DIR     folder with one sub-folder per pack (default: ./skills if it exists, else the bundled examples)
  SKILL_PACKS    comma list of packs, groups or pack/group to load; the rest is not loaded
  PORT           HTTP port (default 8000)
  HOST           HTTP address (default 0.0.0.0)
  LOG_LEVEL      ${LOG_LEVELS.join(", ")} (default info)
  TRANSPORT      http or stdio (default http)
  PROMPTS        on or off: each skill is also an MCP prompt, for clients' slash commands (default on)
  CATALOG_PREVIEW  on or off: the server's instructions and list_skills's description name the packs in the
                 caller's scope and what their skills are for, so that a model looks for them; off sends
                 one generic sentence instead, which costs fewer tokens on every turn (default on)
  PACK_DESCRIPTIONS  YAML or JSON file mapping pack names to descriptions (at most ${MAX_PACK_DESCRIPTION} characters), over
                 those of skills.toml; a pack without one is summarized from its skills
  UNSAFE_SKILLS  leave-out or serve: a skill with a high finding of the audit (hidden Unicode, bidi
                 controls...; see npm run audit-skills) is left out, or served with a warning (default leave-out)

HTTP protection and limits (see README, docs/security.md):
  ALLOWED_ORIGINS    comma list of browser origins (https://app.example.com) that may call the server;
                     a request with any other Origin header gets 403 (default: none; no Origin is fine)
  ALLOWED_HOSTS      comma list of host or host:port values accepted in the Host header of /mcp
                     (default: any)
  API_KEYS           comma list of keys; when set, /mcp requires Authorization: Bearer <key>
  API_KEYS_FILE      file with one key per line (blank lines and # comments ignored), added to API_KEYS
  RATE_LIMIT_PER_MINUTE  requests per minute per client address on /mcp, 0 = off (default 0)
  TRUST_PROXY        number of proxies in front whose X-Forwarded-For names the client (default 0)
  SHED_EVENT_LOOP_DELAY_MS     /mcp answers 503 + Retry-After above this event-loop delay, 0 = off (default ${DEFAULT_SHED_DELAY_MS})
  SHED_EVENT_LOOP_UTILIZATION  same above this event-loop utilisation, 0-1, 0 = off (default 0)
  SHED_RSS_MB        same above this resident memory in MiB, 0 = off (default 0)
  REQUEST_TIMEOUT_MS time a client has to send a whole request, and may stall while taking an answer
                     that holds a file (default ${DEFAULT_REQUEST_TIMEOUT_MS})
  MAX_BODY_BYTES     larger request bodies get 413 (default ${DEFAULT_MAX_BODY_BYTES})
  SHUTDOWN_DRAIN_MS  on SIGTERM, keep serving this long with /health at 503 before closing
                     (default ${DEFAULT_DRAIN_MS}); the process exits at most ${SHUTDOWN_GRACE_MS} ms later`;

/**
 * `UNSAFE_SKILLS`: `serve` serves the skills a high finding of the audit makes unsafe, `leave-out` (the
 * default) leaves them out. Throws a ConfigError for any other value. Shared with `check-skills`, which
 * says what the server would do.
 */
export function serveUnsafeSkills(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.UNSAFE_SKILLS?.trim().toLowerCase() || "leave-out";
  if (value !== "leave-out" && value !== "serve") {
    throw new ConfigError(`UNSAFE_SKILLS "${env.UNSAFE_SKILLS}" is not one of leave-out, serve`);
  }
  return value === "serve";
}

/** Splits a comma list (`a, b,,c`) into its non-empty, trimmed items. */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/**
 * Turns the environment and command line into a frozen Config, or throws one ConfigError listing every
 * problem. The only reader of `process.env` is the caller that passes it in.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[] = [],
  cwd: string = process.cwd(),
): Config {
  const problems: string[] = [];
  let args: {
    stdio?: boolean;
    "build-index"?: boolean;
    steering?: boolean;
    pack?: string[];
    version?: boolean;
    help?: boolean;
  } = {};
  try {
    args = parseArgs({
      args: [...argv],
      options: {
        stdio: { type: "boolean" },
        "build-index": { type: "boolean" },
        steering: { type: "boolean" },
        pack: { type: "string", multiple: true },
        version: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (error) {
    problems.push(
      `${(error as Error).message} (valid options: --stdio, --build-index, --steering, --pack, --version, --help)`,
    );
  }
  const buildIndex = args["build-index"] === true;
  const steering = args.steering === true;
  if (buildIndex && args.stdio)
    problems.push("--build-index saves the search index and exits: it serves nothing, over stdio or HTTP");
  if (steering && (buildIndex || args.stdio))
    problems.push("--steering prints a line and exits: it takes neither --build-index nor --stdio");
  if (args.pack !== undefined && !steering)
    problems.push("--pack narrows --steering; to narrow what the server loads, set SKILL_PACKS");

  const port = parsePort(env.PORT, problems);
  const logLevel = env.LOG_LEVEL?.trim() || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL "${logLevel}" is not one of ${LOG_LEVELS.join(", ")}`);
  }
  const transportName = env.TRANSPORT?.trim() || (args.stdio ? "stdio" : "http");
  if (transportName !== "http" && transportName !== "stdio") {
    problems.push(`TRANSPORT "${transportName}" is not one of http, stdio`);
  }

  const prompts = env.PROMPTS?.trim().toLowerCase() || "on";
  if (prompts !== "on" && prompts !== "off") problems.push(`PROMPTS "${env.PROMPTS}" is not one of on, off`);
  const catalogPreview = env.CATALOG_PREVIEW?.trim().toLowerCase() || "on";
  if (catalogPreview !== "on" && catalogPreview !== "off") {
    problems.push(`CATALOG_PREVIEW "${env.CATALOG_PREVIEW}" is not one of on, off`);
  }
  const packDescriptions = parsePackDescriptions(env.PACK_DESCRIPTIONS, cwd, problems);

  let serveUnsafe = false;
  try {
    serveUnsafe = serveUnsafeSkills(env);
  } catch (error) {
    problems.push((error as ConfigError).message);
  }

  const http = parseHttpSettings(env, cwd, problems);
  const shutdownDrainMs = parseNumber(env, "SHUTDOWN_DRAIN_MS", DEFAULT_DRAIN_MS, problems, {
    min: 0,
    max: 60_000,
    integer: true,
  });

  const skillsDir = resolveSkillsDir(env.SKILLS_DIR, cwd);
  if (buildIndex && skillsDir.skillsDirOrigin === "examples") {
    problems.push(
      `--build-index saves into the skills folder: set SKILLS_DIR (or run where ./skills is); the bundled examples need no saved index`,
    );
  }

  if (problems.length > 0) throw new ConfigError(problems.join("; "));

  return Object.freeze({
    ...skillsDir,
    savedIndexFile: path.join(skillsDir.skillsDir, SAVED_INDEX_NAME),
    prompts: prompts !== "off",
    catalogPreview: catalogPreview !== "off",
    packDescriptions,
    serveUnsafeSkills: serveUnsafe,
    skillPacks: Object.freeze(splitList(env.SKILL_PACKS)),
    port,
    host: env.HOST?.trim() || "0.0.0.0",
    logLevel,
    transport: args.stdio ? "stdio" : (transportName as Transport),
    help: args.help === true,
    version: args.version === true,
    steering,
    steeringPacks: Object.freeze((args.pack ?? []).flatMap(splitList)),
    buildIndex,
    http,
    shutdownDrainMs,
  });
}

function parseHttpSettings(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  problems: string[],
): HttpSettings {
  const number = (name: string, fallback: number, range: NumberRange) =>
    parseNumber(env, name, fallback, problems, range);
  return Object.freeze({
    allowedOrigins: Object.freeze(parseOrigins(env.ALLOWED_ORIGINS, problems)),
    allowedHosts: Object.freeze(parseHosts(env.ALLOWED_HOSTS, problems)),
    apiKeys: Object.freeze(parseApiKeys(env, cwd, problems)),
    rateLimitPerMinute: number("RATE_LIMIT_PER_MINUTE", 0, { min: 0, max: 1_000_000, integer: true }),
    trustProxyHops: number("TRUST_PROXY", 0, { min: 0, max: 10, integer: true }),
    shedEventLoopDelayMs: number("SHED_EVENT_LOOP_DELAY_MS", DEFAULT_SHED_DELAY_MS, {
      min: 0,
      max: 60_000,
      integer: true,
    }),
    shedEventLoopUtilization: number("SHED_EVENT_LOOP_UTILIZATION", 0, { min: 0, max: 1, integer: false }),
    shedRssBytes: number("SHED_RSS_MB", 0, { min: 0, max: 1_048_576, integer: true }) * 1024 * 1024,
    requestTimeoutMs: number("REQUEST_TIMEOUT_MS", DEFAULT_REQUEST_TIMEOUT_MS, {
      min: 100,
      max: 600_000,
      integer: true,
    }),
    maxBodyBytes: number("MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, {
      min: 1024,
      max: 16 * 1024 * 1024,
      integer: true,
    }),
  });
}

interface NumberRange {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

function parseNumber(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  problems: string[],
  range: NumberRange,
): number {
  const value = env[name]?.trim();
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (
    !Number.isFinite(number) ||
    (range.integer && !Number.isInteger(number)) ||
    number < range.min ||
    number > range.max
  ) {
    const kind = range.integer ? "a whole number" : "a number";
    problems.push(`${name} "${value}" is not ${kind} from ${range.min} to ${range.max}`);
    return fallback;
  }
  return number;
}

/** Origins as browsers send them: scheme://host[:port], lowercase, no path. */
function parseOrigins(value: string | undefined, problems: string[]): string[] {
  const origins: string[] = [];
  for (const item of splitList(value)) {
    let origin: string | undefined;
    try {
      const url = new URL(item);
      const bare = item.replace(/\/$/, "").toLowerCase();
      if ((url.protocol === "http:" || url.protocol === "https:") && url.origin === bare) origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined) {
      problems.push(
        `ALLOWED_ORIGINS entry "${item}" is not an origin (scheme://host[:port], e.g. https://app.example.com)`,
      );
    } else origins.push(origin);
  }
  return origins;
}

const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/;

function parseHosts(value: string | undefined, problems: string[]): string[] {
  const hosts: string[] = [];
  for (const item of splitList(value)) {
    const host = item.toLowerCase();
    if (HOST_PATTERN.test(host)) hosts.push(host);
    else problems.push(`ALLOWED_HOSTS entry "${item}" is not a host or host:port (e.g. skills.example.com)`);
  }
  return hosts;
}

/** Keys from API_KEYS and API_KEYS_FILE. Problems name a key by its position, never by its value. */
function parseApiKeys(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  problems: string[],
): string[] {
  const keys = splitList(env.API_KEYS).map((key, index) => ({ key, where: `API_KEYS item ${index + 1}` }));
  const file = env.API_KEYS_FILE?.trim();
  if (file) {
    const fullPath = path.resolve(cwd, file);
    const before = keys.length;
    try {
      readFileSync(fullPath, "utf8")
        .split(/\r?\n/)
        .forEach((line, index) => {
          const key = line.trim();
          if (key !== "" && !key.startsWith("#"))
            keys.push({ key, where: `API_KEYS_FILE line ${index + 1}` });
        });
      if (keys.length === before) problems.push(`API_KEYS_FILE ${fullPath} holds no key (one key per line)`);
    } catch (error) {
      problems.push(`API_KEYS_FILE ${fullPath} cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  for (const { key, where } of keys) {
    if (key.length < MIN_API_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      problems.push(
        `${where} is not a valid key (at least ${MIN_API_KEY_LENGTH} visible ASCII characters, no spaces)`,
      );
    }
  }
  return keys.map(({ key }) => key);
}

/** Pack names as folders of a skills folder may have them: anything but path separators and NUL. */
const PACK_NAME = /^[^/\\\0]+$/;

/**
 * `PACK_DESCRIPTIONS`: a YAML (or JSON) file mapping pack names to descriptions, read at startup so that an
 * operator can describe packs without rebuilding the image. Problems name the file and the key.
 */
function parsePackDescriptions(
  value: string | undefined,
  cwd: string,
  problems: string[],
): ReadonlyMap<string, string> {
  const descriptions = new Map<string, string>();
  const file = value?.trim();
  if (!file) return descriptions;
  const fullPath = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(fullPath, "utf8");
  } catch (error) {
    problems.push(`PACK_DESCRIPTIONS ${fullPath} cannot be read (${(error as NodeJS.ErrnoException).code})`);
    return descriptions;
  }
  const document = parseDocument(text, { logLevel: "error" });
  if (document.errors.length > 0 || !isMap(document.contents)) {
    problems.push(
      `PACK_DESCRIPTIONS ${fullPath} is not a YAML or JSON mapping of pack names to descriptions (pack: text)`,
    );
    return descriptions;
  }
  for (const [name, description] of Object.entries(document.toJS() as Record<string, unknown>)) {
    const text = typeof description === "string" ? description.replace(/\s+/g, " ").trim() : "";
    if (!PACK_NAME.test(name)) problems.push(`PACK_DESCRIPTIONS ${fullPath}: "${name}" is not a pack name`);
    else if (text === "" || text.length > MAX_PACK_DESCRIPTION) {
      problems.push(
        `PACK_DESCRIPTIONS ${fullPath}: the description of ${name} must be a text of 1 to ${MAX_PACK_DESCRIPTION} characters`,
      );
    } else descriptions.set(name, text);
  }
  return descriptions;
}

function resolveSkillsDir(
  value: string | undefined,
  cwd: string,
): Pick<Config, "skillsDir" | "skillsDirOrigin"> {
  if (value?.trim()) return { skillsDir: path.resolve(cwd, value.trim()), skillsDirOrigin: "SKILLS_DIR" };
  const local = path.resolve(cwd, "skills");
  if (existsSync(local)) return { skillsDir: local, skillsDirOrigin: "./skills" };
  return { skillsDir: EXAMPLES_DIR, skillsDirOrigin: "examples" };
}

function parsePort(value: string | undefined, problems: string[]): number {
  if (value === undefined || value.trim() === "") return 8000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    problems.push(`PORT "${value}" is not a port number (0-65535)`);
    return 8000;
  }
  return port;
}
