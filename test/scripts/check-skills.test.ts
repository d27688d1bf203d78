import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/process.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

const run = promisify(execFile);
const TSX = ["--import", "tsx", "scripts/check-skills.ts"];

describe("npm run check-skills", () => {
  it("reports what the server would serve and leave out, as Markdown", async () => {
    const tree = await makeTree({
      "alpha/good/SKILL.md": skillMd("good"),
      "alpha/other/SKILL.md": skillMd("renamed"),
      "alpha/broken/SKILL.md": "no frontmatter",
      "beta/tools/drill/SKILL.md": skillMd("drill"),
    });
    try {
      const { stdout } = await run(process.execPath, [...TSX, tree.dir], { cwd: ROOT });
      expect(stdout).toBe(
        [
          "### Catalog check",
          "",
          "3 skills in 2 packs (alpha 2, beta 1); 1 left out, 1 warnings.",
          "",
          "- left out: `alpha/broken`: no frontmatter (the file must start with ---)",
          '- warning: `alpha/other`: name "renamed" differs from its folder',
          "",
        ].join("\n"),
      );
    } finally {
      await tree.remove();
    }
  });

  it("exits 1 with the reason when the server would refuse to start", async () => {
    const tree = await makeTree({ "alpha/broken/SKILL.md": "no frontmatter" });
    try {
      const failure = await run(process.execPath, [...TSX, tree.dir], { cwd: ROOT }).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({
        code: 1,
        stderr: expect.stringContaining("would refuse to start: No valid skill"),
      });
    } finally {
      await tree.remove();
    }
  });
});
