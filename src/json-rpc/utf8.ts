import { isUtf8 } from "node:buffer";
import { utf8SequenceLength } from "../shared/index.js";

/**
 * Where `bytes` stop being UTF-8: the offset of the first byte that begins no well-formed UTF-8 sequence
 * (Unicode's table 3-7: no overlong form, surrogate or code point past U+10FFFF), or undefined when all of
 * it is UTF-8. Node's decoder turns such bytes into U+FFFD without a word, so a message holding them was
 * served as if it said something else. `isUtf8` answers the common case; the bytes are walked only when
 * it fails.
 */
export function notUtf8At(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined;
  let index = 0;
  while (index < bytes.length) {
    const length = utf8SequenceLength(bytes, index);
    if (length === 0) return index;
    index += length;
  }
  // Not reached: isUtf8 found a byte that begins no sequence, and the walk stops at it.
  return undefined;
}

/** `bytes` from `offset`, at most four of them, in hex (`0xC3 0x28`): what a client can look for. */
export function bytesAt(bytes: Uint8Array, offset: number): string {
  return Array.from(
    bytes.subarray(offset, offset + 4),
    (byte) => `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`,
  ).join(" ");
}
