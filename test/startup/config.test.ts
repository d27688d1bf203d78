/**
 * The settings' reads of the disk, done at the startup edge since src/config is parsing alone: what a
 * user sees of them (the folder chosen, each message) is what it was when config read the disk itself.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { examplesDir } from "../../src/shared/index.js";
import { loadStartupConfig } from "../../src/startup/index.js";
import { makeTree } from "../helpers/skill-tree.js";

describe("loadStartupConfig", () => {
  it("takes ./skills when it is there, else the bundled examples", async () => {
    const tree = await makeTree({});
    try {
      expect(loadStartupConfig({}, [], tree.dir)).toMatchObject({
        skillsDir: examplesDir(),
        skillsDirOrigin: "examples",
      });
      await mkdir(path.join(tree.dir, "skills"));
      expect(loadStartupConfig({}, [], tree.dir)).toMatchObject({
        skillsDir: path.join(tree.dir, "skills"),
        skillsDirOrigin: "./skills",
      });
    } finally {
      await tree.remove();
    }
  });

  it("reads the files PACK_DESCRIPTIONS and API_KEYS_FILE name, and says what is wrong with them", async () => {
    const tree = await makeTree({});
    try {
      await writeFile(path.join(tree.dir, "packs.yaml"), "design: Palettes.\n");
      await writeFile(path.join(tree.dir, "keys"), "# ops\nkey-from-file-0123456789\n");
      const config = loadStartupConfig(
        { PACK_DESCRIPTIONS: "packs.yaml", API_KEYS_FILE: "keys" },
        [],
        tree.dir,
      );
      expect(config.packDescriptions).toEqual(new Map([["design", "Palettes."]]));
      expect(config.http.apiKeys).toEqual(["key-from-file-0123456789"]);
      expect(() =>
        loadStartupConfig({ PACK_DESCRIPTIONS: "missing.yaml", API_KEYS_FILE: "." }, [], tree.dir),
      ).toThrow(
        `PACK_DESCRIPTIONS ${path.join(tree.dir, "missing.yaml")} cannot be read: there is no such file (ENOENT); API_KEYS_FILE ${tree.dir} cannot be read: it is a folder (EISDIR); give a file`,
      );
    } finally {
      await tree.remove();
    }
  });
});
