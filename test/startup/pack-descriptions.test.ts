/**
 * PACK_DESCRIPTIONS's errors say what to fix: a description too long gave no length and an unreadable
 * file no line, and a pack name no loaded pack has got no did-you-mean, as selectors get everywhere else.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PACK_DESCRIPTION } from "../../src/shared/index.js";
import { loadStartupConfig, mcpDepsFor, prepare } from "../../src/startup/index.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({
    "skills/design/palettes/SKILL.md": skillMd("palettes"),
    "skills/operations/deploy/SKILL.md": skillMd("deploy"),
  });
});
afterAll(async () => {
  await tree.remove();
});

function configWith(yaml: string) {
  const file = path.join(tree.dir, `descriptions-${Math.random().toString(36).slice(2)}.yaml`);
  return writeFile(file, yaml).then(() =>
    loadStartupConfig({ SKILLS_DIR: path.join(tree.dir, "skills"), PACK_DESCRIPTIONS: file }),
  );
}

describe("PACK_DESCRIPTIONS", () => {
  it("says how long a description too long is, and the cap", async () => {
    const long = "x".repeat(MAX_PACK_DESCRIPTION + 5);
    await expect(configWith(`design: ${long}\n`)).rejects.toThrow(
      `must be a text of 1 to ${MAX_PACK_DESCRIPTION} characters (it has ${MAX_PACK_DESCRIPTION + 5})`,
    );
  });

  // `design: 2024`, `design: true` or a list was told only "must be a text of 1 to 500 characters", which it
  // looked like to the one who wrote it.
  it("says what YAML read a description that is no text as, and to quote it", async () => {
    await expect(configWith("design: 2024\n")).rejects.toThrow(
      'the description of "design" must be a text of 1 to 500 characters: YAML read a number; quote it',
    );
    await expect(configWith("design: true\noperations:\n  - a\n")).rejects.toThrow(
      /"design" must be a text .*: YAML read a boolean; quote it.*"operations" must be a text .*: YAML read a list; write it as text on its line/,
    );
  });

  it("says the line of a YAML error", async () => {
    await expect(configWith("design: fine\noperations: [unclosed\nother: x\n")).rejects.toThrow(
      /is not a YAML or JSON mapping of pack names to descriptions \(pack: text\): .* at line 3, column 1/,
    );
  });

  it("gives a pack name no loaded pack has a did-you-mean", async () => {
    const config = await configWith("desing: Palettes and icons.\nOperations: Deploys.\nzzz: None.\n");
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    mcpDepsFor(await prepare(config, logger), config, logger);
    const said = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said).toContain(
      "PACK_DESCRIPTIONS describes desing, which is not a pack loaded here; did you mean design?",
    );
    expect(said).toContain(
      "PACK_DESCRIPTIONS describes Operations, which is not a pack loaded here; did you mean operations?",
    );
    expect(said).toContain("PACK_DESCRIPTIONS describes zzz, which is not a pack loaded here");
  });
});
