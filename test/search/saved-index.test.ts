import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticQueries, writeSyntheticCatalog } from "../../bench/synthetic-catalog.js";
import { withTypo } from "../../bench/typos.js";
import {
  type Catalog,
  loadCatalog,
  readSkillDocument,
  type Scope,
  type Skill,
} from "../../src/catalog/index.js";
import { readSavedIndex, savedIndexBytes } from "../../src/saved/index.js";
import type { Correction } from "../../src/search/corrections.js";
import {
  buildIndex,
  DEFAULT_RANKING,
  indexFromPart,
  indexToPart,
  type RankingOptions,
  type SearchIndex,
} from "../../src/search/index.js";
import { INDEX_FORMAT_VERSION } from "../../src/search/saved-index.js";
import { ROOT } from "../helpers/process.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

/**
 * What a user sees of a search: the skills shown, in order, the counts behind "N more matched", and the
 * words read otherwise.
 */
type Answer = [
  query: string,
  found: string[],
  matched: number,
  strong: number,
  fair: number,
  read: readonly Correction[],
];

function answers(index: SearchIndex, queries: readonly string[], scopes: readonly Scope[]): Answer[] {
  return scopes.flatMap((scope) =>
    queries.map((query): Answer => {
      const found = index.search(query, scope, 10);
      return [
        query,
        found.skills.map((skill) => skill.id),
        found.matched,
        found.strongMatches,
        found.fairMatches,
        found.corrections,
      ];
    }),
  );
}

function suggestions(
  index: SearchIndex,
  names: readonly string[],
  scopes: readonly Scope[],
): [name: string, suggested: string[]][] {
  return scopes.flatMap((scope) =>
    names.map((name): [string, string[]] => [name, index.suggest(name, scope, 5).map((skill) => skill.id)]),
  );
}

/** Names as users mistype them: a letter dropped, two swapped, a pack prefix, a word of the name. */
function mistypedNames(catalog: Catalog): string[] {
  return catalog.everything.skills
    .filter((_, position) => position % 17 === 0)
    .flatMap((skill) => [
      skill.name.slice(1),
      `${skill.name.slice(0, 2)}${skill.name.slice(3, 4)}${skill.name.slice(2, 3)}${skill.name.slice(4)}`,
      `${skill.pack}/${skill.name}x`,
      skill.name.split("-")[0] ?? "",
    ]);
}

/** The whole catalog, each pack, one group, and two packs together. */
function scopesOf(catalog: Catalog): Scope[] {
  const everything = catalog.everything;
  const packs = everything.packs.map((pack) => pack.name);
  const group = everything.packs.flatMap((pack) => pack.groups)[0];
  return [
    everything,
    ...packs.map((pack) => everything.narrow([pack])),
    ...(group ? [everything.narrow([`${group.pack}/${group.name}`])] : []),
    everything.narrow(packs.slice(0, 2)),
  ];
}

/** The part as a server reads it back: views of a saved index's bytes. */
function throughFile(pieces: Uint8Array[]): Uint8Array[] {
  const fingerprint = { skills: 0, digest: new Uint8Array(32) };
  const read = readSavedIndex(savedIndexBytes({ fingerprint, parts: new Map([["search", pieces]]) }));
  if (!read.ok) throw new Error(read.problem);
  return [...(read.index.parts.get("search") ?? [])];
}

function loaded(pieces: readonly Uint8Array[], catalog: Catalog): SearchIndex {
  const result = indexFromPart(pieces, catalog.everything.skills);
  if (!result.ok) throw new Error(`the saved index was refused: ${result.problem}`);
  return result.index;
}

