import type { Logger } from "pino";
import type { FolderAudit, ReadHook } from "../audit/index.js";
import {
  type Catalog,
  CatalogError,
  type KnownDocuments,
  type LoadedCatalog,
  loadCatalog,
  readSkillDocument,
  type Skill,
} from "../catalog/index.js";
import type { CatalogConfig, Config } from "../config/index.js";
import { type Inspection, inspectCatalog, withoutUnsafe } from "../inspection/index.js";
import { listedSkills } from "../mcp/index.js";
import { TermFrequencies } from "../preview/index.js";
import { buildIndex, type SearchIndex, TERMS_A_DOCUMENT } from "../search/index.js";
import { SavedStart } from "./saved.js";

/** How many skills a high finding of the audit makes unsafe: left out, or served under UNSAFE_SKILLS=serve. */
interface UnsafeSkills {
  readonly leftOut: number;
  readonly served: number;
}

/** A skills folder loaded, inspected and under the unsafe-skill policy: what serving and checking it start from. */
interface PreparedCatalog {
  /** The catalog as loaded (what SKILL_PACKS selects), with what the load found and read. */
  readonly loaded: LoadedCatalog;
  /** The catalog as served: less the skills a high finding of the audit makes unsafe, unless UNSAFE_SKILLS=serve. */
  readonly catalog: Catalog;
  /** Every loaded skill inspected: its Skills extension entry, and the audit's high findings. */
  readonly inspection: Inspection;
  readonly unsafeSkills: UnsafeSkills;
  /** How long each step took, in ms. */
  readonly ms: { readonly catalog: number; readonly inspection: number };
}

/** A skills folder made ready to serve: its catalog, and the search index of the catalog served. */
export interface Prepared extends PreparedCatalog {
  readonly index: SearchIndex;
  /** Whether the search index came from the saved index or was built now. */
  readonly indexOrigin: "loaded" | "built";
  /**
   * The previews' tally of the listed skills' terms: whole from the saved index, or to be tallied (after
   * listening, or by `--build-index` as it saves it).
   */
  readonly terms: TermFrequencies;
  readonly ms: PreparedCatalog["ms"] & { readonly index: number };
}

/**
 * The one way a skills folder becomes ready to serve: the catalog loaded (SKILL_PACKS), every skill
 * inspected, the unsafe-skill policy applied (UNSAFE_SKILLS), the search index loaded or built, taking from
 * the saved index what still fits. The server (HTTP and stdio), `--build-index`, `--steering`, the
 * in-memory client and the tests all start here, and the scripts that check a folder from its first half
 * (prepareAudit), so that each gives what the server serves. Throws a CatalogError when the server must not
 * start. `--build-index` reads nothing saved, and is not refused when nothing is left to serve (an image
 * may be meant to run with UNSAFE_SKILLS=serve).
 */
export async function prepare(config: Config, logger: Logger): Promise<Prepared> {
  const saved = savedStartOf(config, logger);
  const prepared = await prepareCatalog(saved, config, logger, undefined);
  if (!config.buildIndex) {
    const refused = refusal(prepared.catalog);
    if (refused !== undefined) throw new CatalogError(refused);
  }
  const started = performance.now();
  const { index, origin } = startIndex(saved, prepared.catalog.everything.skills, config, logger);
  return {
    ...prepared,
    index,
    indexOrigin: origin,
    terms: startTerms(saved, prepared.catalog, config, logger),
    ms: { ...prepared.ms, index: performance.now() - started },
  };
}

/**
 * For check-skills and audit-skills: the catalog as prepare makes it, with the whole audit of the catalog
 * loaded, made by the inspection's reading of every served file (none is taken from the saved index). A
 * catalog the audit leaves empty is returned, for the caller to report, instead of refused; no search
 * index is loaded or built. `onRead` may name each file's content, so that copies of one file are audited
 * once (see ReadHook).
 */
export async function prepareAudit(
  config: CatalogConfig,
  logger: Logger,
  onRead?: ReadHook,
): Promise<PreparedCatalog & { readonly audit: FolderAudit }> {
  return prepareCatalog(savedStartOf(config, logger), config, logger, { onRead });
}

function savedStartOf(config: CatalogConfig, logger: Logger): SavedStart {
  // The bundled examples never have a saved index (--build-index refuses to write one among them).
  return config.buildIndex || config.skillsDirOrigin === "examples"
    ? SavedStart.NOTHING
    : SavedStart.read(config.savedIndexFile, logger);
}

