import type { Logger } from "pino";
import { type Scope, SelectorError } from "../catalog/index.js";
import type { Config } from "../config/index.js";
import { buildMcpDeps, type McpDeps, type ServerInfo } from "../mcp/index.js";
import { PACKAGE_NAME, packageVersion } from "../shared/index.js";
import type { Prepared } from "./prepare.js";

/** What the server calls itself: the package's name and version. */
export function serverInfo(): ServerInfo {
  return { name: PACKAGE_NAME, version: packageVersion() };
}

/**
 * What the servers of a prepared catalog are built from, as the settings ask (PROMPTS, CATALOG_PREVIEW,
 * PACK_DESCRIPTIONS), with their failures and warnings logged. A described pack that is not loaded is a
 * warning: a typo, or a SKILL_PACKS narrower than the descriptions.
 */
export function mcpDepsFor(
  prepared: Pick<Prepared, "catalog" | "index" | "inspection" | "terms">,
  config: Config,
  logger: Logger,
  info: ServerInfo = serverInfo(),
): McpDeps {
  const { catalog, index, inspection, terms } = prepared;
  const loaded = new Set(catalog.everything.packs.map((pack) => pack.name));
  for (const name of config.packDescriptions.keys()) {
    if (!loaded.has(name)) {
      logger.warn(
        { pack: name },
        `PACK_DESCRIPTIONS describes ${name}, which is not a pack loaded here${meantPack(catalog.everything, name)}`,
      );
    }
  }
  return buildMcpDeps({
    info,
    catalog,
    index,
    inspection,
    terms,
    prompts: config.prompts,
    catalogPreview: config.catalogPreview,
    packDescriptions: config.packDescriptions,
    onInternalError: (error, tool, request) => logger.error({ err: error, tool, ...request }, "tool failed"),
    onWarning: (warning) => logger.warn(warning, `Skills extension: ${warning.path}: ${warning.message}`),
    onResourceWarning: ({ skill, reason }) =>
      logger.warn({ skill: skill?.id }, skill ? `${skill.id}: ${reason}` : reason),
  });
}

/**
 * The did-you-mean for a pack name that names no loaded pack, as a selector gets one: the pack in another
 * case, or the packs a slip away.
 */
function meantPack(everything: Scope, name: string): string {
  const anyCase = everything.findPackAnyCase(name);
  if (anyCase !== undefined) return `; did you mean ${anyCase.name}?`;
  try {
    everything.narrow([name]);
    return "";
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    const packs = error.close.filter((close) => everything.findPack(close) !== undefined);
    return packs.length > 0 ? `; did you mean ${packs.join(" or ")}?` : "";
  }
}
