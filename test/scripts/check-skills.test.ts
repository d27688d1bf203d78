import { execFile } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
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

  it("says there is nothing to check, not that the server would refuse, when ./skills is missing", async () => {
    const empty = await makeTree({});
    try {
      const loader = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
      const script = path.join(ROOT, "scripts/check-skills.ts");
      const failure = await run(process.execPath, ["--import", loader, script], { cwd: empty.dir }).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /^check-skills: there is no \.\/skills to check: `npm run fetch-skills`/,
        ),
      });
    } finally {
      await empty.remove();
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
