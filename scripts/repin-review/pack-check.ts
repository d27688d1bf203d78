/**
 * The load check of `--update`: whether the server would serve a pack fetched at a moved source's new
 * commit, judged as check-skills judges a whole skills folder (src/startup: prepareAudit, then refusal),
 * but for that pack alone, so that a failure names its source. The fetcher loads it only on `--update`,
 * since it needs src/.
 */
import { pino } from "pino";
import { CatalogError } from "../../src/catalog/index.js";
import { ConfigError } from "../../src/config/index.js";
import { loadStartupConfig, prepareAudit, refusal } from "../../src/startup/index.js";
import { LoadCheckError } from "../fetch-skills/review-contract.js";
import { digestOf } from "./served.js";

/**
 * Why the server would refuse to start on the pack `pack` of the skills folder `dir` were it the only pack
 * there (no valid skill in it, or a high finding of the audit in every one), or undefined when it would
 * serve it. UNSAFE_SKILLS comes from `env`, as check-skills takes it; SKILL_PACKS is the pack.
 */
export async function packRefusal(
  dir: string,
  pack: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  let config: ReturnType<typeof loadStartupConfig>;
  try {
    config = loadStartupConfig({ SKILLS_DIR: dir, SKILL_PACKS: pack, UNSAFE_SKILLS: env.UNSAFE_SKILLS });
  } catch (error) {
    // A wrong UNSAFE_SKILLS fails every check alike: no source is to blame.
    if (error instanceof ConfigError) throw new LoadCheckError(`the load check cannot run: ${error.message}`);
    throw error;
  }
  let prepared: Awaited<ReturnType<typeof prepareAudit>>;
  try {
    // Named by its digest, a file's content is audited once however many copies of it the fetcher made
    // (one for each symlink to it): the audit of every copy of a file of 252 findings, 4,000 links to it,
    // held a million findings and took the fetcher past 400 MiB. Copies of one content have one audit.
    prepared = await prepareAudit(config, pino({ level: "silent" }), (_, bytes) => {
      const digest = digestOf(bytes);
      return `${digest.size} ${digest.sha256}`;
    });
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    // The folder is the fetch's work folder, gone after the run: the pack's own paths follow.
    return `the server would not serve it: ${error.message.replaceAll(` in ${dir}`, "")}`;
  }
  if (refusal(prepared.catalog) === undefined) return undefined;
  const [first] = prepared.inspection.unsafe();
  const where = first?.findings[0];
  const example = where === undefined ? "" : ` (${where.path}:${where.line}: ${where.rule})`;
  return `the server would not serve it: a high finding of the audit makes every skill unsafe${example}; UNSAFE_SKILLS=serve would serve them`;
}
