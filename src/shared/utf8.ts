/** UTF-8 read strictly: what is not UTF-8 is said to be, never read as U+FFFD in silence. */

/**
 * `bytes` as text, or undefined when they are not UTF-8 (a decoder that is not fatal writes U+FFFD for
 * each bad byte, and the text then says something else than the file or name does).
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The length of the well-formed UTF-8 sequence at `index` of `bytes`, or 0 if none begins there (Unicode's
 * table 3-7: no overlong form, surrogate or code point past U+10FFFF, and no sequence cut short).
 */
export function utf8SequenceLength(bytes: Uint8Array, index: number): number {
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
