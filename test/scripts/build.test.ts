import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import type { SourceMapPayload } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/process.js";

// The bundle the global setup built, as `npm run build` does.
const DIST = path.join(ROOT, "dist");
const run = promisify(execFile);

async function bundleFiles(): Promise<string[]> {
  const entries = await readdir(DIST, { recursive: true });
  return entries.filter((entry) => entry.endsWith(".js")).map((entry) => path.join(DIST, entry));
}

describe("the bundle's source maps", () => {
  it("are linked from every file of the bundle, so that node --enable-source-maps finds them", async () => {
    const files = await bundleFiles();
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const text = await readFile(file, "utf8");
      const link = `//# sourceMappingURL=${path.basename(file)}.map`;
      expect(text.trimEnd().endsWith(link), `${path.relative(ROOT, file)} links its map`).toBe(true);
      const map = JSON.parse(await readFile(`${file}.map`, "utf8")) as SourceMapPayload;
      expect(map.sourcesContent ?? [], "the sources' text is left out").toEqual([]);
    }
  });

  it("make a stack trace name the line of src/ that threw, when node runs with --enable-source-maps", async () => {
    const declaration = "function resolveSkillFile(";
    const source = path.join(ROOT, "src/catalog/paths.ts");
    const lines = (await readFile(source, "utf8")).split("\n");
    // Handed no skill, it throws where it first reads the skill's files.
    const throwing = lines.findIndex(
      (text, index) =>
        index > lines.findIndex((line) => line.includes(declaration)) && text.includes("skill.files"),
    );
    let chunk: string | undefined;
    for (const file of await bundleFiles()) {
      if ((await readFile(file, "utf8")).includes(declaration)) chunk = file;
    }
    expect(chunk, "resolveSkillFile is in the bundle").toBeDefined();
    const script = `const m = await import(${JSON.stringify(pathToFileURL(chunk ?? "").href)});
      try { m.resolveSkillFile(undefined, "SKILL.md"); } catch (error) { console.log(error.stack); }`;
    const { stdout } = await run(
      process.execPath,
      ["--enable-source-maps", "--input-type=module", "-e", script],
      {
        env: { ...process.env, NODE_OPTIONS: "" },
      },
    );
    expect(stdout).toContain(`at Module.resolveSkillFile (${source}:${throwing + 1}:`);
  });
});
