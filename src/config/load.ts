import path from "node:path";
import { parseArgs } from "node:util";
import { describeArgsError, editDistance, listedWithAnd, quoted, validOptions } from "../shared/index.js";
import { OPTIONS, SAVED_INDEX_NAME } from "./options.js";
import {
  mebibytes,
  misspelledSettings,
  readSettings,
  SETTINGS,
  type SettingFiles,
  type SettingName,
  splitList,
} from "./settings.js";

export type Transport = "http" | "stdio";

export interface Config {
  readonly skillsDir: string;
  /** Where `skillsDir` came from, so the log can say when the bundled examples are served. */
  readonly skillsDirOrigin: "SKILLS_DIR" | "./skills" | "examples";
  /**
   * The working folder a relative SKILLS_DIR was read from: a client that starts the server over stdio
   * chooses it, so a missing folder's message says so.
   */
  readonly skillsDirReadFrom?: string;
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
  /** Environment variables one slip from a setting's name, which the server warns about at startup. */
  readonly misspelledSettings: readonly string[];
  /**
   * The invalid values of HTTP settings where nothing serves HTTP (over stdio, --build-index, --steering),
   * which stop nothing there: the server warns about each at startup, saying so.
   */
  readonly ignoredSettings: readonly string[];
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
  /** An idle connection is closed after this long without a request. */
  readonly keepAliveTimeoutMs: number;
  /** Larger request bodies are refused with 413. */
  readonly maxBodyBytes: number;
}

/** A configuration problem: the server cannot start, and the message says what is valid. */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    message: string,
    /** Whether the command line is wrong (exit status 2, as every other command's), not only a setting. */
    readonly usage = false,
  ) {
    super(message);
  }
}

/** Where loadConfig resolves relative paths, and how it reads the files its settings name. */
interface ConfigPlace {
  readonly cwd: string;
  readonly files: SettingFiles;
}

/**
 * Turns the environment and command line into a frozen Config, or throws one ConfigError listing every
 * problem. The only reader of `process.env` is the caller that passes it in, and of the disk the `files`
 * it passes (src/startup's loadStartupConfig gives the machine's own). Each setting is read as
 * settings.ts declares it.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[],
  { cwd, files }: ConfigPlace,
): Config {
  const problems: string[] = [];
  const args = readCommandLine(argv, problems);
  const buildIndex = args["build-index"] === true;
  const steering = args.steering === true;
  const wrongCommandLine = problems.length > 0;

  // TRANSPORT first, without its problems (read again below): where nothing serves HTTP, its settings are
  // not checked.
  const askedTransport = SETTINGS.TRANSPORT.read(env.TRANSPORT, {
    cwd,
    files,
    problems: [],
    name: "TRANSPORT",
  });
  // Over stdio, and for --build-index and --steering (which save or print, and exit), nothing serves HTTP.
  const servesHttp = !args.stdio && askedTransport === "http" && !buildIndex && !steering;
  const ignored: string[] = [];
  const values = readSettings(env, { cwd, files, problems }, servesHttp ? undefined : ignored);
  const { skillsDir, skillsDirOrigin, skillsDirReadFrom } = values.SKILLS_DIR;
  // Not when the command line is wrong (--build-index --steering): that comes first, and this would bury it.
  if (buildIndex && skillsDirOrigin === "examples" && !wrongCommandLine) {
    problems.push(
      `--build-index saves into the skills folder: set SKILLS_DIR (or run where ./skills is); the bundled examples need no saved index`,
    );
  }

  // --help and --version read no setting: a bad one in the environment must not hide the help that fixes it.
  const answersAlone = args.help === true || args.version === true;
  if (problems.length > 0 && !answersAlone) throw new ConfigError(problems.join("; "), wrongCommandLine);

  const transport = args.stdio ? "stdio" : values.TRANSPORT;
  const withoutHttp = buildIndex ? "to --build-index" : steering ? "to --steering" : "over stdio";
  return Object.freeze({
    skillsDir,
    skillsDirOrigin,
    ...(skillsDirReadFrom === undefined ? {} : { skillsDirReadFrom }),
    savedIndexFile: path.join(skillsDir, SAVED_INDEX_NAME),
    prompts: values.PROMPTS === "on",
    catalogPreview: values.CATALOG_PREVIEW === "on",
    packDescriptions: values.PACK_DESCRIPTIONS,
    serveUnsafeSkills: values.UNSAFE_SKILLS === "serve",
    skillPacks: values.SKILL_PACKS,
    port: values.PORT,
    host: values.HOST,
    logLevel: values.LOG_LEVEL,
    transport,
    help: args.help === true,
    version: args.version === true,
    steering,
    steeringPacks: Object.freeze((args.pack ?? []).flatMap(splitList)),
    buildIndex,
    http: httpSettings(values),
    shutdownDrainMs: values.SHUTDOWN_DRAIN_MS,
    misspelledSettings: Object.freeze(misspelledSettings(env, servesHttp ? undefined : withoutHttp)),
    ignoredSettings: Object.freeze(
      ignored.map((problem) => `${problem}; ignored: it applies only over HTTP, not ${withoutHttp}`),
    ),
  });
}

/** What preparing a skills folder reads of the config (src/startup's prepareAudit): which skills, and where. */
export type CatalogConfig = Pick<
  Config,
  | "skillsDir"
  | "skillsDirOrigin"
  | "skillsDirReadFrom"
  | "skillPacks"
  | "savedIndexFile"
  | "serveUnsafeSkills"
  | "buildIndex"
  | "steering"
