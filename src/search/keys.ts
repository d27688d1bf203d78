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

/** Numbers 0, 1, 2… given to keys in the order they are first added. */
export class KeyTable {
  /**
   * An empty table, or one saved earlier: `slots` and `size` as {@link storage} and {@link size} gave them
   * (a power of two of slots, at most half of them used).
   */
  constructor(
    /** Open addressing, three numbers a slot: the key's two hashes and its number + 1 (0: empty). */
    private slots: Int32Array = new Int32Array(3 * 1024),
    public size = 0,
  ) {}

  /** The table's slots, to save it. */
  get storage(): Int32Array {
    return this.slots;
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
