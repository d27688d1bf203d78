import type { Skill } from "../catalog/index.js";

/** The parts of a skill that search looks at, strongest first. */
export interface SkillFields {
  readonly name: string;
  readonly description: string;
  /** The pack and group names: where the skill sits says what it is about. */
  readonly place: string;
  /** Markdown headings of SKILL.md. */
  readonly headings: string;
  /** The rest of SKILL.md after the frontmatter. */
  readonly body: string;
}

export const FIELD_NAMES = ["name", "description", "place", "headings", "body"] as const;
export type FieldName = (typeof FIELD_NAMES)[number];

const FRONTMATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;
const HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** Splits a skill, given the text of its SKILL.md, into the fields search weighs. */
export function skillFields(skill: Skill, document: string): SkillFields {
  const headings: string[] = [];
  const body: string[] = [];
  let inFence = false;
  for (const line of document.replace(FRONTMATTER, "").split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (heading) headings.push(heading[1] ?? "");
    else body.push(line);
  }
  return {
    name: skill.name,
    description: skill.description,
    place: [skill.pack, skill.group ?? ""].join(" "),
    headings: headings.join("\n"),
    body: body.join("\n"),
  };
}
