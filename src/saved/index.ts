export {
  type CatalogFingerprint,
  readSavedIndex,
  type SavedIndex,
  savedIndexBytes,
  type Unfit,
} from "./container.js";
export { STALE_TEMPORARY_MS, writeSavedIndexFile } from "./file.js";
export { MalformedPart, PartReader, PartWriter } from "./part.js";
