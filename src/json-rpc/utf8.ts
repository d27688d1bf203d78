import { isUtf8 } from "node:buffer";

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
    const length = sequenceLength(bytes, index);
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

/** The length of the well-formed UTF-8 sequence at `index`, or 0 if none begins there. */
function sequenceLength(bytes: Uint8Array, index: number): number {
  const lead = bytes[index] ?? 0;
  if (lead < 0x80) return 1;
  // The range of the second byte, which rules out overlong forms, surrogates and code points past U+10FFFF.
  let low = 0x80;
  let high = 0xbf;
  let length: number;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  const second = bytes[index + 1];
  if (second === undefined || second < low || second > high) return 0;
  for (let next = index + 2; next < index + length; next++) {
    const byte = bytes[next];
    if (byte === undefined || byte < 0x80 || byte > 0xbf) return 0;
  }
  return length;
}
