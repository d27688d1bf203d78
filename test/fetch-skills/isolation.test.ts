import { cp, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runScript } from "../helpers/process.js";

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

/** The COPY lines of the image's skills stage, each as its sources and destination. */
async function skillsStageCopies(): Promise<{ sources: string[]; destination: string; from: boolean }[]> {
  const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
  const stage = dockerfile.split(/^FROM /m).find((text) => /^\S+ AS skills$/m.test(text)) ?? "";
  return [...stage.matchAll(/^COPY (.+)$/gm)].map((match) => {
    const words = (match[1] ?? "").split(" ");
    const from = words[0]?.startsWith("--from=") === true;
    const paths = from ? words.slice(1) : words;
    return { sources: paths.slice(0, -1), destination: paths.at(-1) ?? "", from };
  });
}

/** The folders of src/ the image's skills stage copies (`COPY src/shared ./src/shared`), as `src/shared`. */
async function copiedForTheFetcher(): Promise<string[]> {
  return (await skillsStageCopies())
    .filter(({ destination }) => destination.startsWith("./src/"))
    .flatMap(({ sources }) => sources);
}

/** The modules of src/shared/, the one folder of src/ the fetcher may import. */
async function sharedModules(): Promise<string[]> {
  return (await readdir(path.join(ROOT, "src/shared"))).filter((file) => file.endsWith(".ts")).sort();
}

describe("the fetcher stands alone", () => {
  // The image's skills stage copies only deps' node_modules, package.json, tsconfig.json, this folder,
  // and src/shared/, the one folder of src/ it imports.
  it("imports only node built-ins, smol-toml, simple-git, its own files and src/shared/, which the image copies", async () => {
    const imports = await importsUnder("scripts/fetch-skills");
    expect(imports.length).toBeGreaterThan(10);
    expect(await copiedForTheFetcher()).toEqual(["src/shared"]);
    const shared = "../../src/shared/index.js";
    const foreign = imports.filter(
      ({ specifier }) =>
        !specifier.startsWith("node:") &&
        !["smol-toml", "simple-git"].includes(specifier) &&
        !/^\.\/[\w-]+\.js$/.test(specifier) &&
        specifier !== shared,
    );
    expect(foreign).toEqual([]);
    expect(imports.filter(({ specifier }) => specifier === shared).length).toBeGreaterThan(0);
  });

  // The README's Docker section once counted five files where the stage copied nine: the Fetch section's
  // list (docs/skill-packs.md) must name each module of the folder the stage copies.
  it("names in the docs' Fetch section exactly the modules of src/shared/", async () => {
    const packs = await readFile(path.join(ROOT, "docs", "skill-packs.md"), "utf8");
    const start = packs.indexOf("The fetcher (`scripts/fetch-skills/`) needs only");
    const paragraph = packs.slice(start, packs.indexOf("\n\n", start));
    expect(start).toBeGreaterThan(0);
    const named = [...paragraph.matchAll(/`([\w-]+\.ts)`/g)].map((match) => match[1]);
    expect(named.sort()).toEqual((await sharedModules()).filter((file) => file !== "index.ts"));
    const docs = (await readdir(path.join(ROOT, "docs"))).filter((name) => name.endsWith(".md"));
    for (const doc of ["README.md", ...docs.map((name) => path.join("docs", name))]) {
      const text = await readFile(path.join(ROOT, doc), "utf8");
      const counted = /\b(?:two|three|four|five|six|seven|eight|nine|ten) files of `src\/`/.exec(text);
      expect({ doc, counted: counted?.[0] }).toEqual({ doc, counted: undefined });
    }
  });

  // What the stage copies of src/ must run there alone.
  it("copies a folder of src/ whose modules import only node built-ins and one another", async () => {
    const modules = await sharedModules();
    expect(modules.length).toBeGreaterThan(1);
    for (const file of modules) {
      const text = await readFile(path.join(ROOT, "src/shared", file), "utf8");
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"/g)].map(
        (match) => match[1] ?? "",
      );
      const beside = (specifier: string) =>
        /^\.\/[\w-]+\.js$/.test(specifier) && modules.includes(`${specifier.slice(2, -3)}.ts`);
      expect({
        file,
        foreign: specifiers.filter((specifier) => !specifier.startsWith("node:") && !beside(specifier)),
      }).toEqual({ file, foreign: [] });
    }
  });

  it("loads the repin review and load check, which need src/, only by dynamic imports a fetch never reaches", async () => {
    const dynamic: string[] = [];
    for (const file of await readdir(path.join(ROOT, "scripts/fetch-skills"))) {
      const text = await readFile(path.join(ROOT, "scripts/fetch-skills", file), "utf8");
      for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) dynamic.push(`${file}: ${match[1]}`);
    }
    // index.ts's import of cli.ts, once the command line is read, and options.ts's of manifest.ts, to name
    // the sources to a --source given none, are of this folder: the stage holds them.
    expect(dynamic).toEqual([
      "cli.ts: ../repin-review/pack-check.js",
      "index.ts: ./cli.js",
      "options.ts: ./manifest.js",
      "review.ts: ../repin-review/index.js",
    ]);
  });

  // Its usage errors came as Node's parseArgs text, once: the stage then could not import src/shared/command-line.ts.
  it("runs from what the skills stage copies, and words a wrong command line as the other commands do", async () => {
    const stage = await mkdtemp(path.join(tmpdir(), "skills-stage-"));
    try {
      await symlink(path.join(ROOT, "node_modules"), path.join(stage, "node_modules"));
      for (const { sources, destination, from } of await skillsStageCopies()) {
        // The dependencies (linked above) and the manifest, a build argument.
        if (from || sources.some((source) => source.includes("$"))) continue;
        for (const source of sources) {
          const target = destination.endsWith("/")
            ? path.join(stage, destination, path.basename(source))
            : path.join(stage, destination);
          await cp(path.join(ROOT, source), target, { recursive: true });
        }
      }
      // runScript takes the script from the project's root.
      const fetcher = path.relative(ROOT, path.join(stage, "scripts/fetch-skills/index.ts"));
      const bogus = await runScript(fetcher, ["--bogus"], stage);
      expect(bogus.code).toBe(2);
      expect(bogus.stderr).toMatch(
        /^fetch-skills: unknown option --bogus; valid: --manifest, --out, .*, --help \(-h\)\n\nUsage: npm run fetch-skills/,
      );
      const help = await runScript(fetcher, ["--help"], stage);
      expect(help.code).toBe(0);
      // What a user typed comes back escaped, as the audit writes it (src/shared/visible.ts, which the stage copies).
      const escaped = await runScript(fetcher, ["--bogus\u001b[31m"], stage);
      expect(escaped.code).toBe(2);
      expect(escaped.stderr).toMatch(/^fetch-skills: unknown option "--bogus\{U\+001B\}\[31m"; valid: /);
    } finally {
      await rm(stage, { recursive: true, force: true });
    }
  });

  // The load check imported FetcherError from errors.ts, and with it the fetcher's system errors.
  it("is imported by the repin review only through the contract they share", async () => {
    const imports = await importsUnder("scripts/repin-review");
    expect(imports.length).toBeGreaterThan(10);
    expect(
      imports.filter(
        ({ specifier }) =>
          specifier.startsWith("../fetch-skills/") && specifier !== "../fetch-skills/review-contract.js",
      ),
    ).toEqual([]);
  });

  it("is never imported by the server", async () => {
    const imports = await importsUnder("src");
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter(({ specifier }) => specifier.includes("scripts/"))).toEqual([]);
  });
});
