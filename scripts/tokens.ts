/**
 * Prints what the tool surface costs a model, in o200k tokens: `tools/list`, the initialize
 * instructions, `list_packs`, and `list_skills` for each pack of a catalog folder.
 *
 *   npm run tokens -- [catalog folder]     (default: the bundled examples)
 */
import { loadCatalog } from "../src/catalog/index.js";
import { EXAMPLES_DIR } from "../src/config/index.js";
import { tolerateClosedOutput } from "./closed-output.js";
import { connectInMemory, mcpDepsOf } from "./in-memory-client.js";
import { measureTokenCosts } from "./token-costs.js";

async function main(dir: string): Promise<void> {
  const { catalog } = loadCatalog(dir);
  const client = await connectInMemory(await mcpDepsOf(catalog));
  const { packs } = catalog.everything;
  const costs = await measureTokenCosts(
    client,
    packs.map((pack) => pack.name),
  );
  await client.close();

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
  console.log(`Tokens (o200k) for ${dir}: ${catalog.everything.skills.length} skills`);
  for (const [label, tokens] of rows) console.log(`${label.padEnd(width)}  ${String(tokens).padStart(7)}`);
}

tolerateClosedOutput();
main(process.argv[2] ?? EXAMPLES_DIR).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
