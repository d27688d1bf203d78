import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, EXAMPLES_DIR, loadConfig } from "../../src/config/index.js";
import { makeTree } from "../helpers/skill-tree.js";

describe("loadConfig", () => {
  it("defaults to port 8000 on every interface, HTTP, and the bundled examples", async () => {
    const empty = await makeTree({});
    try {
      expect(loadConfig({}, [], empty.dir)).toEqual({
        skillsDir: EXAMPLES_DIR,
        skillsDirOrigin: "examples",
        skillPacks: [],
        port: 8000,
        host: "0.0.0.0",
        logLevel: "info",
        transport: "http",
        help: false,
      });
    } finally {
      await empty.remove();
    }
  });

  it("prefers ./skills when it exists, and SKILLS_DIR over both", async () => {
    const tree = await makeTree({});
    try {
      await mkdir(path.join(tree.dir, "skills"));
      expect(loadConfig({}, [], tree.dir)).toMatchObject({
        skillsDir: path.join(tree.dir, "skills"),
        skillsDirOrigin: "./skills",
      });
      expect(loadConfig({ SKILLS_DIR: "other" }, [], tree.dir)).toMatchObject({
        skillsDir: path.join(tree.dir, "other"),
        skillsDirOrigin: "SKILLS_DIR",
      });
    } finally {
      await tree.remove();
    }
  });

  it("reads SKILL_PACKS as a comma list and --stdio or TRANSPORT=stdio", () => {
    expect(loadConfig({ SKILL_PACKS: " n8n, ,penpot/design " }).skillPacks).toEqual(["n8n", "penpot/design"]);
    expect(loadConfig({}, ["--stdio"]).transport).toBe("stdio");
    expect(loadConfig({ TRANSPORT: "stdio" }).transport).toBe("stdio");
  });

  it("lists every problem at once", () => {
    const load = () => loadConfig({ PORT: "70000", TRANSPORT: "sse" }, ["--verbose"]);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/--verbose.*valid options.*PORT "70000".*TRANSPORT "sse" is not one of http, stdio/);
  });
});
