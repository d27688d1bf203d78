import {
  type GetPromptResult,
  type ListPromptsResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { type FileContent, SKILL_DOCUMENT, type Skill } from "../catalog/index.js";
import { compareText, namedInProse, quoted } from "../shared/index.js";
import type { ToolContext } from "./context.js";
import {
  decodeCursor,
  encodeCursor,
  firstAfter,
  invalidCursor,
  type Listing,
  listingOf,
  PAGE_SIZE,
} from "./cursor.js";
import { formatFileContent } from "./format.js";
import { closeNamesHint, findSkillAsWritten } from "./references.js";

/**
 * Every skill in scope as a prompt (but those whose frontmatter says `user-invocable: false`), for clients
 * that offer prompts as slash commands: named as read_skill
 * takes it, described by its description, and its SKILL.md as the user message. A person picks a prompt;
 * no model reads the list, so prompts cost no model tokens.
 */
export function listPrompts(context: ToolContext, cursor: string | undefined): ListPromptsResult {
  const skills = context.prompted;
  const listing = listingOf("prompts/list", context.catalog.everything, context.scope);
  const start = cursor === undefined ? 0 : pageStart(listing, cursor, skills);
  const page = skills.slice(start, start + PAGE_SIZE);
  const prompts = page.map((skill) => ({
    name: context.scope.refOf(skill),
    description: skill.description,
  }));
  const last = page.at(-1);
  return start + page.length < skills.length && last !== undefined
    ? { prompts, nextCursor: encodeCursor(listing, last.id) }
    : { prompts };
}

export async function getPrompt(
  context: ToolContext,
  name: string,
  call: ServerContext,
): Promise<GetPromptResult> {
  const skill = findPromptSkill(context, name);
  let content: FileContent;
  try {
    content = await context.catalog.files.read(skill.document);
  } catch (error) {
    // A file that vanished or changed: the operator hears of it, the client gets no internals.
    context.onInternalError(error, "prompts/get", call);
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Prompt ${quoted(name)} could not be read inside the server; the error was logged. Try again or pick another prompt.`,
    );
  }
  const text = formatFileContent(SKILL_DOCUMENT, content);
  return {
    description: skill.description,
    messages: [{ role: "user", content: { type: "text", text } }],
  };
}

function findPromptSkill(context: ToolContext, name: string): Skill {
  const lookup = findSkillAsWritten(context.scope, name);
  if (lookup.kind === "found" && lookup.skill.userInvocable) return lookup.skill;
  const message =
    lookup.kind === "ambiguous"
      ? `Several packs have a prompt ${quoted(name)}; use one of: ${lookup.candidates.map(namedInProse).join(", ")}.`
      : `No prompt ${quoted(name)}.${promptHint(context, name)} prompts/list names the prompts, one per skill.`;
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/**
 * The prompts named close to `name`: of the caller's whole scope, as prompts are (a skill hidden from the
 * model is one), but those that are no prompt.
 */
function promptHint(context: ToolContext, name: string): string {
  return closeNamesHint(context, name, context.scope, (skill) => skill.userInvocable);
}

/**
 * Where the page of `cursor` starts: after the skill the cursor names (its `pack/name`), in the order of
 * the scope (name, then pack). Not an index: replicas of a rolling update serve catalogs one skill apart,
 * and a client's pages go to either, so an index skipped or repeated a prompt of each page.
 */
function pageStart(listing: Listing, cursor: string, skills: readonly Skill[]): number {
  const position = decodeCursor(listing, cursor);
  const slash = position.indexOf("/");
  if (slash < 0) throw invalidCursor(listing);
  const pack = position.slice(0, slash);
  const name = position.slice(slash + 1);
  return firstAfter(skills, (skill) => (compareText(skill.name, name) || compareText(skill.pack, pack)) <= 0);
}
