export {
  MINIMAL_LIST_SKILLS,
  type Preview,
  type PreviewSettings,
  previewOf,
  workOutAhead,
} from "./preview.js";
export { type LoadedTerms, termsFromPart, termsToPart } from "./saved-terms.js";
export { steeringLine } from "./steering.js";
export { TermFrequencies } from "./summary.js";
