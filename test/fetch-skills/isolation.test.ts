import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/process.js";

/** Every module specifier imported by the TypeScript files under `dir`. */
async function importsUnder(dir: string): Promise<{ file: string; specifier: string }[]> {
  const found: { file: string; specifier: string }[] = [];
  const files = (await readdir(path.join(ROOT, dir), { recursive: true })).filter((file) =>
    file.endsWith(".ts"),
  );
  for (const file of files) {
    const text = await readFile(path.join(ROOT, dir, file), "utf8");
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"/g)) {
      found.push({ file: `${dir}/${file}`, specifier: match[1] ?? "" });
    }
  }
  return found;
}

describe("the fetcher stands alone", () => {
  // The image's skills stage copies only package.json, the lockfile, tsconfig.json and this folder.
  it("imports only node built-ins, smol-toml, simple-git and its own files", async () => {
    const imports = await importsUnder("scripts/fetch-skills");
    expect(imports.length).toBeGreaterThan(10);
    const foreign = imports.filter(
      ({ specifier }) =>
        !specifier.startsWith("node:") &&
        !["smol-toml", "simple-git"].includes(specifier) &&
        !/^\.\/[\w-]+\.js$/.test(specifier),
    );
    expect(foreign).toEqual([]);
  });

  it("loads the repin review, which needs src/, only by a dynamic import that a fetch never reaches", async () => {
    const dynamic: string[] = [];
    for (const file of await readdir(path.join(ROOT, "scripts/fetch-skills"))) {
      const text = await readFile(path.join(ROOT, "scripts/fetch-skills", file), "utf8");
      for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) dynamic.push(`${file}: ${match[1]}`);
    }
    expect(dynamic).toEqual(["review.ts: ../repin-review/index.js"]);
  });

  it("is never imported by the server", async () => {
    const imports = await importsUnder("src");
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter(({ specifier }) => specifier.includes("scripts/"))).toEqual([]);
  });
});
