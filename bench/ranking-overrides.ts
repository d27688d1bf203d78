import { DEFAULT_RANKING, FIELD_NAMES, type FieldName, type RankingOptions } from "../src/search/index.js";

const KEYS = [...FIELD_NAMES, ...FIELD_NAMES.map((field) => `b.${field}`), "k1"];

/**
 * The shipped ranking with some numbers changed, for trying settings through the real tool:
 * `description=2.5,headings=0.75` sets field weights, `b.body=0.9` a field's length normalization, `k1=1.5`
 * the saturation (a length normalization lies in 0-1). Throws, naming the valid keys, on anything else.
 */
export function rankingWith(overrides: string): RankingOptions {
  const weights: Record<FieldName, number> = { ...DEFAULT_RANKING.weights };
  const lengthNormalization: Record<FieldName, number> = { ...DEFAULT_RANKING.lengthNormalization };
  let k1 = DEFAULT_RANKING.k1;
  const seen = new Set<string>();
  for (const item of overrides.split(",").filter((part) => part.trim() !== "")) {
    const [key = "", text = "", ...rest] = item.split("=").map((part) => part.trim());
    const value = Number(text);
    const largest = key.startsWith("b.") ? 1 : Number.POSITIVE_INFINITY;
    if (
      !KEYS.includes(key) ||
      text === "" ||
      rest.length > 0 ||
      !(Number.isFinite(value) && value >= 0 && value <= largest)
    ) {
      throw new Error(
        `bad ranking setting "${item}": use key=number, a number ≥ 0 (at most 1 for b.*), keys ${KEYS.join(", ")}`,
      );
    }
    if (seen.has(key)) throw new Error(`bad ranking setting "${item}": ${key} is set twice`);
    seen.add(key);
    const field = FIELD_NAMES.find((name) => key === name || key === `b.${name}`);
    if (field === undefined) k1 = value;
    else if (key.startsWith("b.")) lengthNormalization[field] = value;
    else weights[field] = value;
  }
  return { weights, lengthNormalization, k1 };
}
