export { type DocumentRecord, documentsToBytes, KnownDocuments } from "./documents.js";
export { editDistance } from "./edit-distance.js";
export {
  ChangedFileError,
  describeBytes,
  FILE_CACHE_BYTES,
  type FileContent,
  FileReader,
  formatSize,
  isBinaryStart,
  MANIFEST_NAME,
  MAX_FILE_BYTES,
  packPathCitedBySkill,
  readCatalogBytes,
  readCatalogBytesAndMode,
  readCatalogFile,
  readSkillDocument,
  resolvePackFile,
  resolveSkillFile,
  skillOwningPath,
} from "./files.js";
export { describeFsError } from "./folders.js";
export {
  closingLineIndex,
  frontmatterDigest,
  MAX_FRONTMATTER_BYTES,
  nameRuleViolation,
  readFrontmatterFields,
  stripBom,
} from "./frontmatter.js";
export {
  type Catalog,
  CatalogError,
  type LoadedCatalog,
  type LoadOptions,
  loadCatalog,
} from "./load.js";
export { compareSkills, compareText, Scope, SelectorError, type SkillLookup } from "./scope.js";
export { catalogFingerprint, fileStamp } from "./stamps.js";
export {
  type CatalogFile,
  type CatalogIssue,
  type Group,
  MAX_PACK_DESCRIPTION,
  type Pack,
  SKILL_DOCUMENT,
  type Skill,
  type SkillDocument,
  type Source,
} from "./types.js";
