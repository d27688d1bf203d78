import {
  CatalogAudit,
  type Finding,
  type FolderAudit,
  type ReadHook,
  RULES,
  SEVERITIES,
} from "../audit/index.js";
import { ByteBudget } from "../budget/index.js";
import type { Catalog, Skill } from "../catalog/index.js";
import { isJsonObject } from "../json-rpc/index.js";
import {
  auditPackFile,
  inspectSkill,
  KEPT_FINDINGS,
  MAX_INSPECTED_FILE_BYTES,
  type SkillEntry,
  type SkillInspection,
  skillStamp,
} from "./inspect.js";

/**
 * The version of what a saved inspection holds and of how it was made: bump it when the entries, the
 * checks or the audit's rules change, so that inspections saved before are made anew instead of trusted.
 */
const INSPECTION_FORMAT_VERSION = 34;

/** How many skills are read at once: enough to keep the disk and the hashing busy. */
const PARALLEL_SKILLS = 16;
/**
 * How many bytes of file contents the skills read at once hold together: one file of the largest size
 * inspected. Real skills are a few KB, so this slows no real catalog; sixty 15 MiB files in each of two
 * skills took 1.9 GB before, in a container limited to 256 MiB.
 */
export const INSPECTION_BUDGET_BYTES = MAX_INSPECTED_FILE_BYTES;

/** Every skill of a catalog, inspected once at startup (or at `--build-index`, and saved). */
export class Inspection {
  readonly #bySkill: ReadonlyMap<Skill, SkillInspection>;
  readonly #stamps: ReadonlyMap<Skill, string>;

  constructor(bySkill: ReadonlyMap<Skill, SkillInspection>, stamps: ReadonlyMap<Skill, string>) {
    this.#bySkill = bySkill;
    this.#stamps = stamps;
  }

  /** What the inspection of `skill` found; a skill it never saw has no entry. */
  of(skill: Skill): SkillInspection {
    return this.#bySkill.get(skill) ?? notInspected();
  }

  /**
   * The skills a high finding of the audit makes unsafe to serve, each with its first findings and how many
   * it holds.
   */
  unsafe(): { skill: Skill; findings: readonly Finding[]; count: number }[] {
    return [...this.#bySkill].flatMap(([skill, { unsafe, unsafeCount }]) =>
      unsafe.length === 0 ? [] : [{ skill, findings: unsafe, count: unsafeCount }],
    );
  }

  /** The skills the Skills extension leaves out, and why. */
  leftOut(): { skill: Skill; reason: string }[] {
    return [...this.#bySkill].flatMap(([skill, { leftOut }]) =>
      leftOut === undefined ? [] : [{ skill, reason: leftOut }],
    );
  }

  /** The saved form (JSON), read back by {@link inspectCatalog} for the skills whose files still fit. */
  toBytes(): Uint8Array {
    const skills = [...this.#bySkill].map(([skill, found]) => [
      skill.id,
      this.#stamps.get(skill) ?? "",
      found.entry ?? null,
      found.leftOut ?? null,
      found.unsafe.slice(0, KEPT_FINDINGS),
      found.unsafeCount,
    ]);
    return Buffer.from(JSON.stringify({ format: INSPECTION_FORMAT_VERSION, skills }));
  }
}

interface InspectionRun {
  readonly inspection: Inspection;
  /** Skills whose files were read now. */
  readonly inspected: number;
  /** The most bytes of file contents held at once: at most {@link INSPECTION_BUDGET_BYTES}. */
  readonly peakBytes: number;
  /** Skills taken from the saved inspection. */
  readonly reused: number;
  /** Why the saved inspection was not used at all, when it was given and could not be. */
  readonly savedProblem: string | undefined;
  /** Why entries of the saved inspection were refused, when some were: their skills were inspected anew. */
  readonly savedRefused: string | undefined;
  /** The whole audit of the catalog, when asked for. */
  readonly audit?: FolderAudit;
}

