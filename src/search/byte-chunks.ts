/**
 * Bytes written in chunks of a megabyte, holding numbers seven bits a byte, low bits first. Growing copies
 * nothing and leaves little unused, and each chunk can be let go once read: at 10,000 skills the records
 * take some 20 MiB, which would otherwise be doubled by growth and kept beside the postings made from them.
 */
export class ByteChunks {
  private readonly chunks: (Uint8Array | undefined)[] = [];
  private current = new Uint8Array(0);
  /** Bytes written in the current chunk. */
  used = 0;

  get chunkCount(): number {
    return this.chunks.length;
  }

  /** The chunk to write `more` bytes to, from `used` on: the current one, or a new one if it is full. */
  reserve(more: number): Uint8Array {
    if (this.chunks.length === 0 || this.used + more > this.current.length) {
      this.current = new Uint8Array(Math.max(1 << 20, more));
      this.chunks.push(this.current);
      this.used = 0;
    }
    return this.current;
  }

  /** Chunk `index`, which is then forgotten. */
  take(index: number): Uint8Array {
    const chunk = this.chunks[index] ?? new Uint8Array(0);
    this.chunks[index] = undefined;
    if (chunk === this.current) this.current = new Uint8Array(0);
    return chunk;
  }
}

/** How many bytes `value` takes, seven bits a byte. */
export function numberBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : 4;
}
