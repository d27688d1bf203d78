/** The inspection: every served file read once at startup, for the Skills extension's entries and the audit. */

export { MAX_ENTRY_BYTES, type SkillEntry } from "./inspect.js";
export {
  INSPECTION_BUDGET_BYTES,
  Inspection,
  inspectCatalog,
  withoutUnsafe,
} from "./inspection.js";
