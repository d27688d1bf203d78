import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { visible as fetcherVisible } from "../../scripts/fetch-skills/errors.js";
import { visible } from "../../src/catalog/index.js";
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

/** The files of src/ the image's skills stage copies (`COPY src/a.ts src/b.ts ./src/`), as `src/a.ts`. */
async function copiedForTheFetcher(): Promise<string[]> {
  const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
  const stage = dockerfile.split(/^FROM /m).find((text) => /^\S+ AS skills$/m.test(text)) ?? "";
  return [...stage.matchAll(/^COPY (.+) \.\/src\/$/gm)].flatMap((match) => (match[1] ?? "").split(" "));
}

describe("the fetcher stands alone", () => {
  // The image's skills stage copies only package.json, the lockfile, tsconfig.json, this folder, and the
  // files of src/ that it names.
  it("imports only node built-ins, smol-toml, simple-git, its own files and files of src/ the image copies", async () => {
    const imports = await importsUnder("scripts/fetch-skills");
    expect(imports.length).toBeGreaterThan(10);
    const copied = await copiedForTheFetcher();
    const fromSrc = (specifier: string) => /^\.\.\/\.\.\/src\/[\w-]+\.js$/.test(specifier);
    const foreign = imports.filter(
      ({ specifier }) =>
        !specifier.startsWith("node:") &&
        !["smol-toml", "simple-git"].includes(specifier) &&
        !/^\.\/[\w-]+\.js$/.test(specifier) &&
        !(fromSrc(specifier) && copied.includes(specifier.replace(/^\.\.\/\.\.\/(.*)\.js$/, "$1.ts"))),
    );
    expect(foreign).toEqual([]);
    expect(imports.filter(({ specifier }) => fromSrc(specifier)).length).toBeGreaterThan(0);
  });

  // What the stage copies of src/ must run there alone.
  it("copies files of src/ that import only node built-ins", async () => {
    const copied = await copiedForTheFetcher();
    expect(copied.length).toBeGreaterThan(0);
    for (const file of copied) {
      const text = await readFile(path.join(ROOT, file), "utf8");
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"/g)].map(
        (match) => match[1] ?? "",
      );
      expect(specifiers.filter((specifier) => !specifier.startsWith("node:"))).toEqual([]);
    }
  });

  it("loads the repin review and load check, which need src/, only by dynamic imports a fetch never reaches", async () => {
    const dynamic: string[] = [];
    for (const file of await readdir(path.join(ROOT, "scripts/fetch-skills"))) {
      const text = await readFile(path.join(ROOT, "scripts/fetch-skills", file), "utf8");
      for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) dynamic.push(`${file}: ${match[1]}`);
    }
    expect(dynamic).toEqual(["cli.ts: ../repin-review/pack-check.js", "review.ts: ../repin-review/index.js"]);
  });

  // Its own copy of the audit's visible(): a name in the fetch log reads as the audit and the review show it.
  it("escapes the characters the audit escapes, as the audit writes them", () => {
    // The basic plane, the tags and variation selectors of plane 14, a private and an unassigned one.
    const values = [
      ...Array.from({ length: 0x10000 }, (_, value) => value),
      ...Array.from({ length: 0x1000 }, (_, value) => 0xe0000 + value),
      0x1f600,
      0xf0000,
      0x3ffff,
    ].filter((value) => value < 0xd800 || value > 0xdfff);
    const text = String.fromCodePoint(...values);
    expect(fetcherVisible(text) === visible(text)).toBe(true);
    expect(fetcherVisible("a\n\u001b\u2028\u202e")).toBe("a{U+000A}{U+001B}{U+2028}{U+202E}");
  });

  it("is never imported by the server", async () => {
    const imports = await importsUnder("src");
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter(({ specifier }) => specifier.includes("scripts/"))).toEqual([]);
  });
});
