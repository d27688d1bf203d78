export { auditFile, FINDINGS_PER_RULE, type FileFacts } from "./file.js";
export {
  auditCatalog,
  auditFolder,
  documentPath,
  type FolderAudit,
  type ServedFile,
} from "./folder.js";
export {
  countBySeverity,
  findingsTable,
  markdownCode,
  markdownText,
  ruleCounts,
  unsafeLead,
} from "./markdown.js";
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
export { visible } from "./text.js";
