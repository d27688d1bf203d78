import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";

/**
 * Terms are known by a 64-bit key of their stem (two independent 32-bit polynomial hashes), not by
 * the stem's text: the index keeps no strings for its hundreds of thousands of terms. Two of 300,000
 * distinct stems share a key with odds of about 1 in 10^8; they would then share their postings.
 */
export function stemKey(stem: string): [hash: number, check: number] {
  let hash = 0;
  let check = 0;
  for (let i = 0; i < stem.length; i++) {
    const code = stem.charCodeAt(i);
    hash = (Math.imul(hash, 0x01000193) + code) | 0;
    check = (Math.imul(check, 0x5bd1e995) + code) | 0;
  }
  return [hash, check];
}

/**
 * The key of a word written in capitals kept apart from its stem (`PAINS`, see `Lexicon.termOfCapitals`):
 * the key of the word as written, folded, after a mark no stem holds, so that it is no stem's key.
 */
export function capitalsKey(word: string): [hash: number, check: number] {
  return stemKey(`^${word}`);
}

/**
 * The number in `keys` of {@link capitalsKey} of the word spelled by `text` from `start` to `end`, or -1:
 * hashed as it reads, with neither the key's string nor its pair made, when it is letters a to z in either
 * case (a request's words); undefined otherwise.
 */
export function capitalsNumberOfLetters(
  keys: KeyTable,
  text: string,
  start: number,
  end: number,
): number | undefined {
  let hash = CARET;
  let check = CARET;
  for (let at = start; at < end; at++) {
    let code = text.charCodeAt(at);
    if (code >= 65 && code <= 90) code += 32;
    else if (code < 97 || code > 122) return undefined;
    hash = (Math.imul(hash, 0x01000193) + code) | 0;
    check = (Math.imul(check, 0x5bd1e995) + code) | 0;
  }
  return keys.get(hash, check);
}

/** The mark before a word in capitals (see {@link capitalsKey}), as its key's first step. */
const CARET = 94;

/** Numbers 0, 1, 2… given to keys in the order they are first added. */
export class KeyTable {
  constructor(
    /**
     * Open addressing, three numbers a slot: the key's two hashes and its number + 1 (0: empty). A power of
     * two of slots, at most half of them used.
     */
    private slots: Int32Array = new Int32Array(3 * 1024),
    public size = 0,
  ) {}

  /** Writes the table to a part of the saved index, for {@link KeyTable.load}. */
  save(part: PartWriter): void {
    part.number(this.size);
    part.array(this.slots);
  }

  /**
   * A table saved by {@link save}, as views of the saved bytes. A lookup walks slots until an empty one,
   * so a table with fewer empty slots than it claims (a crafted file with a valid checksum) would never
   * end a lookup: its slots must be a power of two of three numbers, exactly `size` of them used, at most
   * half, numbered 0 to size - 1 once each.
   */
  static load(part: PartReader): KeyTable {
    const size = part.count();
    const slots = part.array(Int32Array);
    const slotCount = slots.length / 3;
    const powerOfTwo = Number.isInteger(slotCount) && slotCount >= 2 && (slotCount & (slotCount - 1)) === 0;
    if (!powerOfTwo || size * 2 > slotCount) throw new MalformedPart("a key table has too few slots");
    const numbered = new Uint8Array(size);
    let used = 0;
    for (let at = 2; at < slots.length; at += 3) {
      const number = (slots[at] as number) - 1;
      if (number === -1) continue;
      if (number < 0 || number >= size || numbered[number] === 1) {
        throw new MalformedPart("a key table numbers its keys wrong");
      }
      numbered[number] = 1;
      used++;
    }
    if (used !== size) throw new MalformedPart("a key table holds another number of keys than it says");
    return new KeyTable(slots, size);
  }

  /** The number of a key, or -1 if it was never added. */
  get(hash: number, check: number): number {
    const slot = this.slotOf(hash, check);
    return (this.slots[slot * 3 + 2] as number) - 1;
  }

  /** The number of a key, given the next one if it is new. */
  add(hash: number, check: number): number {
    const slot = this.slotOf(hash, check);
    const at = slot * 3;
    const known = this.slots[at + 2] as number;
    if (known !== 0) return known - 1;
    const id = this.size++;
    this.slots[at] = hash;
    this.slots[at + 1] = check;
    this.slots[at + 2] = id + 1;
    if (this.size * 2 > this.slots.length / 3) this.rehash();
    return id;
  }

  /** The slot holding the key, or the empty one where it would go. */
  private slotOf(hash: number, check: number): number {
    const { slots } = this;
    const mask = slots.length / 3 - 1;
    let slot = mix(hash) & mask;
    while (slots[slot * 3 + 2] !== 0 && (slots[slot * 3] !== hash || slots[slot * 3 + 1] !== check)) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  /** Doubles the table when it is half full. */
  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (let from = 0; from < old.length; from += 3) {
      if (old[from + 2] === 0) continue;
      const to = this.slotOf(old[from] as number, old[from + 1] as number) * 3;
      this.slots.set(old.subarray(from, from + 3), to);
    }
  }
}

/** Spreads a polynomial hash's bits into the low ones a table uses (MurmurHash3's finalizer). */
export function mix(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
