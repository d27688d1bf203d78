/**
 * A new scope's preview is worked out from what is kept of each pack and group, stopping at the room each
 * text has, rather than from every term and every skill of the scope (some 290 ms at 10k skills, for a
 * header anyone can vary): what a model reads must stay, byte for byte, what the full computation gives.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/synthetic-catalog.js";
import type { Pack, Skill } from "../../src/catalog/index.js";
import { compareSkills, Scope } from "../../src/catalog/scope.js";
import { type PreviewSettings, previewOf, steeringLine, TermFrequencies } from "../../src/preview/index.js";
import { referencePreviewOf, referenceSteeringLine } from "./preview-reference.js";

const SYLLABLES = "ka lo mi nu re sa ti vo ze bra cho dri flu gne plo stri".split(" ");
/** Words a summary reads differently: accents, plurals, hyphens, apostrophes, scripts other than Latin. */
const ODD_WORDS = [
  "café",
  "Café",
  "naïve",
  "données",
  "日本語",
  "Ärger",
  "x-ray",
  "don't",
  "nodes",
  "node",
  "boxes",
  "10.5",
];

/**
 * A catalog of many packs of every shape: with groups (of many sizes, some names shared by packs) and
 * without, with skills beside groups, names that packs share (copies and not), skills no listing names,
 * short and long descriptions over a skewed vocabulary, so that previews of its scopes take every path:
 * entries whole or cut, packs summarized by their groups or their terms, packs left out for room.
 */
function catalog(seed: number): { everything: Scope; listed: Skill[] } {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const vocabulary = Array.from({ length: 200 }, (_, index) =>
    index % 37 === 0 ? pick(ODD_WORDS) : `${pick(SYLLABLES)}${pick(SYLLABLES)}${index % 5 === 0 ? "s" : ""}`,
  );
  // Skewed: a few words in most descriptions, most words in few.
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] ?? "word";
  const skills: Skill[] = [];
  const sharedNames = ["review", "deploy", "lint-code"];
  for (let pack = 0; pack < 48; pack += 1) {
    const packName = `${pick(SYLLABLES)}${pick(SYLLABLES)}-${pack}`;
    const shape = pack % 4;
    const groups =
      shape === 0
        ? []
        : Array.from(
            { length: 1 + Math.floor(random() * 9) },
            (_, index) => `${pick(["kit", "core", "tools", "docs"])}${index}`,
          );
    const count = 1 + Math.floor(random() ** 2 * 80);
    for (let index = 0; index < count; index += 1) {
      const group = groups.length > 0 && (shape !== 3 || random() < 0.7) ? pick(groups) : undefined;
      const shared = random() < 0.04 ? pick(sharedNames) : undefined;
      const name =
        shared ??
        `${word()}-${word()}${random() < 0.5 ? `-${word()}` : ""}-${pack}-${index}`
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, "x");
      if (skills.some((skill) => skill.pack === packName && skill.name === name)) continue;
      const length = random() < 0.2 ? 2 + Math.floor(random() * 4) : 10 + Math.floor(random() * 120);
      const description =
        shared === "review"
          ? "Review a change before it ships."
          : Array.from({ length }, word).join(random() < 0.1 ? ", " : " ");
      skills.push({
        id: `${packName}/${name}`,
        name,
        description: `Use when ${description}.`,
        pack: packName,
        group,
        folder: group === undefined ? name : `${group}/${name}`,
        document: {
          path: "SKILL.md",
          size: 100,
          mtimeMs: 0,
          source: "/nowhere/SKILL.md",
          identity: "path:/nowhere/SKILL.md",
        },
        files: new Map(),
        modelInvocable: random() > 0.03,
        userInvocable: true,
      });
    }
  }
  const everything = new Scope([...skills].sort(compareSkills), () => new Map());
  return { everything, listed: skills.filter((skill) => skill.modelInvocable) };
}

