/**
 * Search reuses scratch buffers across queries (see SearchIndex): it is correct only while each query runs
 * to its end before another starts. These run queries the way a busy server does, many at once, and hold
 * every answer to the one the same query gets alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticQueries, writeSyntheticCatalog } from "../../bench/synthetic-catalog.js";
import { withTypo } from "../../bench/typos.js";
import { type Catalog, loadCatalog, readSkillDocument, type Scope } from "../../src/catalog/index.js";
import { buildIndex, type SearchIndex, type SearchResult } from "../../src/search/index.js";
import { makeTree, type TempTree } from "../helpers/skill-tree.js";

interface Ask {
  readonly query: string;
  readonly scope: Scope;
}

/** What a user sees of a search: the skills in order, the counts behind "N more", the words read otherwise. */
function seen(result: SearchResult): unknown {
  return [
    result.skills.map((skill) => skill.id),
    result.matched,
    result.strongMatches,
    result.fairMatches,
    result.corrections,
  ];
}

let tree: TempTree;
let catalog: Catalog;
let asks: Ask[];
beforeAll(async () => {
  tree = await makeTree({});
  await writeSyntheticCatalog(tree.dir, { skills: 300, skillsPerPack: 50, seed: 5 });
  catalog = loadCatalog(tree.dir).catalog;
  const { everything } = catalog;
  const scopes = [everything, ...everything.packs.slice(0, 2).map((pack) => everything.narrow([pack.name]))];
  // Plain requests, mistyped ones (which mark and count a request's best matches), and words that take
  // the scanner's Unicode path (its sticky regular expression).
  const queries = syntheticQueries(40, 9).flatMap((query, i) => [
    query,
    withTypo(query, `q${i}`).text,
    `${query} Straße 数据可视化`,
  ]);
  asks = queries.map((query, i) => ({ query, scope: scopes[i % scopes.length] as Scope }));
});
afterAll(() => tree.remove());

describe("search is synchronous", () => {
  it("answers before it returns: no query waits on anything", () => {
    const index = buildIndex(catalog.everything.skills, readSkillDocument);
    expect(index.search("review a pull request", catalog.everything, 5)).not.toBeInstanceOf(Promise);
    expect(index.suggest("reviw", catalog.everything)).not.toBeInstanceOf(Promise);
  });

  it("gives every one of many queries started at once the answer it gets alone", async () => {
    const alone: SearchIndex = buildIndex(catalog.everything.skills, readSkillDocument);
    const expected: unknown[] = [];
    let corrected = 0;
    for (const { query, scope } of asks) {
      const result = await alone.search(query, scope, 10);
      expected.push(seen(result));
      if (result.corrections.length > 0) corrected++;
    }
    // Mistyped words were read, so that the buffers of a correction are in play.
    expect(corrected).toBeGreaterThan(5);

    const shared = buildIndex(catalog.everything.skills, readSkillDocument);
    // Each query starts in its own task, as concurrent requests do; were a query to wait inside, the next
    // would run in between, on the same buffers.
    const interleaved = await Promise.all(
      asks.map(async ({ query, scope }) => seen(await shared.search(query, scope, 10))),
    );
    expect(interleaved).toEqual(expected);
  });
});
