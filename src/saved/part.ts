/** A typed array that a part holds as it is in memory. */
type SavedArray = Int32Array | Uint32Array | Uint8Array | Float64Array;

/** A typed array's constructor, with which a reader views a piece in place. */
interface ArrayKind<T extends SavedArray> {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * A part of typed arrays and numbers, written in an order that its reader follows: its pieces are the
 * numbers (one Float64Array), then each array as it is in memory, never copied.
 */
export class PartWriter {
  readonly #numbers: number[] = [];
  readonly #arrays: Uint8Array[] = [];

  number(...values: number[]): void {
    this.#numbers.push(...values);
  }

  array(array: SavedArray): void {
    this.#arrays.push(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  }

  pieces(): Uint8Array[] {
    const numbers = Float64Array.from(this.#numbers);
    return [new Uint8Array(numbers.buffer), ...this.#arrays];
  }
}

/** A part that does not hold what its reader asks for: the saved index is damaged. */
export class MalformedPart extends Error {
  override name = "MalformedPart";
}

/**
 * Reads a part in the order {@link PartWriter} wrote it, each array as a view of its piece (which the
 * container starts at a multiple of 8). Throws MalformedPart when the part does not hold what is asked.
 */
export class PartReader {
  readonly #numbers: Float64Array;
  readonly #pieces: readonly Uint8Array[];
  #number = 0;
  #piece = 1;

  constructor(pieces: readonly Uint8Array[]) {
    const [numbers] = pieces;
    if (numbers === undefined || numbers.byteLength % 8 !== 0) throw new MalformedPart("it holds no numbers");
    this.#numbers = new Float64Array(numbers.buffer, numbers.byteOffset, numbers.byteLength / 8);
    this.#pieces = pieces;
  }

  number(): number {
    const value = this.#numbers[this.#number++];
    if (value === undefined) throw new MalformedPart("it holds fewer numbers than it should");
    return value;
  }

  /** The next number, which must be a whole number from 0 up. */
  count(): number {
    const value = this.number();
    if (!Number.isSafeInteger(value) || value < 0) throw new MalformedPart(`${value} is no count`);
    return value;
  }

  array<T extends SavedArray>(Kind: ArrayKind<T>): T {
    const piece = this.#pieces[this.#piece++];
    if (piece === undefined) throw new MalformedPart("it holds fewer arrays than it should");
    if (piece.byteLength % Kind.BYTES_PER_ELEMENT !== 0 || piece.byteOffset % Kind.BYTES_PER_ELEMENT !== 0) {
      throw new MalformedPart("an array's length is not a whole number of elements");
    }
    return new Kind(piece.buffer, piece.byteOffset, piece.byteLength / Kind.BYTES_PER_ELEMENT);
  }

  /** Throws unless everything the part holds was read. */
  end(): void {
    if (this.#number !== this.#numbers.length || this.#piece !== this.#pieces.length) {
      throw new MalformedPart("it holds more than it should");
    }
  }
}
