/** The work of `npm run tokens` (see tokens.ts), loaded once its command line is read. */
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/client";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { Scope } from "../src/catalog/index.js";
import { steeringFor } from "../src/mcp/index.js";
import { errorMessage, quoted, unreadableFile } from "../src/shared/index.js";
import { type CueCase, cueCoverage } from "./cue-coverage.js";
import { connectInMemory, mcpDepsOf } from "./in-memory-client.js";
import { measureTokenCosts } from "./token-costs.js";

/** The targets of issue 23, on ../shared/bench: see docs/agents.md, "Getting agents to use the skills". */
const MAX_UPFRONT_TOKENS = 1500;
const MIN_PACK_COVERAGE = 0.8;
const MIN_CATALOG_COVERAGE = 0.6;

interface QuerySet {
  readonly file: string;
  /** Each request with the pack of its target, which must be in the catalog. */
  readonly cases: readonly (CueCase & { readonly pack: string })[];
}

export async function main(options: Options): Promise<void> {
  const { dir, preview, queryFiles } = options;
  const deps = await mcpDepsOf(dir, { env: { CATALOG_PREVIEW: preview } });
  const { catalog } = deps;
  const client = await connectInMemory(deps);
  const { packs } = catalog.everything;
  // Read before anything is printed: a query set that cannot be read fails the run without half a report.
  const sets = queryFiles.map((file) => readQuerySet(file, catalog.everything));
  await printSurfaceCosts(client, dir, catalog.everything);
  await client.close();

  const scopes: [string, Scope][] = [
    ["(whole catalog)", catalog.everything],
    ...packs.map((pack): [string, Scope] => [pack.name, catalog.everything.narrow([pack.name])]),
  ];
  console.log(
    `\nUp front, per scope: the instructions and the whole tools/list (CATALOG_PREVIEW=${preview}), and the --steering line`,
  );
  const header = [
    "scope",
    "bytes",
    "tokens",
    "steering tokens",
    ...sets.flatMap((set) => [`coverage ${set.file}`]),
  ];
  console.log(header.join("\t"));
  const packCoverage = sets.map(() => [] as number[]);
  const byHost: string[] = [];
  for (const [name, scope] of scopes) {
    const shown = await shownOf(await connectInMemory(deps, scope));
    const upfront = `${shown.instructions}\n${shown.tools}`;
    const steering = steeringFor(deps, scope);
    const casesOf = (set: QuerySet) =>
      name === "(whole catalog)" ? set.cases : set.cases.filter((item) => item.pack === name);
    byHost.push(
      [
        name,
        ...sets.map((set) => {
          const cases = casesOf(set);
          if (cases.length === 0) return "-";
          const views = [shown.instructions, shown.tools, upfront, steering].map((text) =>
            cueCoverage(text, cases),
          );
          return views.map((coverage) => coverage.toFixed(2)).join(" / ");
        }),
      ].join("\t"),
    );
    const coverages = sets.map((set, index) => {
      const cases = casesOf(set);
      const coverage = cueCoverage(upfront, cases);
      if (name !== "(whole catalog)" && cases.length > 0) packCoverage[index]?.push(coverage);
      return cases.length === 0 ? "-" : `${coverage.toFixed(2)} (${cases.length})`;
    });
    const tokens = countTokens(upfront);
    const flag = tokens > MAX_UPFRONT_TOKENS ? " over" : "";
    console.log(
      [name, Buffer.byteLength(upfront), `${tokens}${flag}`, countTokens(steering), ...coverages].join("\t"),
    );
  }
  printCoverageSummary(sets, byHost, packCoverage);
}

export interface Options {
  readonly dir: string;
  readonly preview: "on" | "off";
  readonly queryFiles: readonly string[];
}

