import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Catalog, loadCatalog, SelectorError } from "../../src/catalog/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";

describe("Scope", () => {
  let tree: StandardCatalog;
  let catalog: Catalog;
  beforeAll(async () => {
    tree = await makeStandardCatalog();
    catalog = loadCatalog(tree.skillsDir).catalog;
  });
  afterAll(() => tree.remove());

  const ids = (scope: { skills: readonly { id: string }[] }) => scope.skills.map((skill) => skill.id);

  it("narrows to a pack, a group, pack/group, or a comma list of them", () => {
    const everything = catalog.everything;
    expect(ids(everything.narrow(["gamma"]))).toEqual(["gamma/drill"]);
    expect(ids(everything.narrow(["docs"]))).toEqual(["beta/editor", "beta/writer"]);
    expect(ids(everything.narrow(["beta/tools"]))).toEqual(["beta/hammer", "beta/saw"]);
    expect(ids(everything.narrow(["gamma, beta/docs"]))).toEqual([
      "gamma/drill",
      "beta/editor",
      "beta/writer",
    ]);
  });

  it("treats blank selectors as no narrowing", () => {
    expect(catalog.everything.narrow([""])).toBe(catalog.everything);
    expect(catalog.everything.narrow([" , "])).toBe(catalog.everything);
  });

  it("never widens: a narrowed scope cannot select what it left out", () => {
    const betaTools = catalog.everything.narrow(["beta/tools"]);
    expect(() => betaTools.narrow(["alpha"])).toThrow(SelectorError);
    expect(() => betaTools.narrow(["beta/docs"])).toThrow(/Valid selectors: beta, beta\/tools\./);
    expect(ids(betaTools.narrow(["beta"]))).toEqual(["beta/hammer", "beta/saw"]);
  });

  it("resolves a bare group name once the scope holds only one pack with it", () => {
    const beta = catalog.everything.narrow(["beta"]);
    expect(ids(beta.narrow(["tools"]))).toEqual(["beta/hammer", "beta/saw"]);
    expect(() => catalog.everything.narrow(["tools"])).toThrow(/several packs.*beta\/tools, gamma\/tools/);
  });

  it("counts only visible skills in packs and groups", () => {
    const scope = catalog.everything.narrow(["beta/docs"]);
    expect(
      scope.packs.map((pack) => [pack.name, pack.skills.length, pack.groups.map((group) => group.name)]),
    ).toEqual([["beta", 2, ["docs"]]]);
    expect(scope.packs[0]?.files.size).toBe(2);
  });

  it("rejects malformed selectors as unknown", () => {
    for (const selector of ["a/b/c", "/beta", "beta/", "..", "beta/../alpha"]) {
      expect(() => catalog.everything.narrow([selector]), selector).toThrow(SelectorError);
    }
  });
});
