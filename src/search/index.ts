import type { Scope, Skill } from "../catalog/index.js";

/** Finds skills for a request, and names close to a mistyped one. Built once at startup; pure. */
export interface SearchIndex {
  /** Skills in `scope` matching `query`, best first. */
  search(query: string, scope: Scope): Skill[];
  /** Up to `limit` skills in `scope` whose names are closest to `name`. */
  suggest(name: string, scope: Scope, limit?: number): Skill[];
}

/** Case and hyphens do not matter: `Code-Nodes` finds `n8n-code-nodes`. */
function fold(text: string): string {
  return text.toLowerCase().replace(/-/g, "");
}

export function buildIndex(skills: readonly Skill[]): SearchIndex {
  const haystacks = new Map(skills.map((skill) => [skill, fold(`${skill.name} ${skill.description}`)]));
  return {
    search(query, scope) {
      const words = query.split(/\s+/).map(fold).filter(Boolean);
      if (words.length === 0) return [...scope.skills];
      return scope.skills.filter((skill) => {
        const haystack = haystacks.get(skill) ?? "";
        return words.every((word) => haystack.includes(word));
      });
    },
    suggest(name, scope, limit = 3) {
      const wanted = fold(name.slice(name.indexOf("/") + 1));
      return scope.skills
        .map((skill) => ({ skill, distance: nameDistance(wanted, fold(skill.name)) }))
        .filter(({ distance }) => distance <= Math.max(2, Math.floor(wanted.length / 2)))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, limit)
        .map(({ skill }) => skill);
    },
  };
}

/** Edit distance, except that a name containing the wanted text (or contained in it) counts as close. */
function nameDistance(wanted: string, name: string): number {
  if (wanted.length > 0 && (name.includes(wanted) || wanted.includes(name))) return 1;
  return levenshtein(wanted, name);
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