/** How the audit reads the catalog's files: given, the whole audit is kept (see prepareAudit). */
interface AuditOptions {
  readonly onRead: ReadHook | undefined;
}

async function prepareCatalog(
  saved: SavedStart,
  config: CatalogConfig,
  logger: Logger,
  audit: AuditOptions,
): Promise<PreparedCatalog & { readonly audit: FolderAudit }>;
async function prepareCatalog(
  saved: SavedStart,
  config: CatalogConfig,
  logger: Logger,
  audit: AuditOptions | undefined,
): Promise<PreparedCatalog>;
async function prepareCatalog(
  saved: SavedStart,
  config: CatalogConfig,
  logger: Logger,
  audit: AuditOptions | undefined,
): Promise<PreparedCatalog & { readonly audit?: FolderAudit }> {
  const started = performance.now();
  const loaded = load(config, saved.documents(), logger);
  const catalogDone = performance.now();
  const inspected = await inspect(loaded, saved.inspection(), audit, logger);
  const { catalog, unsafeSkills } = servedCatalog(loaded.catalog, inspected.inspection, config, logger);
  return {
    loaded,
    catalog,
    inspection: inspected.inspection,
    ...(inspected.audit !== undefined ? { audit: inspected.audit } : {}),
    unsafeSkills,
    ms: { catalog: catalogDone - started, inspection: performance.now() - catalogDone },
  };
}

/** Why the server would refuse to serve `served`, if it would: no skill left once the unsafe ones are out. */
export function refusal(served: Catalog): string | undefined {
  if (served.everything.skills.length > 0) return undefined;
  return (
    "No skill left to serve: a high finding of the audit makes every skill unsafe (the warnings above name " +
    "them; npm run audit-skills explains, and UNSAFE_SKILLS=serve serves them all the same)"
  );
}

function load(config: CatalogConfig, known: KnownDocuments, logger: Logger): LoadedCatalog {
  if (config.skillsDirOrigin === "examples") {
    // --steering serves nothing; --build-index is refused without SKILLS_DIR (src/config/load.ts).
    const doing = config.steering ? "the steering line is of" : "serving";
    logger.info(
      { skillsDir: config.skillsDir },
      `no SKILLS_DIR and no ./skills: ${doing} the bundled examples`,
    );
  }
  const started = performance.now();
  const missingFolderHint =
    config.skillsDirReadFrom === undefined
      ? undefined
      : `SKILLS_DIR is a relative path, read from the working folder ${config.skillsDirReadFrom}, which a client that starts the server chooses; give an absolute path`;
  const loaded = loadCatalog(config.skillsDir, { packs: config.skillPacks, known, missingFolderHint });
  const { catalog, issues } = loaded;
  for (const issue of issues) logger.warn(issue, `${issue.path}: ${issue.reason}`);
  logger.info(
    {
      skillsDir: config.skillsDir,
      packs: catalog.everything.packs.map((pack) => pack.name),
      skills: catalog.everything.skills.length,
      skipped: issues.filter((issue) => issue.severity === "skipped").length,
      ms: Math.round(performance.now() - started),
    },
    "catalog loaded",
  );
  return loaded;
}

/**
 * Every skill's files read once (or taken from the saved inspection while they have not changed): the
 * audit's high findings in each, and the Skills extension's entry of each, with its digests.
 */
async function inspect(
  { catalog, frontmatters }: LoadedCatalog,
  saved: Uint8Array | undefined,
  audit: AuditOptions | undefined,
  logger: Logger,
): Promise<{ inspection: Inspection; audit?: FolderAudit }> {
  const started = performance.now();
  const run = await inspectCatalog(catalog, {
    saved,
    frontmatters,
    ...(audit !== undefined ? { audit } : {}),
  });
  if (run.savedProblem !== undefined) {
    logger.warn({ problem: run.savedProblem }, `saved inspection not used: ${run.savedProblem}`);
  }
  if (run.savedRefused !== undefined) {
    logger.warn(
      { problem: run.savedRefused },
      `saved inspection partly used, the skills of refused entries inspected anew: ${run.savedRefused}`,
    );
  }
  logger.info(
    {
      inspected: run.inspected,
      reused: run.reused,
      peakBytes: run.peakBytes,
      ms: Math.round(performance.now() - started),
    },
    "skills inspected",
  );
  return { inspection: run.inspection, ...(run.audit !== undefined ? { audit: run.audit } : {}) };
}

