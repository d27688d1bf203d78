import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

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
}

/** A configuration problem: the server cannot start, and the message says what is valid. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export const EXAMPLES_DIR = fileURLToPath(new URL("../../examples/skills", import.meta.url));

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export const USAGE = `Usage: skills-mcp [--stdio] [--help]

Serves Agent Skills over MCP: Streamable HTTP on /mcp (default) or stdio.

Options:
  --stdio        serve over stdin/stdout instead of HTTP (same as TRANSPORT=stdio)
  -h, --help     show this help

Environment:
  SKILLS_DIR     folder with one sub-folder per pack (default: ./skills if it exists, else the bundled examples)
  SKILL_PACKS    comma list of packs, groups or pack/group to load; the rest is not loaded
  PORT           HTTP port (default 8000)
  HOST           HTTP address (default 0.0.0.0)
  LOG_LEVEL      ${LOG_LEVELS.join(", ")} (default info)
  TRANSPORT      http or stdio (default http)`;

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
  let args: { stdio?: boolean; help?: boolean } = {};
  try {
    args = parseArgs({
      args: [...argv],
      options: { stdio: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }).values;
  } catch (error) {
    problems.push(`${(error as Error).message} (valid options: --stdio, --help)`);
  }

  const port = parsePort(env.PORT, problems);
  const logLevel = env.LOG_LEVEL?.trim() || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL "${logLevel}" is not one of ${LOG_LEVELS.join(", ")}`);
  }
  const transportName = env.TRANSPORT?.trim() || (args.stdio ? "stdio" : "http");
  if (transportName !== "http" && transportName !== "stdio") {
    problems.push(`TRANSPORT "${transportName}" is not one of http, stdio`);
  }

  if (problems.length > 0) throw new ConfigError(problems.join("; "));

  return Object.freeze({
    ...resolveSkillsDir(env.SKILLS_DIR, cwd),
    skillPacks: Object.freeze(splitList(env.SKILL_PACKS)),
    port,
    host: env.HOST?.trim() || "0.0.0.0",
    logLevel,
    transport: args.stdio ? "stdio" : (transportName as Transport),
    help: args.help === true,
  });
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
