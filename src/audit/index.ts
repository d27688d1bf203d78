export { auditFile, FINDINGS_PER_RULE, type FileFacts } from "./file.js";
export { CatalogAudit, type FolderAudit, type ServedFile, servedFileOf } from "./folder.js";
/** The html-comment rule's reading of Markdown, which bench/audit-commonmark.ts holds to CommonMark's. */
export { htmlCommentHits } from "./html-comments.js";
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