>;

/** The settings a command that checks a skills folder uses: which skills the server would serve. */
const CATALOG_SETTINGS: readonly SettingName[] = ["SKILLS_DIR", "SKILL_PACKS", "UNSAFE_SKILLS"];

/**
 * The config of a command that checks a skills folder as the server would prepare it (check-skills,
 * audit-skills), named by `command`: it reads only CATALOG_SETTINGS, and an invalid value of any other
 * setting (a `PORT` left in the shell for a server) is a warning in `ignoredSettings`, not a refusal, and
 * a variable one slip from one it reads (`SKILL_PACK`, which checked every pack) one in `misspelledSettings`.
 */
export function loadCatalogConfig(
  env: Readonly<Record<string, string | undefined>>,
  command: string,
  { cwd, files }: ConfigPlace,
): CatalogConfig & Pick<Config, "misspelledSettings" | "ignoredSettings"> {
  const problems: string[] = [];
  const ignored: string[] = [];
  const reads = (name: SettingName) => CATALOG_SETTINGS.includes(name);
  const values = readSettings(env, { cwd, files, problems }, ignored, reads);
  if (problems.length > 0) throw new ConfigError(problems.join("; "));
  const { skillsDir, skillsDirOrigin, skillsDirReadFrom } = values.SKILLS_DIR;
  return Object.freeze({
    skillsDir,
    skillsDirOrigin,
    ...(skillsDirReadFrom === undefined ? {} : { skillsDirReadFrom }),
    savedIndexFile: path.join(skillsDir, SAVED_INDEX_NAME),
    skillPacks: values.SKILL_PACKS,
    serveUnsafeSkills: values.UNSAFE_SKILLS === "serve",
    buildIndex: false,
    steering: false,
    // None of the settings it reads is HTTP's, so a slip is told as the server tells it over HTTP.
    misspelledSettings: Object.freeze(misspelledSettings(env, undefined, reads)),
    ignoredSettings: Object.freeze(
      ignored.map(
        (problem) => `${problem}; ignored: ${command} reads only ${listedWithAnd(CATALOG_SETTINGS)}`,
      ),
    ),
  });
}

/** The options of the command line: what parseArgs gives for OPTIONS. */
interface CommandLine {
  readonly stdio?: boolean;
  readonly "build-index"?: boolean;
  readonly steering?: boolean;
  readonly pack?: string[];
  readonly version?: boolean;
  readonly help?: boolean;
}

/**
 * A first word a slip from `sync` (`sycn`, `Sync`), said to be: the server's options alone never tell that
 * the command exists.
 */
function commandSlip(argv: readonly string[]): string | undefined {
  const [first] = argv;
  if (first === undefined || editDistance(first.toLowerCase(), "sync", 2) > 2) return undefined;
  return `unexpected argument ${quoted(first)}: did you mean sync? (skills-mcp sync --help); valid: ${validOptions(OPTIONS)}`;
}

/** `argv` as options, each problem with one, or with how they go together, said in `problems`. */
function readCommandLine(argv: readonly string[], problems: string[]): CommandLine {
  let args: CommandLine = {};
  try {
    args = parseArgs({ args: [...argv], options: OPTIONS, strict: true }).values;
  } catch (error) {
    problems.push(commandSlip(argv) ?? describeArgsError(error, OPTIONS));
  }
  const buildIndex = args["build-index"] === true;
  const steering = args.steering === true;
  if (buildIndex && args.stdio)
    problems.push("--build-index saves the search index and exits: it serves nothing, over stdio or HTTP");
  if (steering && (buildIndex || args.stdio))
    problems.push("--steering prints a line and exits: it takes neither --build-index nor --stdio");
  if (args.pack !== undefined && !steering)
    problems.push("--pack narrows --steering; to narrow what the server loads, set SKILL_PACKS");
  // A blank --pack (an unset variable in a script) would otherwise give the line of every pack.
  if (args.pack !== undefined && steering && args.pack.flatMap(splitList).length === 0)
    problems.push("--pack needs a selector (a pack, group or pack/group); leave it out for every pack");
  return args;
}

/** The HTTP edge's settings as the server applies them: the keys of both sources, memory in bytes. */
function httpSettings(values: ReturnType<typeof readSettings>): HttpSettings {
  return Object.freeze({
    allowedOrigins: values.ALLOWED_ORIGINS,
    allowedHosts: values.ALLOWED_HOSTS,
    apiKeys: Object.freeze([...values.API_KEYS, ...values.API_KEYS_FILE]),
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    trustProxyHops: values.TRUST_PROXY,
    shedEventLoopDelayMs: values.SHED_EVENT_LOOP_DELAY_MS,
    shedEventLoopUtilization: values.SHED_EVENT_LOOP_UTILIZATION,
    shedRssBytes: mebibytes(values.SHED_RSS_MB),
    requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: values.KEEP_ALIVE_TIMEOUT_MS,
    maxBodyBytes: values.MAX_BODY_BYTES,
  });
}