/** The first table: what each part of the tool surface costs, `list_skills` pack by pack. */
async function printSurfaceCosts(client: Client, dir: string, everything: Scope): Promise<void> {
  const { packs } = everything;
  const costs = await measureTokenCosts(
    client,
    packs.map((pack) => pack.name),
  );
  const rows: [string, number][] = [
    [`tools/list (${costs.tools} tools)`, costs.toolsList],
    ["initialize instructions", costs.instructions],
    ["list_packs", costs.listPacks],
    ...costs.listSkillsByPack.map(({ pack, tokens }, index): [string, number] => [
      `list_skills(pack="${pack}") (${packs[index]?.skills.length ?? 0} skills)`,
      tokens,
    ]),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`Tokens (o200k) for ${dir}: ${everything.skills.length} skills`);
  for (const [label, tokens] of rows) console.log(`${label.padEnd(width)}  ${String(tokens).padStart(7)}`);
}

/**
 * The coverage of each query set by what a host shows (`byHost`, a row a scope), and its mean over the
 * packs (`packCoverage`, by set) beside the targets.
 */
function printCoverageSummary(
  sets: readonly QuerySet[],
  byHost: readonly string[],
  packCoverage: readonly (readonly number[])[],
): void {
  if (sets.length > 0) {
    // Hosts differ in what they show (docs/agents.md, "Getting agents to use the skills"): each view must do alone.
    // The steering line is what a host's CLAUDE.md, AGENTS.md or system prompt adds on every turn.
    console.log(
      "\nCue coverage by what a host shows: instructions only / tools/list only / both / steering line",
    );
    console.log(["scope", ...sets.map((set) => `coverage ${set.file}`)].join("\t"));
    for (const row of byHost) console.log(row);
  }
  sets.forEach((set, index) => {
    const values = packCoverage[index] ?? [];
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    console.log(
      `${set.file}: mean over packs ${mean.toFixed(2)} (target ≥ ${MIN_PACK_COVERAGE}), whole catalog ` +
        `target ≥ ${MIN_CATALOG_COVERAGE}; at most ${MAX_UPFRONT_TOKENS} tokens up front in any scope`,
    );
  });
}

/** What a model may see before its first call: the server's instructions and every tool's listing. */
async function shownOf(client: Client): Promise<{ readonly instructions: string; readonly tools: string }> {
  const { tools } = await client.listTools();
  const shown = { instructions: client.getInstructions() ?? "", tools: JSON.stringify(tools) };
  await client.close();
  return shown;
}

/** Requests as `../shared/bench/queries.json` holds them: `query` and `expected: ["pack/name"]`. */
function readQuerySet(file: string, everything: Scope): QuerySet {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(unreadableFile(`--queries ${file}`, error));
  }
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    throw new Error(`--queries ${file}: ${errorMessage(error)}`);
  }
  if (!Array.isArray(rows)) {
    throw new Error(`--queries ${file} is not a JSON list of requests; ${QUERY_SET_FORM}`);
  }
  const cases = rows.map((row: unknown, index) => {
    const { query, expected } = requestOf(row, `--queries ${file}: request ${index + 1}`);
    const lookup = everything.findSkill(expected);
    if (lookup.kind !== "found") {
      throw new Error(`${file}: ${quoted(expected)} is not a skill of this catalog`);
    }
    const { skill } = lookup;
    const target = [skill.name, skill.description, skill.pack, skill.group ?? ""].join(" ");
    return { query, target, pack: skill.pack };
  });
  return { file, cases };
}

const QUERY_SET_FORM = 'a query set is [{"query": "...", "expected": ["pack/name"]}]';

/** A request's words and the first skill it expects, or an error naming the request and the form. */
function requestOf(row: unknown, where: string): { readonly query: string; readonly expected: string } {
  if (typeof row === "object" && row !== null && "query" in row && "expected" in row) {
    const { query, expected } = row;
    const [first] = Array.isArray(expected) ? expected : [];
    if (typeof query === "string" && typeof first === "string") return { query, expected: first };
  }
  throw new Error(`${where} is not {"query": "...", "expected": ["pack/name", ...]}; ${QUERY_SET_FORM}`);
}
