export {
  MAX_PREVIEW_BYTES,
  MINIMAL_INSTRUCTIONS,
  MINIMAL_LIST_SKILLS,
  type Preview,
  type PreviewSettings,
  previewOf,
  steeringLine,
  workOutAhead,
} from "./preview.js";
export { TermFrequencies } from "./summary.js";
