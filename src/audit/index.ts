export { auditFile } from "./file.js";
export {
  AuditFindings,
  CatalogAudit,
  type FolderAudit,
  type ReadHook,
  type ServedFile,
  servedFileOf,
} from "./folder.js";
/** The html-comment rule's reading of Markdown, which bench/audit-commonmark.ts holds to CommonMark's. */
export { htmlCommentHits } from "./html-comments.js";
export { auditSkillMetadata } from "./metadata.js";
export { atLeast, type Finding, isUnsafe, RULES, SEVERITIES, type Severity } from "./rules.js";
