import type { Skill } from "../catalog/index.js";
import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { editDistance } from "../shared/index.js";
import { allBelow, isStarts } from "./arrays.js";
import { KeyTable } from "./keys.js";

/** How many names sharing the most trigrams with a mistyped one are compared by edit distance. */
const COMPARED_NAMES = 50;
/** Edits any name may be away and still be close: a typing mistake or two. */
const CLOSE_EDITS = 2;
/**
 * The share of a name's letters (folded) that may differ in a close one, past {@link CLOSE_EDITS}: a word
 * misremembered (`webapp-tester` for `webapp-testing`, 3 of 12). Half let in names sharing a word and
 * little else (`react-patterns` found `gitlab-ci-patterns`, 6 of 13; `parse-invoices` `bioservices`).
 */
const CLOSE_SHARE = 0.25;
/** Letters (folded) a name must hold whole to come first: fewer are held by chance (`ai` in `email`). */
const EXTENDED_LENGTH = 5;

/**
 * Finds skill names spelled close to a mistyped one without comparing it against every name: names are
 * indexed by their letter trigrams, and only names sharing trigrams with it are compared. Lists are typed
 * arrays (a name has some 30 trigrams, and a catalog may have 50,000 names), so that an index can be saved
 * and loaded again as they are.
 */
export class NameIndex {
  constructor(
    /** The catalog, in the order the index numbers documents. */
    private readonly skills: readonly Skill[],
    /** Per distinct folded name n (see {@link fold}), its documents are `documents[documentStarts[n]…[n + 1]]`. */
    private readonly documentStarts: Int32Array,
    private readonly documents: Int32Array,
    /** Trigram ids by trigram key (see {@link trigramKeys}). */
    private readonly trigrams: KeyTable,
    /** Per trigram t, the names holding it are `trigramNames[trigramStarts[t]…[t + 1]]`. */
    private readonly trigramStarts: Int32Array,
    private readonly trigramNames: Int32Array,
  ) {}

  /** Writes the index to a part of the saved index, for {@link NameIndex.load}; the skills are not in it. */
  save(part: PartWriter): void {
    part.array(this.documentStarts);
    part.array(this.documents);
    this.trigrams.save(part);
    part.array(this.trigramStarts);
    part.array(this.trigramNames);
  }

  /** An index saved by {@link save} from these `skills`, once its lists are seen to hold together. */
  static load(part: PartReader, skills: readonly Skill[]): NameIndex {
    const documentStarts = part.array(Int32Array);
    const documents = part.array(Int32Array);
    const trigrams = KeyTable.load(part);
    const trigramStarts = part.array(Int32Array);
    const trigramNames = part.array(Int32Array);
    const names = documentStarts.length - 1;
    if (
      !isStarts(documentStarts, names, skills.length) ||
      documents.length !== skills.length ||
      !allBelow(documents, skills.length) ||
      !isStarts(trigramStarts, trigrams.size, trigramNames.length) ||
      !allBelow(trigramNames, names)
    ) {
      throw new MalformedPart("the names do not fit the skills");
    }
    return new NameIndex(skills, documentStarts, documents, trigrams, trigramStarts, trigramNames);
  }

  static build(skills: readonly Skill[]): NameIndex {
    const nameIds = new Map<string, number>();
    const names: string[] = [];
    const nameOf = Int32Array.from(skills, (skill) => {
      const name = fold(skill.name);
      let id = nameIds.get(name);
      if (id === undefined) {
        id = names.length;
        nameIds.set(name, id);
        names.push(name);
      }
      return id;
    });
    const [documentStarts, documents] = groupBy(names.length, nameOf);

    const trigrams = new KeyTable();
    const trigramOf: number[] = [];
    const holder: number[] = [];
    names.forEach((name, id) => {
      for (const key of trigramKeys(name)) {
        trigramOf.push(trigrams.add(key, 0));
        holder.push(id);
      }
    });
    const [trigramStarts, trigramNames] = groupBy(trigrams.size, trigramOf, holder);
    return new NameIndex(skills, documentStarts, documents, trigrams, trigramStarts, trigramNames);
  }

