/**
 * The relative file paths a skill's text cites (`shared/tokens.md`, `../shared/checklist.md`), found by
 * a scanner that moves forward only: one pass over the text, whatever it holds.
 */

/** Characters of a cited path: what pack file paths are made of, and the separator. */
function isPathCharacter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2d || // -
    code === 0x2e || // .
    code === 0x5f || // _
    code === 0x2f // /
  );
}

/**
 * Each distinct path `text` cites, in order, at most `limit`: a run of path characters with a folder in
 * it (`a/b.md`), relative (not `/etc/x`, nor the `//host/x` of a URL), whose last name has an
 * extension (`tokens.md`, not `and/or`). A sentence's full stop after it is not part of it.
 */
export function citedPaths(text: string, limit: number): string[] {
  const found = new Set<string>();
  let start = -1;
  for (let index = 0; index <= text.length && found.size < limit; index++) {
    const inside = index < text.length && isPathCharacter(text.charCodeAt(index));
    if (inside) {
      if (start === -1) start = index;
      continue;
    }
    if (start !== -1) {
      const path = asCitation(text.slice(start, index), text.charCodeAt(start - 1));
      if (path !== undefined) found.add(path);
      start = -1;
    }
  }
  return [...found];
}

/** `run` as a cited relative path, or undefined when it is not one. `before` is the code just before it. */
function asCitation(run: string, before: number): string | undefined {
  // A path right after ":" or "~" is part of a URL or a home path, not a file of the skill.
  if (before === 0x3a || before === 0x7e) return undefined;
  let path = run;
  while (path.endsWith(".")) path = path.slice(0, -1);
  if (path.startsWith("./")) path = path.slice(2);
  if (path.startsWith("/") || !path.includes("/")) return undefined;
  const segments = path.split("/");
  if (segments.some((segment) => segment === "" || segment === ".")) return undefined;
  const last = segments.at(-1) ?? "";
  if (last === ".." || last.lastIndexOf(".") <= 0) return undefined;
  // Climbing only at the start, as a relative path from a skill's folder does.
  const firstName = segments.findIndex((segment) => segment !== "..");
  return segments.slice(firstName).includes("..") ? undefined : path;
}