describe("a saved index, loaded again", () => {
  let tree: TempTree;
  let catalog: Catalog;
  let built: SearchIndex;
  let saved: Uint8Array[];
  beforeAll(async () => {
    tree = await makeTree({});
    await writeSyntheticCatalog(tree.dir, { skills: 400, skillsPerPack: 60, seed: 7 });
    catalog = loadCatalog(tree.dir).catalog;
    built = buildIndex(catalog.everything.skills, readSkillDocument);
    saved = throughFile(indexToPart(built));
  });
  afterAll(() => tree.remove());

  it("ranks every request in every scope exactly as the index it was saved from", () => {
    const queries = [
      ...syntheticQueries(150, 11),
      ...catalog.everything.skills.slice(0, 20).map((s) => s.name),
    ];
    const scopes = scopesOf(catalog);
    expect(scopes.length).toBeGreaterThan(5);
    const expected = answers(built, queries, scopes);
    // The requests find something, so that equal answers mean something.
    expect(expected.filter(([, found]) => found.length > 0).length).toBeGreaterThan(expected.length / 2);
    expect(answers(loaded(saved, catalog), queries, scopes)).toEqual(expected);
  });

  it("suggests the same skills for mistyped names", () => {
    const names = mistypedNames(catalog);
    const scopes = scopesOf(catalog).slice(0, 3);
    const expected = suggestions(built, names, scopes);
    // Over the whole catalog (the first scope) each name has a skill it was mistyped from; a pack's scope
    // need not, and is offered nothing unlike it.
    const everywhere = expected.slice(0, names.length);
    expect(everywhere.filter(([, found]) => found.length > 0).length).toBeGreaterThan(names.length / 2);
    expect(suggestions(loaded(saved, catalog), names, scopes)).toEqual(expected);
  });

  it("saves a loaded index to the same bytes again", () => {
    const again = indexToPart(loaded(saved, catalog));
    expect(again.map((piece) => piece.length)).toEqual(saved.map((piece) => piece.length));
    expect(Buffer.concat(again).equals(Buffer.concat(saved))).toBe(true);
  });
});

const CORPUS = path.resolve(ROOT, "../shared/bench/corpus");
const QUERIES = path.resolve(ROOT, "../shared/bench/queries.json");
const corpus = existsSync(CORPUS) && existsSync(QUERIES);
if (!corpus) {
  console.warn(`\n*** ${CORPUS} is missing: the saved-index round trip on the real corpus is SKIPPED. ***\n`);
}

describe.skipIf(!corpus)("a saved index of the real corpus (shared/bench)", () => {
  it("ranks the labeled requests and suggests names exactly as the index it was saved from", () => {
    const catalog = loadCatalog(CORPUS).catalog;
    const built = buildIndex(catalog.everything.skills, readSkillDocument);
    const index = loaded(throughFile(indexToPart(built)), catalog);
    const labeled = (JSON.parse(readFileSync(QUERIES, "utf8")) as { id: string; query: string }[]).flatMap(
      ({ id, query }) => [query, withTypo(query, id).text],
    );
    expect(labeled.length).toBeGreaterThan(100);
    const scopes = scopesOf(catalog);
    const expected = answers(built, labeled, scopes);
    // Mistyped words are read in many of them, so that equal readings mean something.
    expect(expected.filter(([, , , , , read]) => read.length > 0).length).toBeGreaterThan(100);
    expect(answers(index, labeled, scopes)).toEqual(expected);
    const names = mistypedNames(catalog);
    expect(suggestions(index, names, scopes)).toEqual(suggestions(built, names, scopes));
  });
});

