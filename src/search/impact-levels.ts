/**
 * Impacts are stored as one byte: the level of the saturated frequency tf / (k1 + tf), which lies in
 * (0, 1), on a logarithmic scale: a level is 1/32 of a power of two, read off the bits of the number as a
 * 32-bit float (exponent and leading mantissa bits), which is far quicker than a logarithm for millions of
 * postings. A stored impact is the middle of its level, within 2.5% of the exact one; levels cover 2^-8 to
 * 1 (lower saturations, from a word met once in a body twenty times longer than average, count as 2^-8).
 * The dev set ranks the same as with exact impacts (docs/search.md).
 */
const LEVEL_BITS = 18;
const FLOAT = new Float32Array(1);
const FLOAT_BITS = new Uint32Array(FLOAT.buffer);
/** The float bits of 2^-8, less one level: level 1 starts at 2^-8. */
const LEVEL_BASE = ((127 - 8) << 23) - (1 << LEVEL_BITS);
/** The saturation each level stands for, the middle of the level (level 0, which no posting has: 0). */
export const SATURATION_OF_LEVEL = Float64Array.from({ length: 256 }, (_, level) => {
  if (level === 0) return 0;
  FLOAT_BITS[0] = LEVEL_BASE + level * (1 << LEVEL_BITS) + (1 << (LEVEL_BITS - 1));
  return FLOAT[0] as number;
});

/** The level of `saturation`, 1 to 255. */
export function levelOf(saturation: number): number {
  FLOAT[0] = saturation;
  const level = ((FLOAT_BITS[0] as number) - LEVEL_BASE) >> LEVEL_BITS;
  return level < 1 ? 1 : Math.min(255, level);
}
