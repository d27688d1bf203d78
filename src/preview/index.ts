export {
  MINIMAL_INSTRUCTIONS,
  MINIMAL_LIST_SKILLS,
  type Preview,
  type PreviewSettings,
  previewOf,
  workOutAhead,
} from "./preview.js";
export { MAX_PREVIEW_BYTES } from "./room.js";
export { type LoadedTerms, TERMS_FORMAT_VERSION, termsFromPart, termsToPart } from "./saved-terms.js";
export { steeringLine } from "./steering.js";
export { TermFrequencies } from "./summary.js";
