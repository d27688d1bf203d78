import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runBuiltScript, runScript } from "../helpers/process.js";

const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };

/**
 * Runs the script's bundle, built from the same sources before the tests (test/helpers/built-scripts.ts):
 * each process under tsx compiled its modules anew. The first test runs it from source, as
 * `npm run release:check-tag` does.
 */
function check(args: string[]) {
  return runBuiltScript("scripts/check-release-tag.ts", args);
}

describe("npm run release:check-tag", () => {
  it("passes the tag of package.json's version, and fails any other, naming both", async () => {
    const fromSource = (args: string[]) => runScript("scripts/check-release-tag.ts", args);
    expect(await fromSource([`v${version}`])).toMatchObject({ code: 0, stderr: "" });
    const other = await fromSource(["v0.0.0-other"]);
    expect(other.code).toBe(1);
    // One line, named by the command as its refusals of a wrong command line are (it had no name).
    expect(other.stderr).toBe(
      `check-release-tag: the tag "v0.0.0-other" is not v${version}, the version in package.json: bump the version and tag the commit that has it.\n`,
    );
  });

  // "--help" was read as the tag: `The tag "--help" is not v…`, exit 1.
  it("prints its usage on --help, and refuses an unknown option, a second tag or none with exit 2", async () => {
    const help = await check(["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: npm run release:check-tag -- <tag>\n/);
    const cases: [string[], string][] = [
      [["--bogus"], "unknown option --bogus; valid: --help (-h)"],
      [[`v${version}`, "v2"], "one tag only (got 2)"],
      // No tag at all was read as an empty one: `The tag "" is not v…: bump the version`, exit 1.
      [[], `give the tag to check (v${version} for package.json's version)`],
    ];
    for (const [args, said] of cases) {
      const refused = await check(args);
      expect(refused).toMatchObject({ code: 2, stdout: "" });
      expect(refused.stderr.startsWith(`check-release-tag: ${said}\n\nUsage: `)).toBe(true);
    }
  });
});
