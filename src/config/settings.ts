import path from "node:path";
import { isMap, parseDocument } from "yaml";
import {
  editDistance,
  MAX_PACK_DESCRIPTION,
  noKey,
  notOneOf,
  quoted,
  unreadableFile,
} from "../shared/index.js";

/**
 * Every setting the server reads from its environment, declared once: its name, its default, how its
 * value is read and checked, and its help. USAGE, loadConfig and the tests all come from this table, and a
 * test holds the README's tables to it.
 */

/**
 * What the settings need from the machine, given by the caller: reading them touches no disk itself, so
 * that they can be tested without one. src/startup's DISK_FILES is the machine's own.
 */
export interface SettingFiles {
  /** Whether anything is at `fullPath` (the default skills folder, ./skills). */
  readonly exists: (fullPath: string) => boolean;
  /** The text of the file at `fullPath` (PACK_DESCRIPTIONS, API_KEYS_FILE); throws a system error. */
  readonly readText: (fullPath: string) => string;
  /** The bundled examples' folder, served when no skills folder is given. */
  readonly examplesDir: () => string;
}

/** What a setting's reader is given besides its value. */
interface ReadContext {
  readonly cwd: string;
  readonly files: SettingFiles;
  /** Where a reader says what is wrong with its value; loadConfig then refuses to start with all of them. */
  readonly problems: string[];
  /** The setting's name, for what a reader says. */
  readonly name: string;
}

export interface Setting<T> {
  /** Where USAGE lists it. */
  readonly section: "server" | "http";
  /** The default when the setting has one value to show, as USAGE and the README write it (`8000`). */
  readonly default?: string | number;
  /** The default in words, when it is no single value ("all", "none"). */
  readonly defaultText?: string;
  /** One or a few sentences for USAGE, without the default, which USAGE adds. */
  readonly help: string;
  /** The values a number is read in, which USAGE and the README's table give as `from MIN to MAX`. */
  readonly range?: NumberRange;
  /** The value of the environment variable (undefined when unset) as the config holds it. */
  readonly read: (value: string | undefined, context: ReadContext) => T;
}

const setting = <T>(declared: Setting<T>): Setting<T> => declared;

/**
 * One of `choices`, in any case (`INFO`, `HTTP`, `Off`: the choices are lowercase words, and a deployment
 * writes them as its other settings); `fallback` when unset or refused.
 */
function choice<const C extends string>(choices: readonly C[], fallback: C, help: string): Setting<C> {
  return {
    section: "server",
    default: fallback,
    help,
    read: (value, { problems, name }) => {
      const folded = (value?.trim() ?? "").toLowerCase() || fallback;
      if ((choices as readonly string[]).includes(folded)) return folded as C;
      problems.push(notOneOf(name, value ?? "", choices));
      return fallback;
    },
  };
}

