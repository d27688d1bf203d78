/**
 * A synthetic skills folder of any size, for speed and memory benchmarks: packs (half of them with groups)
 * of skills whose names, descriptions and SKILL.md bodies have realistic lengths and word statistics.
 * Words follow a Zipf law, so some occur in nearly every skill (long posting lists, the slow case for
 * search) and most are rare; a third of the running text is English function words. Deterministic for a
 * given seed, so runs compare.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stopwords as FUNCTION_WORDS } from "@orama/stopwords/english";

export interface SyntheticCatalogOptions {
  readonly skills: number;
  /** Same seed, same catalog. */
  readonly seed?: number;
  /** Average skills per pack (default 150). */
  readonly skillsPerPack?: number;
}

export interface SyntheticCatalogSummary {
  readonly packs: number;
  readonly skills: number;
  readonly bytes: number;
}

/** Distinct content words; the catalog draws from them by Zipf rank. */
const VOCABULARY_SIZE = 40_000;
const SKILLS_PER_GROUP = 8;
const SYLLABLES = [
  ..."ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu".split(
    " ",
  ),
  ..."pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zi zo".split(" "),
  ..."tion ment ing er al ous ive able ark est ix ex on an or en ul".split(" "),
];

/** Writes `options.skills` skills under `dir` (`<pack>/[<group>/]<skill>/SKILL.md`). */
export async function writeSyntheticCatalog(
  dir: string,
  options: SyntheticCatalogOptions,
): Promise<SyntheticCatalogSummary> {
  const random = seededRandom(options.seed ?? 1);
  const words = new ZipfWords(random);
  const perPack = options.skillsPerPack ?? 150;
  const packCount = Math.max(1, Math.round(options.skills / perPack));
  let bytes = 0;
  for (let pack = 0; pack < packCount; pack++) {
    const packName = `${contentWord(pack + 7)}-${pack}`;
    const grouped = pack % 2 === 1;
    const first = Math.floor((pack * options.skills) / packCount);
    const end = Math.floor(((pack + 1) * options.skills) / packCount);
    for (let skill = first; skill < end; skill++) {
      const topic = Array.from({ length: 6 }, () => words.rare());
      const name = `${topic.slice(0, 2 + (skill % 3)).join("-")}-${skill}`;
      const group = grouped ? `${contentWord(Math.floor(skill / SKILLS_PER_GROUP) + 11)}-kit` : undefined;
      const folder = path.join(dir, packName, ...(group ? [group] : []), name);
      const document = skillDocument(name, topic, words, random);
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, "SKILL.md"), document);
      bytes += Buffer.byteLength(document);
    }
  }
  return { packs: packCount, skills: options.skills, bytes };
}

/**
 * Requests of the lengths real ones have: a third short (1–3 words, like a skill name), a third of a
 * sentence, a third long natural-language requests of 15–35 words.
 */
export function syntheticQueries(count: number, seed = 2): string[] {
  const random = seededRandom(seed);
  const words = new ZipfWords(random);
  return Array.from({ length: count }, (_, index) => {
    const length = [
      1 + Math.floor(random() * 3),
      4 + Math.floor(random() * 7),
      15 + Math.floor(random() * 21),
    ][index % 3];
    return words.sentence(length ?? 3);
  });
}

function skillDocument(
  name: string,
  topic: readonly string[],
  words: ZipfWords,
  random: () => number,
): string {
  const description = `Use when ${words.sentence(15 + Math.floor(random() * 45), topic)}.`;
  // Log-normal body length: median about 1,200 words, a long tail to about 8,000.
  const bodyWords = Math.min(8000, Math.max(150, Math.round(1200 * Math.exp(0.8 * gaussian(random)))));
  const lines = [`# ${topic.slice(0, 2).join(" ")}`, ""];
  let written = 0;
  while (written < bodyWords) {
    if (random() < 0.3) lines.push(`## ${words.sentence(2 + Math.floor(random() * 4), topic)}`, "");
    const paragraph = 40 + Math.floor(random() * 120);
    lines.push(`${words.sentence(paragraph, topic)}.`, "");
    if (random() < 0.15) lines.push("```", words.sentence(12, topic), "```", "");
    written += paragraph;
  }
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${lines.join("\n")}`;
}

/** Draws function words and Zipf-distributed content words. */
class ZipfWords {
  private readonly cumulative: Float64Array;

  constructor(private readonly random: () => number) {
    this.cumulative = new Float64Array(VOCABULARY_SIZE);
    let total = 0;
    for (let rank = 0; rank < VOCABULARY_SIZE; rank++) {
      total += 1 / (rank + 1);
      this.cumulative[rank] = total;
    }
  }

  /** A content word by Zipf law (s = 1). */
  common(): string {
    const target = this.random() * (this.cumulative[VOCABULARY_SIZE - 1] ?? 1);
    let low = 0;
    let high = VOCABULARY_SIZE - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.cumulative[middle] ?? 0) < target) low = middle + 1;
      else high = middle;
    }
    return contentWord(low);
  }

  /** A word from the rarer half of the vocabulary: what makes one skill different from the others. */
  rare(): string {
    return contentWord(VOCABULARY_SIZE / 20 + Math.floor(this.random() * (VOCABULARY_SIZE * 0.95)));
  }

  /** `length` words: a third function words, some from `topic`, the rest by Zipf law. */
  sentence(length: number, topic: readonly string[] = []): string {
    return Array.from({ length }, () => {
      const roll = this.random();
      if (roll < 0.33) return FUNCTION_WORDS[Math.floor(this.random() * FUNCTION_WORDS.length)] ?? "the";
      if (roll < 0.4 && topic.length > 0) return topic[Math.floor(this.random() * topic.length)] ?? "";
      return this.common();
    }).join(" ");
  }
}

/** The content word of a rank: syllables spelling the rank, so every rank has its own word. */
function contentWord(rank: number): string {
  let word = "";
  let rest = rank;
  do {
    word += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return word.length < 4 ? `${word}${SYLLABLES[(rank * 7) % SYLLABLES.length]}` : word;
}

/** mulberry32: small, fast, and good enough for test data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