/**
 * The unsafe-skill policy: the catalog as it is served, less the skills a high finding of the audit makes
 * unsafe, unless UNSAFE_SKILLS=serve, with one warning for each (its file, line and rule). A skill the
 * extension cannot carry is said once too; the tools still serve it.
 */
function servedCatalog(
  loaded: Catalog,
  inspection: Inspection,
  config: CatalogConfig,
  logger: Logger,
): { catalog: Catalog; unsafeSkills: UnsafeSkills } {
  const unsafe = inspection.unsafe();
  for (const { skill, findings, count } of unsafe) {
    const [first] = findings;
    const where = first ? `${first.path}:${first.line}: ${first.rule}` : "";
    const what = config.serveUnsafeSkills
      ? "served although unsafe (UNSAFE_SKILLS=serve)"
      : "left out as unsafe";
    logger.warn({ skill: skill.id, finding: first, findings: count }, `${skill.id}: ${what}: ${where}`);
  }
  const catalog = config.serveUnsafeSkills ? loaded : withoutUnsafe(loaded, inspection);
  for (const skill of catalog.everything.skills) {
    const { leftOut } = inspection.of(skill);
    if (leftOut === undefined) continue;
    logger.warn(
      { skill: skill.id, reason: leftOut },
      `${skill.id}: left out of the Skills extension (the tools serve it): ${leftOut}`,
    );
  }
  const unsafeSkills = config.serveUnsafeSkills
    ? { leftOut: 0, served: unsafe.length }
    : { leftOut: unsafe.length, served: 0 };
  return { catalog, unsafeSkills };
}

/**
 * The saved search index when it fits the catalog (built from exactly these skills, SKILL.md sizes and
 * times included, by this format and ranking), else one built now. Says in the log which, and why, and
 * names each skill whose SKILL.md was cut short for the index, on every start: said only when the index
 * was built, a server started from a saved one never said it.
 */
function startIndex(
  saved: SavedStart,
  skills: readonly Skill[],
  config: Config,
  logger: Logger,
): { index: SearchIndex; origin: "loaded" | "built" } {
  const started = performance.now();
  const file = config.savedIndexFile;
  const loaded = saved.search(skills);
  if (loaded?.ok) {
    logger.info(
      { file, bytes: saved.bytes, skills: skills.length, ms: Math.round(performance.now() - started) },
      "search index loaded from the saved index",
    );
    warnCut(loaded.index, logger);
    return { index: loaded.index, origin: "loaded" };
  }
  if (loaded !== undefined) {
    // An outdated index is what editing a skill or narrowing SKILL_PACKS leaves behind; a damaged one is not.
    logger[loaded.outdated ? "info" : "warn"](
      { file, problem: loaded.problem },
      `saved search index not used, building the index: ${loaded.problem}`,
    );
  }
  const index = buildIndex(skills, readSkillDocument);
  warnCut(index, logger);
  logger.info({ skills: skills.length, ms: Math.round(performance.now() - started) }, "search index built");
  return { index, origin: "built" };
}

/** One warning for each skill whose SKILL.md the index holds only the first words of. */
function warnCut(index: SearchIndex, logger: Logger): void {
  for (const skill of index.cutSkills()) {
    logger.warn(
      { skill: skill.id, limit: TERMS_A_DOCUMENT },
      `${skill.id}: SKILL.md holds more than ${TERMS_A_DOCUMENT.toLocaleString("en-US")} distinct words: ` +
        "search indexes its first ones only (its name and description whole)",
    );
  }
}

/**
 * The previews' saved tally when it fits the catalog, else one to be tallied. An older saved index has
 * none, which is no news; a tally that does not fit is said in the log, as the search index's is.
 */
function startTerms(saved: SavedStart, catalog: Catalog, config: Config, logger: Logger): TermFrequencies {
  const file = config.savedIndexFile;
  const listed = listedSkills(catalog);
  const notUsed = (problem: string, outdated: boolean) =>
    logger[outdated ? "info" : "warn"](
      { file, problem },
      `saved terms of the previews not used, tallying them once serving: ${problem}`,
    );
  const loaded = saved.terms(catalog.everything.skills, listed, (problem) => notUsed(problem, false));
  if (loaded?.ok) {
    // "Once serving": over HTTP just after listening, over stdio (which listens on nothing) by the first preview.
    logger.info({ file }, "previews' terms found in the saved index: read once serving, not tallied");
    return loaded.terms;
  }
  if (loaded !== undefined) notUsed(loaded.problem, loaded.outdated);
  return new TermFrequencies(listed);
}