interface NumberRange {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

/** A number in `range`; `fallback` when unset or refused. */
function numeric(
  fallback: number,
  range: NumberRange,
  help: string,
  options: { readonly off?: boolean } = {},
): Setting<number> {
  return {
    section: "http",
    default: fallback,
    // An operator reads what is valid before trying a value, not in the refusal after.
    help: `${help}; ${options.off ? "0 = off; " : ""}from ${range.min} to ${range.max}`,
    range,
    read: (text, { problems, name }) => {
      const value = text?.trim();
      if (value === undefined || value === "") return fallback;
      const number = decimal(value);
      if (!inRange(number, range)) {
        const kind = range.integer ? "a whole number" : "a number";
        problems.push(refusedNumber(name, value, `${kind} from ${range.min} to ${range.max}`, range));
        return fallback;
      }
      return number;
    },
  };
}

function inRange(number: number, range: NumberRange): boolean {
  return (
    Number.isFinite(number) &&
    (!range.integer || Number.isInteger(number)) &&
    number >= range.min &&
    number <= range.max
  );
}

const PORT_RANGE: NumberRange = { min: 0, max: 65_535, integer: true };

/**
 * What is wrong with a refused number. One JavaScript reads as a valid value (`.5`, `1e4`, `0x1F40`) is
 * refused for how it is written, not for its value: saying it is out of range would be false.
 */
function refusedNumber(name: string, value: string, valid: string, range: NumberRange): string {
  const meant = Number(value);
  return inRange(meant, range)
    ? `${name} ${quoted(value)} is not written in decimal digits: write ${meant}`
    : `${name} ${quoted(value)} is not ${valid}`;
}

/**
 * A number written as people write one (`8000`, `0.5`): JavaScript's Number() also reads `0x1F40`,
 * `1e3` and `0b11`, which would put a server on a port nobody wrote. NaN for anything else.
 */
function decimal(text: string): number {
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * Whether a comma list was given but holds only commas and spaces, as a template whose parts came out
 * empty (`${A},${B}`) gives it: read as unset, it would turn off what the setting was set for.
 */
function namesNothing(value: string | undefined, items: readonly string[]): value is string {
  return value !== undefined && value !== "" && items.length === 0;
}

/** Splits a comma list (`a, b,,c`) into its non-empty, trimmed items. */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** After the drain, in-flight requests get this long before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 2500;
/** Shorter keys are refused at startup: a bearer key must not be guessable. */
const MIN_API_KEY_LENGTH = 16;
const MIB = 1024 * 1024;

/** The settings, in the order USAGE and the README list them. */
export const SETTINGS = {
  SKILLS_DIR: setting({
    section: "server",
    defaultText: "./skills if it exists, else the bundled examples",
    help: "folder with one sub-folder per pack",
    read: (value, { cwd, files }) => resolveSkillsDir(value, cwd, files),
  }),
  SKILL_PACKS: setting({
    section: "server",
    defaultText: "all",
    help: "comma list of packs, groups or pack/group to load; the rest is not loaded",
    read: (value, { problems, name }) => {
      const selectors = splitList(value);
      // Commas and spaces alone (a template whose parts came out empty) would load every pack.
      if (namesNothing(value, selectors)) {
        problems.push(
          `${name} ${quoted(value)} names no pack or group, only commas and spaces: set a comma list of packs, groups or pack/group, or leave it unset (or empty) to load every pack`,
        );
      }
      return Object.freeze(selectors);
    },
  }),
  PORT: setting({
    section: "server",
    default: 8000,
    help: "HTTP port",
    read: (value, { problems, name }) => {
      if (value === undefined || value.trim() === "") return 8000;
      const port = decimal(value.trim());
      if (inRange(port, PORT_RANGE)) return port;
      problems.push(refusedNumber(name, value, "a port number (0-65535)", PORT_RANGE));
      return 8000;
    },
  }),
  HOST: setting({
    section: "server",
    default: "0.0.0.0",
    help: "HTTP address; 0.0.0.0 is IPv4 only, :: listens on IPv6 and IPv4",
    read: (value) => value?.trim() || "0.0.0.0",
  }),
  LOG_LEVEL: choice(LOG_LEVELS, "info", LOG_LEVELS.join(", ")),
  TRANSPORT: choice(["http", "stdio"], "http", "http or stdio; --stdio is the same as stdio"),
  PROMPTS: choice(
    ["on", "off"],
    "on",
    "on or off: each skill is also an MCP prompt, for clients' slash commands",
  ),
  CATALOG_PREVIEW: choice(
    ["on", "off"],
    "on",
    "on or off: the server's instructions and list_skills's description name the packs in the caller's " +
      "scope and what their skills are for, so that a model looks for them; off sends one generic sentence " +
      "instead, which costs fewer tokens on every turn",
  ),
  PACK_DESCRIPTIONS: setting({
    section: "server",
    defaultText: "none",
    help:
      `YAML or JSON file mapping pack names to descriptions (at most ${MAX_PACK_DESCRIPTION} characters), over ` +
      "those of skills.toml; a pack without one is summarized from its skills",
    read: (value, context) => readPackDescriptions(value, context),
  }),
  UNSAFE_SKILLS: choice(
    ["leave-out", "serve"],
    "leave-out",
    "leave-out or serve: a skill with a high finding of the audit (hidden Unicode, bidi controls...; see " +
      "npm run audit-skills) is left out, or served with a warning",
  ),
  ALLOWED_ORIGINS: setting({
    section: "http",
    defaultText: "none; no Origin is fine",
    help:
      "comma list of browser origins (https://app.example.com) that may call the server; a request with any " +
      "other Origin header gets 403",
    read: (value, { problems }) => Object.freeze(readOrigins(value, problems)),
  }),
  ALLOWED_HOSTS: setting({
    section: "http",
    defaultText: "any",
    help: "comma list of host or host:port values accepted in the Host header of /mcp",
    read: (value, { problems, name }) => {
      // Read as unset, commas alone would accept any Host: the DNS-rebinding check off.
      if (namesNothing(value, splitList(value))) {
        problems.push(
          `${name} ${quoted(value)} names no host, only commas and spaces: set a comma list of host or host:port values, or leave it unset (or empty) to accept any Host`,
        );
      }
      return Object.freeze(readHosts(value, problems));
    },
  }),
  API_KEYS: setting({
    section: "http",
    defaultText: "none",
    help: "comma list of keys; when set, /mcp requires Authorization: Bearer <key>",
    read: (value, { problems, name }) => {
      const keys = splitList(value);
      // Read as unset, commas alone would serve /mcp without a key, where API_KEYS_FILE without one is refused.
      if (namesNothing(value, keys)) {
        problems.push(
          `${name} ${quoted(value)} names no key, only commas and spaces: set a comma list of keys, or leave it unset (or empty) for no authentication`,
        );
      }
      return checkedKeys(
        keys.map((key, index) => ({ key, where: `API_KEYS item ${index + 1}` })),
        problems,
      );
    },
  }),
  API_KEYS_FILE: setting({
    section: "http",
    defaultText: "none",
    help: "file with one key per line (blank lines and # comments ignored), added to API_KEYS",
    read: (value, context) => readKeysFile(value, context),
  }),
  RATE_LIMIT_PER_MINUTE: numeric(
    0,
    { min: 0, max: 1_000_000, integer: true },
    "requests per minute per client address on /mcp",
    { off: true },
  ),
  TRUST_PROXY: numeric(
    0,
    { min: 0, max: 10, integer: true },
    "number of proxies in front whose X-Forwarded-For names the client",
  ),
  SHED_EVENT_LOOP_DELAY_MS: numeric(
    1000,
    { min: 0, max: 60_000, integer: true },
    "/mcp answers 503 + Retry-After above this event-loop delay",
    { off: true },
  ),
  SHED_EVENT_LOOP_UTILIZATION: numeric(
    0,
    { min: 0, max: 1, integer: false },
    "same above this event-loop utilisation",
    { off: true },
  ),
  SHED_RSS_MB: numeric(
    0,
    { min: 0, max: 1_048_576, integer: true },
    "same above this resident memory in MiB",
    { off: true },
  ),
  REQUEST_TIMEOUT_MS: numeric(
    10_000,
    { min: 100, max: 600_000, integer: true },
    "time a client has to send a whole request, and may stall while taking an answer that holds a file",
  ),
  KEEP_ALIVE_TIMEOUT_MS: numeric(
    72_000,
    { min: 1000, max: 3_600_000, integer: true },
    "how long an idle connection is kept open for the client's next request; keep it above the idle " +
      "timeout of a load balancer or proxy in front (GCP: 620000), or it may answer its clients 502",
  ),
  MAX_BODY_BYTES: numeric(
    64 * 1024,
    { min: 1024, max: 16 * MIB, integer: true },
    "larger request bodies get 413",
  ),
  SHUTDOWN_DRAIN_MS: numeric(
    2000,
    { min: 0, max: 60_000, integer: true },
    "on SIGTERM, keep serving this long with /health at 503 before closing; the process exits at most " +
      `${SHUTDOWN_GRACE_MS} ms later`,
  ),
} as const satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;
/** Each setting as its reader gives it. */
type SettingValues = { readonly [Name in SettingName]: ReturnType<(typeof SETTINGS)[Name]["read"]> };

/**
 * Every setting read from `env`, each problem said in `context`. Where nothing serves HTTP (over stdio, and
 * for the commands that serve nothing) the HTTP settings do nothing: they are read (the config holds a
 * value for each) but a problem with one goes to `ignored`, for a warning, rather than stop the command, as
 * a `PORT` left in a shell for another server would otherwise stop an agent's stdio server, or the
 * `--build-index` of an image.
 */
export function readSettings(
  env: Readonly<Record<string, string | undefined>>,
  context: Omit<ReadContext, "name">,
  /** Where nothing serves HTTP, where the problems of its settings go; HTTP is served without it. */
  ignored?: string[],
  /** The settings the command uses: by default all but HTTP's; the problems of the others go to `ignored`. */
  uses: (name: SettingName) => boolean = (name) => !isHttpOnly(name),
): SettingValues {
  const values: Record<string, unknown> = {};
  for (const [name, declared] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    const problems = ignored !== undefined && !uses(name) ? ignored : context.problems;
    values[name] = declared.read(env[name], { ...context, problems, name });
  }
  return values as SettingValues;
}

/**
 * A warning for each variable of `env` that is no setting but one slip from one (`SKILL_PACK`,
 * `allowed_hosts`): the server would otherwise start on the default, serving every pack or any host, and
 * nothing would say why. Only names with an underscore, as ours: `PROMPT` (Windows) or `HOSTS` are
 * someone else's.
 */
export function misspelledSettings(
  env: Readonly<Record<string, string | undefined>>,
  /** Where the HTTP settings do nothing (`over stdio`, `to --build-index`), unless HTTP is served. */
  withoutHttp: string | undefined,
  /** The settings the command reads: a slip from any other changes nothing it does, so is not told. */
  reads: (name: SettingName) => boolean = () => true,
): string[] {
  const names = Object.keys(SETTINGS);
  const warnings: string[] = [];
  for (const given of Object.keys(env)) {
    if (!given.includes("_") || names.includes(given)) continue;
    const meant = names.find((name) => editDistance(given.toUpperCase(), name, 1) <= 1);
    if (meant === undefined || !reads(meant as SettingName)) continue;
    // Where nothing serves HTTP its settings do nothing (API_KEY asked for API keys no client is asked).
    warnings.push(
      withoutHttp !== undefined && isHttpOnly(meant as SettingName)
        ? `${given} is not a setting, and is ignored; ${meant}, the setting it is one slip from, applies only over HTTP, not ${withoutHttp}`
        : `${given} is not a setting, and is ignored: did you mean ${meant}?`,
    );
  }
  return warnings;
}

/** Whether `name` is read only by the HTTP server: its address, protections, limits and shutdown. */
function isHttpOnly(name: SettingName): boolean {
  return name === "PORT" || name === "HOST" || SETTINGS[name].section === "http";
}

/** Where the skills are: SKILLS_DIR, else ./skills when it exists, else the bundled examples. */
function resolveSkillsDir(
  value: string | undefined,
  cwd: string,
  files: SettingFiles,
): {
  readonly skillsDir: string;
  readonly skillsDirOrigin: "SKILLS_DIR" | "./skills" | "examples";
  readonly skillsDirReadFrom?: string;
} {
  const given = value?.trim();
  if (given) {
    const skillsDir = path.resolve(cwd, given);
    return path.isAbsolute(given)
      ? { skillsDir, skillsDirOrigin: "SKILLS_DIR" }
      : { skillsDir, skillsDirOrigin: "SKILLS_DIR", skillsDirReadFrom: cwd };
  }
  const local = path.resolve(cwd, "skills");
  if (files.exists(local)) return { skillsDir: local, skillsDirOrigin: "./skills" };
  return { skillsDir: files.examplesDir(), skillsDirOrigin: "examples" };
}

/** Origins as browsers send them: scheme://host[:port], lowercase, no path. */
function readOrigins(value: string | undefined, problems: string[]): string[] {
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
        `ALLOWED_ORIGINS entry ${quoted(item)} is not an origin (scheme://host[:port], e.g. https://app.example.com)`,
      );
    } else origins.push(origin);
  }
  return origins;
}