/** A client's selectors: some packs and groups, or all packs but some. */
function randomSelectors(everything: Scope, random: () => number): string[] {
  const all = everything.selectors();
  const packs = everything.packs.map((pack) => pack.name);
  const kind = random();
  if (kind < 0.3) return packs.filter(() => random() > 0.1 + random() * 0.3);
  const count = 1 + Math.floor(random() ** 2 * (kind < 0.6 ? 4 : 40));
  return Array.from({ length: count }, () => all[Math.floor(random() * all.length)] ?? "");
}

/**
 * The whole catalog and `count` random scopes of it, less the `unlisted` skills, as previews are made of
 * them. A quarter are made as a server makes a client's scope: narrowed, then the unlisted left out, so
 * that each pack holding one of those is new to the previews' caches. The rest are narrowed from the
 * catalog less those, sharing with one another the packs they hold whole, as scopes whose packs hold no
 * unlisted skill do: a pack's summary is then worked out once and cut to each scope's room (and the scopes
 * cost half the time).
 */
function randomScopes(everything: Scope, unlisted: ReadonlySet<Skill>, count: number): Scope[] {
  const random = seededRandom(11);
  const listed = everything.without(unlisted);
  return [
    listed,
    ...Array.from({ length: count }, () =>
      random() < 0.25
        ? everything.narrow(randomSelectors(everything, random)).without(unlisted)
        : listed.narrow(randomSelectors(listed, random)),
    ),
  ];
}

describe("the preview of a scope", () => {
  const { everything, listed } = catalog(7);
  const unlisted = new Set(everything.skills.filter((skill) => !skill.modelInvocable));
  const terms = new TermFrequencies(listed);
  const packSizes = new Map<string, number>();
  for (const skill of listed) packSizes.set(skill.pack, (packSizes.get(skill.pack) ?? 0) + 1);
  const plain: PreviewSettings = { enabled: true, describedPack: () => undefined };
  const described: PreviewSettings = {
    enabled: true,
    // As the server gives an operator's description: only to a scope holding the whole pack.
    describedPack: (pack: Pack) =>
      pack.skills.length === packSizes.get(pack.name) && pack.name.length % 2 === 0
        ? `Everything about ${pack.name}, described at length by its operator. `.repeat(4)
        : undefined,
  };

  const shownScopes = randomScopes(everything, unlisted, 200);
  const settingsOf = [plain, described];
  // In parts, each with its own timeout: all the scopes at once took some 20 s, past a minute on a busy
  // machine.
  const PARTS = 4;

  it.each(Array.from({ length: PARTS }, (_, part) => part + 1))(
    `is, for hundreds of random scopes, byte for byte what the full computation gives (part %i of ${PARTS})`,
    (part) => {
      for (const shown of shownScopes.filter((_, index) => index % PARTS === part - 1)) {
        for (const settings of settingsOf) {
          const preview = previewOf(shown, terms, settings);
          const reference = referencePreviewOf(shown, terms, settings);
          const where = `scope ${shown.packs.map((pack) => pack.name).join(",")} (${shown.skills.length} skills)`;
          expect(preview.listSkillsDescription, where).toBe(reference.listSkillsDescription);
          expect(preview.instructions, where).toBe(reference.instructions);
          for (const pack of shown.packs)
            expect(preview.describePack(pack), where).toBe(reference.describePack(pack));
          expect(steeringLine(shown, terms, settings), where).toBe(
            referenceSteeringLine(shown, terms, settings),
          );
        }
      }
    },
  );

  it("takes, over those scopes, every way a preview is written, and a steering line says a pack", () => {
    const paths = new Set<string>();
    const steeringPaths = new Set<string>();
    for (const shown of shownScopes) {
      for (const settings of settingsOf) {
        const preview = previewOf(shown, terms, settings);
        paths.add(pathOf(preview.listSkillsDescription, preview.instructions));
        const steering = steeringLine(shown, terms, settings);
        for (const area of steering.split("Areas: ")[1]?.split("); ") ?? [])
          steeringPaths.add(steeringPathOf(area));
      }
    }
    expect([...paths].sort()).toEqual(["entries cut", "entries whole", "packs left out", "packs summarized"]);
    expect([...steeringPaths].sort()).toEqual(["described", "names", "names and terms", "terms"]);
  });
});

