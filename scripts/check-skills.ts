/**
 * Prepares a skills folder exactly as the server will (src/startup: SKILL_PACKS, UNSAFE_SKILLS and the
 * saved index as the environment gives them) and prints, as Markdown, what it would serve and what it
 * would leave out, and its audit; exits 1 when the server would refuse to start. The weekly repin appends
 * its output to the pull request's summary, so a reviewer sees what an upstream change did to the catalog.
 * Exits 2 when the command line is wrong.
 *
 *   npm run check-skills -- [skills folder]     (default: ./skills)
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { describeArgsError } from "../src/shared/index.js";
import { tolerateClosedOutput } from "./closed-output.js";

const USAGE = `Usage: npm run check-skills -- [folder]

Prepares a skills folder (default ./skills) exactly as the server will (SKILL_PACKS, UNSAFE_SKILLS and the
saved index as the environment gives them) and prints, as Markdown, what it would serve and leave out, and
the audit. Exits 1 when the server would refuse to start (or, with no folder given, when there is no
./skills), 2 when the command line is wrong.

Options:
  -h, --help        show this help`;

const CHECK_OPTIONS = { help: { type: "boolean", short: "h" } } as const;

/** The folder given, or `help`; a wrong command line (an option read as a folder before) is an error. */
function parseCommandLine(argv: readonly string[]): { folder?: string; help: boolean } | { error: string } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: CHECK_OPTIONS,
      strict: true,
      allowPositionals: true,
    });
    // Whatever else is given: a wrong argument must not hide the usage that fixes it.
    if (values.help === true) return { help: true };
    if (positionals.length > 1) return { error: `one folder at most (got ${positionals.length})` };
    return { folder: positionals[0], help: false };
  } catch (error) {
    return { error: describeArgsError(error, CHECK_OPTIONS) };
  }
}

tolerateClosedOutput();
const commandLine = parseCommandLine(process.argv.slice(2));
if ("error" in commandLine) {
  process.stderr.write(`check-skills: ${commandLine.error}\n\n${USAGE}\n`);
  process.exitCode = 2;
} else if (commandLine.help) {
  process.stdout.write(`${USAGE}\n`);
} else if (commandLine.folder === undefined && !existsSync("skills")) {
  // Not a refusal: with no ./skills (and no SKILLS_DIR) the server serves its bundled examples.
  process.stderr.write(
    "check-skills: there is no ./skills to check: `npm run fetch-skills` writes it from skills.toml " +
      "(without it the server serves the bundled examples). To check another folder: " +
      "npm run check-skills -- <folder>\n",
  );
  process.exitCode = 1;
} else {
  // Loaded only now, so that --help and a mistaken command line skip the server's modules.
  const { main } = await import("./check-skills-run.js");
  await main(commandLine.folder ?? "skills", process.env);
}
