import { type Client, ProtocolError } from "@modelcontextprotocol/client";
import type { SkillListing } from "@modelcontextprotocol/client/ext/skills";
import { MANIFEST_NAME } from "../catalog/index.js";

/** The most packs whose skills are asked for by name: past them, the skills left out are counted. */
const NAMED_PACKS = 20;

/** A pack line of list_packs: `design: 12 skills…` (a group's line is indented). */
const PACK_LINE = /^([^\s:]+): (\d+) skills?\b/;

/**
 * The skills a skills-mcp server serves through its tools but leaves out of the Skills extension (a file
 * over 8 MiB, over 16 MiB or 512 files, an entry over 256 KiB, a name or frontmatter the extension refuses),
 * which sync cannot
 * install: said as a warning, with the `pack/name` of each it names, or undefined when there are none, or
 * the server has no such tools. It costs
 * one request (list_packs) and one more (list_skills) for each pack whose tools count more skills than
 * the extension lists, for NAMED_PACKS packs at most. The tools count and name only the skills shown to
 * models: a skill with `disable-model-invocation: true` goes unsaid, and one the extension lists hides
 * one left out in its pack. One past a listing cut short, or past NAMED_PACKS, is counted, not named.
 */
export async function leftOutOfExtension(
  client: Client,
  listing: SkillListing,
): Promise<{ readonly note: string; readonly named: ReadonlySet<string> } | undefined> {
  const packs = await toolText(client, "list_packs", {});
  if (packs === undefined) return undefined;
  const served = new Map<string, Set<string>>();
  // An entry the client refused is listed all the same: sync reports it as skipped.
  for (const { uri } of [...listing.skills, ...listing.invalid]) {
    if (uri === undefined) continue;
    const pack = packOfUri(uri);
    const name = uri.split("/").at(-2);
    if (pack === undefined || name === undefined) continue;
    served.set(pack, (served.get(pack) ?? new Set()).add(name));
  }
  const missing: string[] = [];
  let unnamed = 0;
  let asked = 0;
  for (const line of packs.split("\n")) {
    const match = PACK_LINE.exec(line);
    if (match === null) continue;
    const [, pack = "", count = "0"] = match;
    const names = served.get(pack) ?? new Set<string>();
    const short = Number(count) - names.size;
    if (short <= 0) continue;
    const answer = asked++ < NAMED_PACKS ? await toolText(client, "list_skills", { pack }) : undefined;
    const listed = namesListed(answer ?? "", pack);
    const named = listed.filter((name) => !names.has(name)).slice(0, short);
    missing.push(...named.map((name) => `${pack}/${name}`));
    unnamed += short - named.length;
  }
  if (missing.length === 0 && unnamed === 0) return undefined;
  const total = missing.length + unnamed;
  const which = [...missing, ...(unnamed > 0 ? [`${unnamed} more`] : [])].join(", ");
  const [skills, are, them] = total === 1 ? ["1 skill", "is", "it"] : [`${total} skills`, "are", "them"];
  const note =
    `${skills} the server's tools serve ${are} left out of its Skills extension, so not synced: ${which} ` +
    "(a file over 8 MiB, over 16 MiB or 512 files, an entry over 256 KiB, or a name or frontmatter the " +
    `extension refuses: the server's startup log says why); read ${them} with its tools`;
  return { note, named: new Set(missing) };
}

/**
 * The pack of a skill's `skill://` URI: its first segment, decoded (a pack named outside ASCII is
 * percent-encoded there, and named as it is by the tools), as the server's URIs mirror `pack/name`.
 */
export function packOfUri(uri: string): string | undefined {
  const pack = uri.replace(/^skill:\/\//i, "").split("/", 1)[0];
  if (pack === undefined) return undefined;
  try {
    return decodeURIComponent(pack);
  } catch {
    return pack;
  }
}

/**
 * Whether the server's tools serve the skill `pack/name` (read_skill answers for it): one the extension
 * leaves out that the warning only counts. Its list of files is asked for, not its whole SKILL.md. A
 * request that failed tells neither: its error, then, which may be the environment's proxy's.
 */
export async function servedByTools(
  client: Client,
  ref: string,
): Promise<boolean | { readonly failed: unknown }> {
  // A server that declares no tools serves nothing by them (and may answer the call with an HTTP error).
  if (client.getServerCapabilities()?.tools === undefined) return false;
  try {
    const result = await client.callTool({
      name: "read_skill",
      arguments: { skill: ref, file: MANIFEST_NAME },
    });
    const [first] = result.content;
    return result.isError !== true && first?.type === "text";
  } catch (error) {
    // An error the server sends (no such tool) is an answer.
    return error instanceof ProtocolError ? false : { failed: error };
  }
}

/** The text a tool answers, or undefined when it has no such tool or fails. */
async function toolText(
  client: Client,
  name: string,
  args: Record<string, string>,
): Promise<string | undefined> {
  try {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError === true) return undefined;
    const [first] = result.content;
    return first?.type === "text" ? first.text : undefined;
  } catch {
    return undefined;
  }
}

/** The names of a pack's skills that a list_skills answer shows, one a line (`name: description`). */
function namesListed(text: string, pack: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("Next:")) break;
    const end = line.indexOf(": ");
    if (line.startsWith("…") || end <= 0) continue;
    // `pack/name` where another pack in scope has a skill of the name.
    const ref = line.slice(0, end);
    names.push(ref.startsWith(`${pack}/`) ? ref.slice(pack.length + 1) : ref);
  }
  return names;
}