describe("the cost of a new scope's preview", () => {
  it("reads the descriptions of the few skills an entry list could hold, not of every skill in scope", () => {
    const { everything, listed } = catalog(3);
    const terms = new TermFrequencies(listed);
    terms.whole();
    let read = 0;
    const counted = listed.map((skill) => {
      const { description, ...rest } = skill;
      return {
        ...rest,
        get description() {
          read += 1;
          return description;
        },
      };
    });
    const scope = new Scope([...counted].sort(compareSkills), () => new Map());
    const preview = previewOf(scope, terms, { enabled: true, describedPack: () => undefined });
    expect(preview.listSkillsDescription.split("\n")[1]).not.toContain(": Use when");
    expect(everything.skills.length).toBeGreaterThan(1000);
    // Entries of 60 bytes at least fit 2 KB some 30 times: no more than those are made to find they do not fit.
    expect(read).toBeLessThan(40);
  });

  it("summarizes a pack once for every scope that holds it whole", () => {
    const { everything, listed } = catalog(3);
    const terms = new TermFrequencies(listed);
    const shown = everything.narrow(
      everything.packs
        .filter((pack) => pack.skills.every((skill) => skill.modelInvocable))
        .map((pack) => pack.name),
    );
    let asked = 0;
    const tellingTerms = terms.tellingTerms.bind(terms);
    terms.tellingTerms = (...args) => {
      asked += 1;
      return tellingTerms(...args);
    };
    const settings: PreviewSettings = { enabled: true, describedPack: () => undefined };
    const [first, second] = shown.packs;
    if (first === undefined || second === undefined) throw new Error("two packs expected");
    steeringLine(
      shown.narrow(shown.packs.filter((pack) => pack !== first).map((pack) => pack.name)),
      terms,
      settings,
    );
    const once = asked;
    asked = 0;
    // Another scope of the same packs but one: only the pack not summarized before is ranked.
    steeringLine(
      shown.narrow(shown.packs.filter((pack) => pack !== second).map((pack) => pack.name)),
      terms,
      settings,
    );
    expect(once).toBeGreaterThan(20);
    expect(asked).toBeLessThan(once / 4);
  });

  it("ranks a pack's telling terms only as far as the room the text has", () => {
    const { everything, listed } = catalog(5);
    const terms = new TermFrequencies(listed);
    const [pack] = [...everything.packs].sort((a, b) => b.skills.length - a.skills.length);
    if (pack === undefined) throw new Error("a pack expected");
    const all = terms.tellingTerms(pack, undefined, new Set());
    const within = terms.tellingTerms(pack, undefined, new Set(), { bytes: 60 });
    expect(all.length).toBeGreaterThan(within.length);
    expect(all.slice(0, within.length)).toEqual(within);
    expect(Buffer.byteLength(within.join(", "))).toBeGreaterThan(60);
    expect(Buffer.byteLength(within.slice(0, -1).join(", "))).toBeLessThanOrEqual(60);
    expect(terms.tellingTerms(pack, undefined, new Set(), { terms: 3 })).toEqual(all.slice(0, 3));
  });
});

/** Which way a steering line said a pack, told from its text. */
function steeringPathOf(area: string): string {
  if (area.includes("described at length by its operator")) return "described";
  if (/-\d+-\d+/.test(area)) return area.includes("; also ") ? "names and terms" : "names";
  return "terms";
}

/** Which way a preview was written, told from its text. */
function pathOf(listSkills: string, instructions: string): string {
  if (instructions.includes("more packs: list_packs names them")) return "packs left out";
  const lines = listSkills.split("\n").slice(1);
  if (!lines.every((line) => line.includes(": Use when"))) return "packs summarized";
  return lines.some((line) => line.endsWith("…")) ? "entries cut" : "entries whole";
}
