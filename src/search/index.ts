export { type RankingOptions, TERMS_A_DOCUMENT } from "./bm25f.js";
export { buildIndex, DEFAULT_RANKING, indexFromPart } from "./build.js";
export type { Correction, Undecided } from "./corrections.js";
export { FIELD_NAMES, type FieldName } from "./fields.js";
export { INDEX_FORMAT_VERSION, indexToPart, type LoadedIndex } from "./saved-index.js";
export type { SearchResult } from "./search-result.js";
export type { SearchIndex } from "./skill-index.js";
export { stem } from "./terms.js";
export type { Vagueness } from "./vagueness.js";
