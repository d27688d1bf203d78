export {
  type CatalogFingerprint,
  readSavedIndex,
  type SavedIndex,
  savedIndexBytes,
  type Unfit,
} from "./container.js";
export { writeSavedIndexFile } from "./file.js";
export { MalformedPart, PartReader, PartWriter } from "./part.js";
