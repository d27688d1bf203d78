/**
 * Checks that a release tag names the version in package.json (`v1.2.3` for 1.2.3), so that a tag never
 * publishes a version other than the one it names. Exits 1, saying both, when they differ.
 *
 *   npm run release:check-tag -- v1.2.3
 */
import { readFileSync } from "node:fs";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};
const tag = process.argv[2] ?? "";
if (tag === `v${version}`) {
  console.log(`${tag} is the version in package.json.`);
} else {
  console.error(
    `The tag "${tag}" is not v${version}, the version in package.json: bump the version and tag the commit that has it.`,
  );
  process.exitCode = 1;
}
