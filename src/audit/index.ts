export { auditFile, FINDINGS_PER_RULE, type FileFacts } from "./file.js";
export {
  CatalogAudit,
  type FolderAudit,
  type ServedFile,
  servedFileOf,
} from "./folder.js";
export { auditSkillMetadata, type SkillMetadata } from "./metadata.js";
export {
  atLeast,
  type Finding,
  isUnsafe,
  RULES,
  type RuleId,
  SEVERITIES,
  type Severity,
} from "./rules.js";
