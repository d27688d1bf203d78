/**
 * A client's scope from its X-Skill-Pack header and ?pack=: each spelling of the same skills is one scope,
 * so a client varying the header's spelling cannot make the server work out a new preview and servers
 * for every request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoadedCatalog, loadCatalog } from "../../src/catalog/index.js";
import { ScopeResolver } from "../../src/http/scope.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";

describe("ScopeResolver", () => {
  let tree: StandardCatalog;
  let loaded: LoadedCatalog;
  beforeAll(async () => {
    tree = await makeStandardCatalog();
    loaded = loadCatalog(tree.skillsDir);
  });
  afterAll(() => tree.remove());

  it("resolves every spelling of the same skills to one scope", () => {
    const scopes = new ScopeResolver(loaded.catalog.everything);
    const first = scopes.resolve("alpha,beta", undefined);
    for (const [header, query] of [
      ["beta,alpha", undefined],
      [" alpha , beta ,,", undefined],
      ["alpha,beta,alpha", undefined],
      ["alpha,beta/tools,beta/docs,beta", undefined],
      [undefined, ["alpha,beta"]],
      [undefined, ["alpha", "beta"]],
      ["alpha,beta,gamma", ["beta,alpha"]],
    ] as const) {
      expect(scopes.resolve(header, query), `${header} ? ${query}`).toBe(first);
    }
    expect(first.scope.packs.map((pack) => pack.name)).toEqual(["alpha", "beta"]);
  });

  it("keeps scopes of other skills apart", () => {
    const scopes = new ScopeResolver(loaded.catalog.everything);
    const both = scopes.resolve("alpha,beta", undefined);
    const tools = scopes.resolve("beta/tools", undefined);
    expect(tools).not.toBe(both);
    expect(tools.scope.skills.map((skill) => skill.id)).toEqual(["beta/hammer", "beta/saw"]);
    expect(scopes.resolve(undefined, undefined).scope).toBe(loaded.catalog.everything);
  });
});
