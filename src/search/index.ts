export { type RankingOptions, TERMS_A_DOCUMENT } from "./bm25f.js";
export { buildIndex, DEFAULT_RANKING, indexFromPart } from "./build.js";
export { FIELD_NAMES, type FieldName } from "./fields.js";
export { INDEX_FORMAT_VERSION, indexToPart, type LoadedIndex } from "./saved-index.js";
export type { Correction, SearchIndex, SearchResult, Undecided, Vagueness } from "./skill-index.js";
export { stem } from "./terms.js";
