/**
 * The catalog: a skills folder on disk as an immutable Catalog (packs, groups, skills, their files), and
 * what other folders need to read it. Only what they use is exported here.
 */

export { foldedName } from "../shared/index.js";
export { type CaseCollision, caseCollisions } from "./case-collisions.js";
export { type DocumentRecord, documentsToBytes, KnownDocuments } from "./documents.js";
export {
  describeBytes,
  type FileContent,
  FileReader,
  formatSize,
  isBinaryStart,
  isTextToGit,
  MAX_FILE_BYTES,
  readCatalogBytes,
  readSkillDocument,
  SNIFF_BYTES,
  weighsMoreAsText,
} from "./files.js";
export { describeFsError } from "./folders.js";
export {
  closingLineIndex,
  frontmatterDigest,
  nameRuleViolation,
  pyyamlRefusedKeys,
  readFrontmatterFields,
  stripBom,
} from "./frontmatter.js";
export { type Catalog, type LoadedCatalog, loadCatalog, PACK_WITHOUT_SKILL } from "./load.js";
export { ChangedFileError, readFileBeside } from "./open.js";
export {
  filesInFolder,
  MANIFEST_NAME,
  meantFilePath,
  normalizeFilePath,
  packPathCitedBySkill,
  resolvePackFile,
  resolveSkillFile,
  skillOwningPath,
  withoutEdgeSlashes,
  withoutTrailingSlashes,
} from "./paths.js";
export { Scope, SelectorError, type SkillLookup } from "./scope.js";
export { CatalogError } from "./skills-folder.js";
export { catalogFingerprint, digestOf, fileIdentity, fileStamp } from "./stamps.js";
export {
  type CatalogFile,
  type CatalogIssue,
  type Group,
  type Pack,
  SKILL_DOCUMENT,
  type Skill,
  type Source,
  skillPath,
  unnestedSkillPath,
} from "./types.js";
export { describeYaml11Reading, yaml11Readings } from "./yaml11.js";