describe("a saved search part that does not fit is refused, saying why", () => {
  let tree: TempTree;
  let skills: readonly Skill[];
  let saved: Uint8Array[];

  /** "accepted", or why not: an outdated part (of other options or format) or a damaged one. */
  function problemWith(pieces: readonly Uint8Array[], ranking: RankingOptions = DEFAULT_RANKING): string {
    const result = indexFromPart(pieces, skills, ranking);
    if (result.ok) return "accepted";
    return `${result.outdated ? "outdated" : "damaged"}: ${result.problem}`;
  }

  /** The part with piece `at` changed by `edit`, as a copy. */
  function edited(at: number, edit: (bytes: Buffer) => void): Uint8Array[] {
    return saved.map((piece, i) => {
      const copy = Buffer.from(piece);
      if (i === at) edit(copy);
      return copy;
    });
  }

  beforeAll(async () => {
    tree = await makeTree({});
    await writeSyntheticCatalog(tree.dir, { skills: 60, skillsPerPack: 20, seed: 3 });
    skills = loadCatalog(tree.dir).catalog.everything.skills;
    saved = indexToPart(buildIndex(skills, readSkillDocument));
  });
  afterAll(() => tree.remove());

  it("accepts the part it saved", () => {
    expect(problemWith(saved)).toBe("accepted");
  });

  it("refuses it for other ranking options or another format version", () => {
    expect(problemWith(saved, { ...DEFAULT_RANKING, k1: 1.2 })).toBe(
      "outdated: ranked with other options (field weights, length normalization, k1) than this server's",
    );
    const older = edited(0, (numbers) => numbers.writeDoubleLE(INDEX_FORMAT_VERSION + 1, 0));
    expect(problemWith(older)).toBe(
      `outdated: format version ${INDEX_FORMAT_VERSION + 1}; this server reads version ${INDEX_FORMAT_VERSION}`,
    );
  });

  it("refuses a crafted term table, which would never end a lookup", () => {
    // The term table's slots are the first array: mark every slot used.
    const crafted = edited(1, (slots) => {
      for (let at = 8; at < slots.length; at += 12) slots.writeInt32LE(1, at);
    });
    expect(problemWith(crafted)).toBe("damaged: malformed: a key table numbers its keys wrong");
  });

  it("refuses crafted spellings out of order, which a search could not find", () => {
    // The spellings' hashes are the eighth array: put the last first.
    const crafted = edited(8, (hashes) => {
      expect(hashes.length).toBeGreaterThan(4);
      hashes.writeInt32LE(hashes.readInt32LE(hashes.length - 4) + 1, 0);
    });
    expect(problemWith(crafted)).toBe("damaged: malformed: the spellings are out of order");
  });

  it("refuses postings that do not fit their terms, and names beyond the catalog", () => {
    // The posting starts are the fifth array; the name index's documents the eleventh.
    const postings = edited(5, (starts) =>
      starts.writeUInt32LE(starts.readUInt32LE(starts.length - 4) + 1, starts.length - 4),
    );
    expect(problemWith(postings)).toBe("damaged: malformed: the postings do not fit their terms");
    const names = edited(11, (documents) => documents.writeInt32LE(skills.length, 0));
    expect(problemWith(names)).toBe("damaged: malformed: the names do not fit the skills");
  });

  it("refuses missing, extra and cut pieces without throwing", () => {
    const cases: [string, Uint8Array[], RegExp][] = [
      ["no pieces", [], /^damaged: malformed: it holds no numbers$/],
      ["numbers only", saved.slice(0, 1), /^damaged: malformed: it holds fewer arrays/],
      ["an array short", saved.slice(0, -1), /^damaged: malformed: it holds fewer arrays/],
      ["an array more", [...saved, new Uint8Array(8)], /^damaged: malformed: it holds more than it should$/],
      ["odd numbers", [saved[0]?.subarray(0, 12) ?? new Uint8Array(0), ...saved.slice(1)], /no numbers/],
    ];
    for (let at = 1; at < saved.length; at++) {
      const piece = saved[at] ?? new Uint8Array(0);
      // An empty array (no skill cut short for the index, as here) has nothing to cut.
      if (piece.length === 0) continue;
      const cut = saved.map((other, i) => (i === at ? piece.subarray(0, piece.length >> 1) : other));
      cases.push([`array ${at} cut in half`, cut, /^damaged: malformed: /]);
    }
    for (const [name, pieces, problem] of cases) {
      expect({ name, problem: problemWith(pieces) }).toEqual({
        name,
        problem: expect.stringMatching(problem),
      });
    }
  });
});

// A request word looks up its form in capitals (SMILES, kept apart from smile) only when the index marks
// its stem as having one: an index loaded without its marks would find the chemistry skill no more.
describe("a saved index of a catalog writing words in capitals", () => {
  it("finds a word written in capitals as the index it was saved from does", async () => {
    const tree = await makeTree({
      "chem/molecule-reader/SKILL.md": skillMd("molecule-reader", "Read widget molecules from SMILES."),
      "chat/emoji-replies/SKILL.md": skillMd(
        "emoji-replies",
        "Answer widget messages with smiles and a wave.",
      ),
      "cloud/cloud-bills/SKILL.md": skillMd("cloud-bills", "Cut widget spending on AWS and GCP."),
    });
    try {
      const catalog = loadCatalog(tree.dir).catalog;
      const index = loaded(
        throughFile(indexToPart(buildIndex(catalog.everything.skills, readSkillDocument))),
        catalog,
      );
      const shown = (query: string) => {
        const found = index.search(query, catalog.everything, 10);
        return found.skills.slice(0, found.fairMatches).map((skill) => skill.name);
      };
      expect(shown("smiles").sort()).toEqual(["emoji-replies", "molecule-reader"]);
      expect(shown("aws")).toEqual(["cloud-bills"]);
      expect(shown("smils").sort()).toEqual(["emoji-replies", "molecule-reader"]);
    } finally {
      await tree.remove();
    }
  });
});

