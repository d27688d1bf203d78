import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Catalog, loadCatalog, type Scope, SelectorError } from "../../src/catalog/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

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

  it("finds a pack by its name in another case or Unicode normalization, as the load folds pack names", async () => {
    // Regression: the load served one of `Café` and `café` (folding case and normalization), but a
    // selector in NFD, or with a long s, found no pack, though the pack was said to be selected in any case.
    const folded = await makeTree({
      "café/menus/SKILL.md": skillMd("menus", "Menus of the day."),
      "shared/notes/SKILL.md": skillMd("notes", "Shared notes."),
    });
    try {
      const { everything } = loadCatalog(folded.dir).catalog;
      expect(everything.findPackAnyCase("CAFE\u0301")?.name).toBe("café");
      expect(everything.findPackAnyCase("ſhared")?.name).toBe("shared");
      expect(ids(everything.narrow(["Cafe\u0301"]))).toEqual(["café/menus"]);
    } finally {
      await folded.remove();
    }
  });

  // Regression: the load serves one of `café` and `cafe\u0301` as one name, but a skill asked for in the other
  // normalization (a name copied from a folder macOS wrote, in NFD) was "No skill", where one asked for in
  // another case was found.
  it("finds a skill by its name in another Unicode normalization or case, as the load folds skill names", async () => {
    const folded = await makeTree({
      "p/café/SKILL.md": skillMd("café", "Composed."),
      "p/crème/SKILL.md": skillMd("cre\u0300me", "Decomposed."),
      "q/straße/SKILL.md": skillMd("straße", "Sharp s."),
    });
    try {
      const { everything } = loadCatalog(folded.dir).catalog;
      const found = (ref: string) => {
        const lookup = everything.findSkillAnyCase(ref);
        return lookup.kind === "found" ? lookup.skill.id : lookup.kind;
      };
      expect(found("cafe\u0301")).toBe("p/café");
      expect(found("P/CAFE\u0301")).toBe("p/café");
      expect(found("crème")).toBe("p/cre\u0300me");
      expect(found("q/STRASSE")).toBe("q/straße");
      expect(found("cafe")).toBe("missing");
    } finally {
      await folded.remove();
    }
  });

  it("treats empty selectors as no narrowing, and refuses commas and spaces alone", () => {
    expect(catalog.everything.narrow([])).toBe(catalog.everything);
    expect(catalog.everything.narrow([""])).toBe(catalog.everything);
    expect(ids(catalog.everything.narrow(["alpha, ,"]))).toEqual(ids(catalog.everything.narrow(["alpha"])));
    // A template whose parts came out empty (`${A},${B}`): read as no narrowing, it widened to everything.
    expect(() => catalog.everything.narrow([" , "])).toThrow(
      /^No pack or group in " , ", only commas and spaces: name one, or leave it out for no narrowing\. Valid selectors: alpha, /,
    );
    expect(() => catalog.everything.narrow(["", " "])).toThrow(
      /^No pack or group in the 2 values "", " ", each empty or only commas and spaces: name one, or leave them out for no narrowing\. Valid selectors: alpha, /,
    );
    // Two empty texts (`?pack=&pack=`) are no single empty one: refused, not read as no narrowing.
    expect(() => catalog.everything.narrow(["", ""])).toThrow(/^No pack or group in the 2 values "", "", /);
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

  it("hides the pack files in the folder of a group left out, and keeps the files every group shares", async () => {
    const pack = await makeTree({
      "alpha/grp1/one/SKILL.md": skillMd("one"),
      "alpha/grp1/notes.md": "only for grp1\n",
      "alpha/grp2/two/SKILL.md": skillMd("two"),
      "alpha/grp2/refs/table.md": "only for grp2\n",
      "alpha/shared/guide.md": "for every group\n",
      "alpha/README.md": "about the pack\n",
    });
    try {
      const files = (scope: Scope) => [...(scope.findPack("alpha")?.files.keys() ?? [])];
      const everything = loadCatalog(pack.dir).catalog.everything;
      expect(files(everything)).toEqual([
        "README.md",
        "grp1/notes.md",
        "grp2/refs/table.md",
        "shared/guide.md",
      ]);
      const grp2 = ["README.md", "grp2/refs/table.md", "shared/guide.md"];
      expect(files(everything.narrow(["alpha/grp2"]))).toEqual(grp2);
      expect(files(everything.narrow(["alpha/grp2"]).narrow(["alpha"]))).toEqual(grp2);
      expect(files(loadCatalog(pack.dir, { packs: ["grp2"] }).catalog.everything)).toEqual(grp2);
    } finally {
      await pack.remove();
    }
  });

  it("names every pack before any group, and the selectors a slip away from an unknown one", () => {
    const message = (selector: string) => {
      try {
        catalog.everything.narrow([selector]);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message("Gama")).toBe(
      'Unknown pack or group "Gama". Did you mean "gamma"? ' +
        "Valid selectors: alpha, beta, gamma, beta/docs, beta/tools, gamma/tools.",
    );
    expect(message("beta/tols")).toContain('Did you mean "beta/tools"?');
    expect(message("doc")).toContain('Did you mean "docs"?');
    expect(message("zzzzzz")).not.toContain("Did you mean");
    // A pack written as a folder: its pack was not among the candidates, only its groups.
    expect(message("alpha/")).toContain('Did you mean "alpha"?');
    expect(message("beta/")).toContain('Did you mean "beta"?');
    // --pack and SKILL_PACKS put it back raw: an escape recoloured the terminal, a long one buried the rest.
    expect(message(`red\u001b[31m\nnext${"x".repeat(300)}`)).toMatch(
      /^Unknown pack or group "red\{U\+001B\}\[31m\{U\+000A\}nextx{87}…"\. Valid selectors: /,
    );
  });

  // A model asked list_skills(pack="kubernetes") of a pack whose group is kubernetes-operations, and was
  // told only the packs.
  it("names the selectors an unknown one is a whole word of, when at most three are", async () => {
    const tree = await makeTree({
      "agents/kubernetes-operations/helm/SKILL.md": skillMd("helm"),
      "agents/python-development/uv/SKILL.md": skillMd("uv"),
      "agents/python-testing/pytest/SKILL.md": skillMd("pytest"),
      "agents/ui-design/icons/SKILL.md": skillMd("icons"),
      "agents/api-design/rest/SKILL.md": skillMd("rest"),
      "agents/db-design/schema/SKILL.md": skillMd("schema"),
      "agents/web-design/layout/SKILL.md": skillMd("layout"),
    });
    try {
      const everything = loadCatalog(tree.dir).catalog.everything;
      const brief = (selector: string) => {
        try {
          everything.narrow([selector]);
          return "";
        } catch (error) {
          return (error as SelectorError).brief;
        }
      };
      expect(brief("kubernetes")).toBe(
        'Unknown pack or group "kubernetes". Did you mean "kubernetes-operations"?',
      );
      expect(brief("agents/python")).toContain(
        'Did you mean "agents/python-development" or "agents/python-testing"?',
      );
      expect(brief("design")).toBe('Unknown pack or group "design". Packs: agents.');
      expect(brief("op")).not.toContain("Did you mean");
    } finally {
      await tree.remove();
    }
  });

  it("rejects malformed selectors as unknown", () => {
    for (const selector of ["a/b/c", "/beta", "beta/", "..", "beta/../alpha"]) {
      expect(() => catalog.everything.narrow([selector]), selector).toThrow(SelectorError);
    }
  });
});