const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/;

function readHosts(value: string | undefined, problems: string[]): string[] {
  const hosts: string[] = [];
  for (const item of splitList(value)) {
    const host = item.toLowerCase();
    if (HOST_PATTERN.test(host)) hosts.push(host);
    else
      problems.push(
        `ALLOWED_HOSTS entry ${quoted(item)} is not a host or host:port (e.g. skills.example.com)`,
      );
  }
  return hosts;
}

/**
 * The file a setting names (a path from the working folder) and its text; undefined when the setting is
 * unset, or when the file cannot be read, which goes to `problems` naming the setting and the file.
 */
function readSettingFile(
  value: string | undefined,
  { cwd, files, problems, name }: ReadContext,
): { readonly fullPath: string; readonly text: string } | undefined {
  const file = value?.trim();
  if (!file) return undefined;
  const fullPath = path.resolve(cwd, file);
  try {
    return { fullPath, text: files.readText(fullPath) };
  } catch (error) {
    problems.push(unreadableFile(`${name} ${fullPath}`, error));
    return undefined;
  }
}

/** The keys of API_KEYS_FILE: one a line, blank lines and `#` comments skipped. */
function readKeysFile(value: string | undefined, context: ReadContext): readonly string[] {
  const { problems } = context;
  const read = readSettingFile(value, context);
  if (read === undefined) return Object.freeze([]);
  const { fullPath, text } = read;
  const keys = text.split(/\r?\n/).flatMap((line, index) => {
    const key = line.trim();
    return key === "" || key.startsWith("#") ? [] : [{ key, where: `API_KEYS_FILE line ${index + 1}` }];
  });
  if (keys.length === 0)
    problems.push(noKey(`API_KEYS_FILE ${fullPath}`, "put each key on a line of its own"));
  return checkedKeys(keys, problems);
}