  /**
   * Documents whose name is within a few edits of `wanted` (case and hyphens ignored), or contains it,
   * or is contained in it; closest first, but a name holding all of a `wanted` of some length before
   * the rest: a model that remembers `n8n-error-handling` of `n8n-error-handling-official` was offered
   * `python-error-handling` first, fewer edits away.
   */
  closeTo(wanted: string): number[] {
    const target = fold(wanted);
    if (target === "") return [];
    const shared = new Map<number, number>();
    for (const key of trigramKeys(target)) {
      const trigram = this.trigrams.get(key, 0);
      if (trigram < 0) continue;
      const end = this.trigramStarts[trigram + 1] as number;
      for (let at = this.trigramStarts[trigram] as number; at < end; at++) {
        const name = this.trigramNames[at] as number;
        shared.set(name, (shared.get(name) ?? 0) + 1);
      }
    }
    const tolerance = Math.max(CLOSE_EDITS, Math.ceil(target.length * CLOSE_SHARE));
    return [...shared.entries()]
      .sort(([a, sharedA], [b, sharedB]) => sharedB - sharedA || a - b)
      .slice(0, COMPARED_NAMES)
      .map(([id]) => {
        const name = this.name(id);
        const holds = holdsWhole(this.spelledName(id), target);
        const contains = holds || target.includes(name);
        const extended = holds && target.length >= EXTENDED_LENGTH;
        return { id, contains, extended, distance: editDistance(target, name) };
      })
      .filter(({ contains, distance }) => contains || distance <= tolerance)
      .sort((a, b) => Number(b.extended) - Number(a.extended) || a.distance - b.distance || a.id - b.id)
      .flatMap(({ id }) => [
        ...this.documents.subarray(this.documentStarts[id], this.documentStarts[id + 1]),
      ]);
  }

  /** Distinct name `id`, folded: that of its first document. Kept as the skills' names, not copied. */
  private name(id: number): string {
    return fold(this.spelledName(id));
  }

  /** Distinct name `id` as its first document spells it, hyphens and all. */
  private spelledName(id: number): string {
    return this.skills[this.documents[this.documentStarts[id] as number] as number]?.name ?? "";
  }
}

/**
 * Lists grouped by key, as offsets and items: the items of key k are `items[starts[k]…starts[k + 1]]`, in
 * their order. `keys[i]` is the key of item `values[i]` (of item i when `values` is not given).
 */
function groupBy(
  keyCount: number,
  keys: ArrayLike<number>,
  values?: ArrayLike<number>,
): [starts: Int32Array, items: Int32Array] {
  const starts = new Int32Array(keyCount + 1);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as number;
    starts[key + 1] = (starts[key + 1] as number) + 1;
  }
  for (let key = 0; key < keyCount; key++)
    starts[key + 1] = (starts[key + 1] as number) + (starts[key] as number);
  const next = starts.slice(0, keyCount);
  const items = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as number;
    const at = next[key] as number;
    items[at] = values === undefined ? i : (values[i] as number);
    next[key] = at + 1;
  }
  return [starts, items];
}

/**
 * Whether `name` begins with `target` (folded), or holds it as whole words in a row, case and hyphens
 * ignored: `postgres` of `postgresql-table-design`, `codenodes` of `n8n-code-nodes-official`, not `excel`
 * of `code-review-excellence`, which only holds its letters inside a word of its own (a model that asks
 * for `excel` did not misremember that name).
 */
function holdsWhole(name: string, target: string): boolean {
  const starts = new Set<number>([0]);
  let folded = "";
  for (const part of name.toLowerCase().split(/[-_\s]+/)) {
    folded += part;
    starts.add(folded.length);
  }
  if (folded.startsWith(target)) return true;
  for (let at = folded.indexOf(target); at >= 0; at = folded.indexOf(target, at + 1)) {
    if (starts.has(at) && starts.has(at + target.length)) return true;
  }
  return false;
}

/** Case and hyphens do not matter: `Code-Nodes` is `codenodes`. */
function fold(text: string): string {
  return text.toLowerCase().replace(/[-_\s]/g, "");
}

/**
 * A name's distinct letter trigrams, padded so that short names and name ends have some too, each as a
 * small integer. Two trigrams may share a key: that only adds a candidate, which edit distance then judges.
 */
function trigramKeys(name: string): number[] {
  const padded = `^${name}$`;
  const keys: number[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) {
    const code = padded.charCodeAt(i) * 0x10000 + padded.charCodeAt(i + 1) * 0x100 + padded.charCodeAt(i + 2);
    keys.push(code % 0x3fffffff);
  }
  keys.sort((a, b) => a - b);
  return keys.filter((key, i) => i === 0 || key !== keys[i - 1]);
}
