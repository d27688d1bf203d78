import type { Pack, Skill } from "../catalog/index.js";
import { bytes } from "./room.js";

/** Between a pack's skills by name and the terms its cut entries left out. */
export const ALSO = "; also ";

/**
 * A pack's skills by name within `room` bytes, each group's in brackets after the group's name; when
 * those do not fit, the groups' names, then as many skill names as fit.
 */
export function skillsByName(pack: Pack, room: number): string {
  if (pack.groups.length === 0) return spread(pack.skills, room).join(", ");
  const namesIn = (group: string | undefined) =>
    pack.skills.filter((skill) => skill.group === group).map((skill) => skill.name);
  const grouped = [
    ...pack.groups.map((group) => `${group.name} (${namesIn(group.name).join(", ")})`),
    ...namesIn(undefined),
  ].join(", ");
  if (bytes(grouped) <= room) return grouped;
  const groups = `${pack.groups.map((group) => group.name).join(", ")}; `;
  return `${groups}${spread(pack.skills, room - bytes(groups)).join(", ")}`;
}

/** As many skill names as fit `room` bytes, taken evenly from all of them rather than the first. */
export function spread(skills: readonly Skill[], room: number): string[] {
  let named = namesOfSkills.get(skills);
  if (named === undefined) {
    const names = skills.map((skill) => skill.name);
    named = { names, total: bytes(names.join(", ")) };
    namesOfSkills.set(skills, named);
  }
  const { names, total } = named;
  if (total <= room) return [...names];
  const count = Math.max(1, Math.floor((names.length * room) / total) - 1);
  const step = names.length / count;
  return Array.from({ length: count }, (_, index) => names[Math.floor(index * step)] ?? "");
}

/** The names of a pack's skills and their bytes, once per pack: scopes that hold a pack whole share it. */
const namesOfSkills = new WeakMap<
  readonly Skill[],
  { readonly names: readonly string[]; readonly total: number }
>();