/** The keys, each one that is not a valid key said by its position, never by its value. */
function checkedKeys(keys: readonly { key: string; where: string }[], problems: string[]): readonly string[] {
  for (const { key, where } of keys) {
    if (key.length < MIN_API_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      problems.push(
        `${where} is not a valid key (at least ${MIN_API_KEY_LENGTH} visible ASCII characters, no spaces)`,
      );
    }
  }
  return Object.freeze(keys.map(({ key }) => key));
}

/** Pack names as folders of a skills folder may have them: anything but path separators and NUL. */
const PACK_NAME = /^[^/\\\0]+$/;

/**
 * `PACK_DESCRIPTIONS`: a YAML (or JSON) file mapping pack names to descriptions, read at startup so that an
 * operator can describe packs without rebuilding the image. Problems name the file and the key.
 */
function readPackDescriptions(value: string | undefined, context: ReadContext): ReadonlyMap<string, string> {
  const { problems } = context;
  const descriptions = new Map<string, string>();
  const read = readSettingFile(value, context);
  if (read === undefined) return descriptions;
  const { fullPath, text } = read;
  const document = parseDocument(text, { logLevel: "error" });
  const [error] = document.errors;
  if (error !== undefined || !isMap(document.contents)) {
    // The parser's first line says what is wrong and where ("… at line 3, column 1:"), the rest quotes it.
    const where = error === undefined ? "" : `: ${error.message.split("\n", 1)[0]?.replace(/:$/, "")}`;
    problems.push(
      `PACK_DESCRIPTIONS ${fullPath} is not a YAML or JSON mapping of pack names to descriptions (pack: text)${where}`,
    );
    return descriptions;
  }
  for (const [name, description] of Object.entries(document.toJS() as Record<string, unknown>)) {
    const text = typeof description === "string" ? description.replace(/\s+/g, " ").trim() : "";
    if (!PACK_NAME.test(name))
      problems.push(`PACK_DESCRIPTIONS ${fullPath}: ${quoted(name)} is not a pack name`);
    else if (text === "" || text.length > MAX_PACK_DESCRIPTION) {
      const given = text === "" ? readAs(description) : ` (it has ${text.length})`;
      problems.push(
        `PACK_DESCRIPTIONS ${fullPath}: the description of ${quoted(name)} must be a text of 1 to ${MAX_PACK_DESCRIPTION} characters${given}`,
      );
    } else descriptions.set(name, text);
  }
  return descriptions;
}

/** What YAML read a description that is no text as, and the fix (`design: 2024` is a number). */
function readAs(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean")
    return `: YAML read a ${typeof value}; quote it`;
  if (Array.isArray(value)) return ": YAML read a list; write it as text on its line";
  if (typeof value === "object" && value !== null)
    return ": YAML read a mapping; write it as text on its line";
  return "";
}

/** The MiB a setting counts in, as bytes. */
export function mebibytes(count: number): number {
  return count * MIB;
}
