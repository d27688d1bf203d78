import type { Skill } from "../catalog/index.js";

/** How many names sharing the most trigrams with a mistyped one are compared by edit distance. */
const COMPARED_NAMES = 50;

/**
 * Finds skill names spelled close to a mistyped one without comparing it against every name: names are
 * indexed by their letter trigrams, and only names sharing trigrams with it are compared.
 */
export class NameIndex {
  private readonly names: readonly string[];
  /** For each distinct name, the documents (catalog positions) bearing it. */
  private readonly documents: readonly (readonly number[])[];
  private readonly byTrigram = new Map<string, number[]>();

  constructor(skills: readonly Skill[]) {
    const byName = new Map<string, number[]>();
    skills.forEach((skill, position) => {
      const key = fold(skill.name);
      const list = byName.get(key);
      if (list) list.push(position);
      else byName.set(key, [position]);
    });
    this.names = [...byName.keys()];
    this.documents = [...byName.values()];
    this.names.forEach((name, id) => {
      for (const trigram of trigrams(name)) {
        const list = this.byTrigram.get(trigram);
        if (list) list.push(id);
        else this.byTrigram.set(trigram, [id]);
      }
    });
  }

  /**
   * Documents whose name is within a few edits of `wanted` (case and hyphens ignored), or contains it,
   * or is contained in it; closest first.
   */
  closeTo(wanted: string): number[] {
    const target = fold(wanted);
    if (target === "") return [];
    const shared = new Map<number, number>();
    for (const trigram of new Set(trigrams(target))) {
      for (const id of this.byTrigram.get(trigram) ?? []) shared.set(id, (shared.get(id) ?? 0) + 1);
    }
    const tolerance = Math.max(2, Math.floor(target.length / 2));
    return [...shared.entries()]
      .sort(([a, sharedA], [b, sharedB]) => sharedB - sharedA || a - b)
      .slice(0, COMPARED_NAMES)
      .map(([id]) => ({ id, distance: nameDistance(target, this.names[id] ?? "") }))
      .filter(({ distance }) => distance <= tolerance)
      .sort((a, b) => a.distance - b.distance || a.id - b.id)
      .flatMap(({ id }) => this.documents[id] ?? []);
  }
}

/** Case and hyphens do not matter: `Code-Nodes` is `codenodes`. */
function fold(text: string): string {
  return text.toLowerCase().replace(/[-_\s]/g, "");
}

/** Letter trigrams of a name, padded so that short names and name ends have some too. */
function trigrams(name: string): string[] {
  const padded = `^${name}$`;
  return Array.from({ length: Math.max(0, padded.length - 2) }, (_, i) => padded.slice(i, i + 3));
}

/** Edit distance, except that a name containing the wanted text (or contained in it) counts as close. */
function nameDistance(wanted: string, name: string): number {
  if (name.includes(wanted) || wanted.includes(name)) return 1;
  return levenshtein(wanted, name);
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