interface InspectOptions {
  /** A saved {@link Inspection}: each skill whose files have not changed since is taken from it. */
  readonly saved?: Uint8Array;
  /** The digest of each skill's frontmatter as the catalog's YAML read it (LoadedCatalog.frontmatters). */
  readonly frontmatters?: ReadonlyMap<Skill, string>;
  /**
   * The whole audit of the catalog as well (see FolderAudit): every finding of every served file, pack files
   * and executables included, and the symlinks the fetcher skipped. Every file is read now, none taken from
   * `saved`; `onRead` sees each served file's bytes as they are audited.
   */
  readonly audit?: { readonly onRead?: ReadHook };
}

/**
 * Inspects the skills of `catalog`: the one walk that reads every file the server serves. Each skill whose
 * files have not changed since `saved` is taken from it, the others are read. A saved inspection that
 * cannot be read is ignored, and said so.
 */
export async function inspectCatalog(
  catalog: Catalog,
  options: InspectOptions & Required<Pick<InspectOptions, "audit">>,
): Promise<InspectionRun & { readonly audit: FolderAudit }>;
export async function inspectCatalog(catalog: Catalog, options?: InspectOptions): Promise<InspectionRun>;
export async function inspectCatalog(catalog: Catalog, options: InspectOptions = {}): Promise<InspectionRun> {
  const { skills, packs } = catalog.everything;
  const auditing = options.audit !== undefined;
  const audit = new CatalogAudit(options.audit?.onRead);
  const { known, problem, refused } = readSaved(auditing ? undefined : options.saved);
  const bySkill = new Map<Skill, SkillInspection>();
  const stamps = new Map<Skill, string>();
  const pending: Skill[] = [];
  for (const skill of skills) {
    const stamp = skillStamp(skill);
    stamps.set(skill, stamp);
    const kept = known.get(skill.id);
    if (kept !== undefined && kept.stamp === stamp) bySkill.set(skill, kept.found);
    else pending.push(skill);
  }
  const budget = new ByteBudget(INSPECTION_BUDGET_BYTES);
  let next = 0;
  const worker = async () => {
    for (let skill = pending[next++]; skill !== undefined; skill = pending[next++]) {
      const frontmatter = options.frontmatters?.get(skill);
      bySkill.set(skill, await inspectSkill(skill, budget, audit, { frontmatter, modes: auditing }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_SKILLS, pending.length) }, worker));
  if (auditing) {
    for (const pack of packs) {
      for (const file of pack.files.values()) {
        await auditPackFile({ path: `${pack.name}/${file.path}`, pack: pack.name }, file, budget, audit);
      }
    }
  }
  // In the catalog's order, whatever order the reads finished in.
  const ordered = new Map(skills.map((skill) => [skill, bySkill.get(skill) ?? notInspected()]));
  return {
    inspection: new Inspection(ordered, stamps),
    inspected: pending.length,
    peakBytes: budget.peak,
    reused: skills.length - pending.length,
    savedProblem: problem,
    savedRefused: refused,
    ...(auditing ? { audit: audit.result(skills.length, catalog.sources) } : {}),
  };
}

/** `catalog` less the skills a high finding makes unsafe: what the server serves unless told otherwise. */
export function withoutUnsafe(catalog: Catalog, inspection: Inspection): Catalog {
  const unsafe = new Set(inspection.unsafe().map(({ skill }) => skill));
  return unsafe.size === 0 ? catalog : { ...catalog, everything: catalog.everything.without(unsafe) };
}

function notInspected(): SkillInspection {
  return { entry: undefined, leftOut: "not inspected", unsafe: [], unsafeCount: 0 };
}

interface SavedSkill {
  readonly stamp: string;
  readonly found: SkillInspection;
}

interface SavedSkills {
  readonly known: Map<string, SavedSkill>;
  /** Why none is known: the saved inspection is unreadable, or of another format. */
  readonly problem?: string;
  /** Why some entries were refused: how many, and what is wrong with the first. */
  readonly refused?: string;
}

/**
 * The skills of a saved inspection by id; an unreadable one holds none, and says why. An entry of the
 * wrong shape is refused, and said, rather than trusted: its skill is inspected anew, where an entry or
 * findings taken as they were would be served as they are.
 */
