import { OPTIONS } from "./options.js";
import { SETTINGS, type Setting } from "./settings.js";

/** USAGE's lines are at most this long. */
const WIDTH = 110;
/** Joins words that wrapping must keep on one line; a space once wrapped. */
const NO_BREAK = "\u00a0";

/** `--help`: every option and setting as declared (options.ts, settings.ts), with its default. */
export const USAGE = [
  "Usage: skills-mcp [--stdio] [--build-index] [--steering [--pack SELECTOR]...] [--version] [--help]",
  "       skills-mcp sync <server URL> (--to <folder> | --client <name> [--project]) [options]",
  "",
  ...wrapped(
    "Serves Agent Skills over MCP: Streamable HTTP on /mcp (default) or stdio. `sync` installs a server's " +
      "skills into a local skills folder, verified, for coding agents that read skills from disk (its options: " +
      `skills-mcp${NO_BREAK}sync${NO_BREAK}--help).`,
    "",
  ),
  "",
  ...wrapped(
    "Exit status: 0 served until stopped, or done; 1 it failed (a setting, the skills folder, the address " +
      "or the saved index; one line says why); 2 the command line is wrong.",
    "",
  ),
  "",
  "Options:",
  ...listed(Object.values(OPTIONS).map((option) => [option.shown, option.help])),
  "",
  "Environment:",
  ...listed(settingsOf("server")),
  "",
  "HTTP protection and limits (see README, docs/security.md):",
  ...listed(settingsOf("http")),
].join("\n");

function settingsOf(section: Setting<unknown>["section"]): [string, string][] {
  return Object.entries(SETTINGS as Record<string, Setting<unknown>>)
    .filter(([, declared]) => declared.section === section)
    .map(([name, declared]) => {
      // Kept on one line: a default cut in two reads badly.
      const shown = String(declared.default ?? declared.defaultText).replaceAll(" ", NO_BREAK);
      return [name, `${declared.help} (default${NO_BREAK}${shown})`];
    });
}

/** Two columns: each name, and its text wrapped beside it. */
function listed(rows: readonly [name: string, text: string][]): string[] {
  const column = 2 + Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.flatMap(([name, text]) => {
    const [first = "", ...rest] = wrapped(text, " ".repeat(column));
    return [`  ${name}`.padEnd(column) + first.trimStart(), ...rest];
  });
}

/** `text` in lines of at most WIDTH characters, each starting with `indent`. */
function wrapped(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(" ")) {
    if (line.length > indent.length && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = indent;
    }
    line += line.length > indent.length ? ` ${word}` : word;
  }
  lines.push(line);
  return lines.map((each) => each.replaceAll(NO_BREAK, " "));
}
