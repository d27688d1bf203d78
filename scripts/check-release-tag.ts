/**
 * Checks that a release tag names the version in package.json (`v1.2.3` for 1.2.3), so that a tag never
 * publishes a version other than the one it names. Exits 1, saying both, when they differ.
 *
 *   npm run release:check-tag -- v1.2.3
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { describeArgsError, quoted } from "../src/shared/index.js";

const USAGE = `Usage: npm run release:check-tag -- <tag>

Checks that a release tag names the version in package.json (v1.2.3 for 1.2.3). Exits 1, saying both, when
they differ; 2 when the command line is wrong.

Options:
  -h, --help   show this help`;

const OPTIONS = { help: { type: "boolean", short: "h" } } as const;

/** The exit status. `--help` was read as the tag ("The tag "--help" is not v…"), exit 1. */
function main(argv: readonly string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`check-release-tag: ${describeArgsError(error, OPTIONS)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    console.error(`check-release-tag: one tag only (got ${parsed.positionals.length})\n\n${USAGE}`);
    return 2;
  }
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  const [tag] = parsed.positionals;
  // No tag was read as an empty one, and told to bump the version; an empty one given stays a mismatch.
  if (tag === undefined) {
    console.error(
      `check-release-tag: give the tag to check (v${version} for package.json's version)\n\n${USAGE}`,
    );
    return 2;
  }
  if (tag === `v${version}`) {
    console.log(`${tag} is the version in package.json.`);
    return 0;
  }
  console.error(
    `check-release-tag: the tag ${quoted(tag)} is not v${version}, the version in package.json: bump the version and tag the commit that has it.`,
  );
  return 1;
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true });
}

process.exitCode = main(process.argv.slice(2));