function readSaved(saved: Uint8Array | undefined): SavedSkills {
  const known = new Map<string, SavedSkill>();
  if (saved === undefined) return { known };
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(saved).toString("utf8"));
  } catch {
    return { known, problem: "the saved inspection is not JSON" };
  }
  const { format, skills } = (data ?? {}) as { format?: unknown; skills?: unknown };
  if (format !== INSPECTION_FORMAT_VERSION) {
    return {
      known,
      problem: `the saved inspection has format ${String(format)}, not ${INSPECTION_FORMAT_VERSION}`,
    };
  }
  if (!Array.isArray(skills)) return { known, problem: "the saved inspection lists no skills" };
  let refused = 0;
  let first: string | undefined;
  for (const [index, item] of skills.entries()) {
    const read = savedSkillOf(item);
    if (typeof read === "string") {
      refused++;
      first ??= `the entry at index ${index} ${read}`;
    } else {
      known.set(read.id, read);
    }
  }
  if (first === undefined) return { known };
  const entries = refused === 1 ? "1 entry" : `${refused} entries`;
  return { known, refused: `${entries} of the saved inspection refused, as of the wrong shape: ${first}` };
}

/**
 * A skill as {@link Inspection.toBytes} saves it (id, stamp, entry, why it is left out, its first high
 * findings and how many it holds), or what is wrong with it. Checked by hand rather than by the SDK's SkillSchema (zod), which took some 40 µs
 * an entry: 0.4 s more for a start of 10,000 skills from a saved index.
 */
function savedSkillOf(item: unknown): (SavedSkill & { readonly id: string }) | string {
  if (!Array.isArray(item) || item.length !== 6) return "is not a list of six";
  const [id, stamp, entry, leftOut, unsafe, unsafeCount]: unknown[] = item;
  if (typeof id !== "string" || typeof stamp !== "string") return "has no id and stamp as text";
  if (entry !== null && !isSkillEntry(entry)) return `(${id}) holds no entry of the Skills extension`;
  if (leftOut !== null && typeof leftOut !== "string") return `(${id}) says why it is left out in no text`;
  if (!Array.isArray(unsafe) || !unsafe.every(isFinding)) return `(${id}) holds findings of the wrong shape`;
  // The count the start's warning gives (a skill inspected now says how many it holds, not the ten kept),
  // of which the findings kept are the first.
  if (
    typeof unsafeCount !== "number" ||
    !Number.isSafeInteger(unsafeCount) ||
    unsafe.length !== Math.min(unsafeCount, KEPT_FINDINGS)
  ) {
    return `(${id}) counts its high findings otherwise than it keeps them`;
  }
  const found: SkillInspection =
    entry !== null
      ? { entry, leftOut: undefined, unsafe, unsafeCount }
      : { entry: undefined, leftOut: leftOut ?? "not inspected", unsafe, unsafeCount };
  return { id, stamp, found };
}

/** What the Skills extension's SkillSchema asks of an entry (its objects may hold more). */
function isSkillEntry(value: unknown): value is SkillEntry {
  if (!isJsonObject(value)) return false;
  const { uri, frontmatter, resources, _meta } = value;
  return (
    typeof uri === "string" &&
    isJsonObject(frontmatter) &&
    typeof frontmatter.name === "string" &&
    typeof frontmatter.description === "string" &&
    (resources === "dynamic" || (Array.isArray(resources) && resources.every(isResourceEntry))) &&
    (_meta === undefined || isJsonObject(_meta))
  );
}

function isResourceEntry(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    typeof value.uri === "string" &&
    typeof value.digest === "string" &&
    typeof value.size === "number"
  );
}

function isFinding(value: unknown): value is Finding {
  if (!isJsonObject(value)) return false;
  const { path, line, rule, severity, detail } = value;
  return (
    typeof path === "string" &&
    typeof line === "number" &&
    Number.isSafeInteger(line) &&
    line >= 0 &&
    typeof rule === "string" &&
    Object.hasOwn(RULES, rule) &&
    SEVERITIES.some((known) => known === severity) &&
    typeof detail === "string"
  );
}
