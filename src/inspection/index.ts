/** The inspection: every served file read once at startup, for the Skills extension's entries and the audit. */

export type { SkillEntry } from "./inspect.js";
export { Inspection, inspectCatalog, withoutUnsafe } from "./inspection.js";
