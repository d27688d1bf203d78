import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The scripts that the tests run as commands most often, bundled as the server is: test/global-setup.ts
 * builds them from the sources before the tests run. Under tsx each process compiled and loaded the
 * server's modules anew: check-skills took 2.1 s of CPU on the bundled examples, against 0.6 s bundled.
 */
export const BUILT_SCRIPTS = [
  "scripts/check-skills.ts",
  "scripts/audit-skills.ts",
  "scripts/tokens.ts",
] as const;

export type BuiltScript = (typeof BUILT_SCRIPTS)[number];

/**
 * Where they are built: inside the project, so that the code finding the package's root from its own file
 * (src/package.ts) finds this one's; under node_modules, so that neither git, npm's package nor Biome sees it.
 */
export const BUILT_SCRIPTS_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/skills-mcp/scripts", import.meta.url),
);

/** The built file of `script`: its name, as every script built lies in scripts/. */
export function builtScript(script: BuiltScript): string {
  return path.join(BUILT_SCRIPTS_DIR, `${path.basename(script, ".ts")}.js`);
}