describe("the saved format", () => {
  it("keeps its bytes while its version stays: a change to them needs a new INDEX_FORMAT_VERSION", async () => {
    // The analysis, the fields, the scoring and the layout all decide the bytes. When this fails, bump
    // INDEX_FORMAT_VERSION in src/search/saved-index.ts (saved indexes must not be trusted across the
    // change), then record the new digest here.
    // A fixed catalog of its own (not the bench's generator, which may change for its own reasons), with
    // what the analysis handles: groups, compounds, stop words, numbers, accents, Japanese, headings, code,
    // a soft hyphen inside a word, a camel-case word and a word in capitals that is not its stem.
    const tree = await makeTree({
      "tools/hammer/SKILL.md": skillMd(
        "hammer",
        "Drive nails into wood; pull bent ones out.",
        "# Hammer\n\n## When to use\nSix nails or 600: the claw side pulls them, as a NailPuller does. Wear GLASSES.\n\n```sh\nnail --count 3\n```\n",
      ),
      "tools/power/drill-press/SKILL.md": skillMd(
        "drill-press",
        "Bore straight holes with a drill-press and a Forstner bit.",
        "# Drill press\nSet the depth stop before you start drill\u00ADing.\n",
      ),
      "garden/rake/SKILL.md": skillMd(
        "rake",
        "Gather leaves from a lawn; it's the gardener's broom.",
        "# Rake\nRaking leaves in autumn: twice a week.\n",
      ),
      "garden/beds/raised-bed-builder/SKILL.md": skillMd(
        "raised-bed-builder",
        "Plan a raised bed — timber, soil volume (m³) and a café-style herb corner.",
        "# Raised beds\n## Soil\nMix compost and topsoil 1:2, after a soil analysis.\n",
      ),
      "garden/bonsai/SKILL.md": skillMd(
        "bonsai",
        "盆栽の剪定と植え替え (bonsai pruning).",
        "# 盆栽\n春に植え替える。\n",
      ),
    });
    try {
      const skills = loadCatalog(tree.dir).catalog.everything.skills;
      expect(skills.map((skill) => skill.name)).toEqual([
        "bonsai",
        "drill-press",
        "hammer",
        "raised-bed-builder",
        "rake",
      ]);
      // Ranked with fixed options: tuning the default weights is not a change of format, and an index saved
      // with other options than the server's is refused by its own check (above).
      const ranking: RankingOptions = {
        weights: { name: 4, description: 3, place: 0.25, headings: 1, body: 0.15 },
        lengthNormalization: { name: 0.5, description: 1, place: 0.5, headings: 1, body: 1 },
        k1: 2,
      };
      const pieces = indexToPart(buildIndex(skills, readSkillDocument, ranking));
      const hash = createHash("sha256");
      for (const piece of pieces) hash.update(`${piece.length}\n`).update(piece);
      expect({ version: INDEX_FORMAT_VERSION, digest: hash.digest("hex") }).toEqual({
        version: 21,
        digest: "ef1784445f221396f450fea07482a17d8c3ee38fd7f72eeac1cd9a79cd1e2ba9",
      });
    } finally {
      await tree.remove();
    }
  });

  it("saves only an index that buildIndex made", () => {
    const foreign: SearchIndex = {
      search: () => ({
        skills: [],
        matched: 0,
        strongMatches: 0,
        fairMatches: 0,
        partialMatches: false,
        vague: undefined,
        corrections: [],
        undecided: [],
      }),
      suggest: () => [],
      cutSkills: () => [],
    };
    expect(() => indexToPart(foreign)).toThrow("only an index made by buildIndex can be saved");
  });
});
