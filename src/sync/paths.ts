/**
 * Where a served file may land on disk. A server names files by URI; sync writes each one below its
 * skill's folder only when every segment of its path is an ordinary file name on every system the
 * clients run on (portableNameProblem, the rule the server's catalog serves names by), so that no name
 * can climb out, reach a device or a `.git`, or mean two files at once, and each shows all it holds.
 */
import { foldedName } from "../catalog/index.js";
import { nameShapeProblem, portableNameProblem } from "../shared/index.js";

/** Deeper paths than this are refused: no real skill needs them, and each level is a folder to make. */
const MAX_DEPTH = 16;

/** Why a relative `/`-separated path cannot be written below a folder, or undefined when it can. */
export function relativePathProblem(path: string): string | undefined {
  return segmentsProblem(path, portableNameProblem);
}

/**
 * Why a relative `/`-separated path is none any sync wrote, or undefined: one that may climb out of the
 * folder, or name a drive, a stream or no file at all (nameShapeProblem). A path an older sync recorded
 * that {@link relativePathProblem} refuses now (`aux.txt`, `git~1/hooks/pre-commit`) passes.
 */
export function pathShapeProblem(path: string): string | undefined {
  return segmentsProblem(path, nameShapeProblem);
}

function segmentsProblem(
  path: string,
  problemOf: (segment: string) => string | undefined,
): string | undefined {
  const segments = path.split("/");
  if (segments.length > MAX_DEPTH) return `deeper than ${MAX_DEPTH} folders`;
  for (const segment of segments) {
    const problem = problemOf(segment);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * The path of `uri` below the folder URI `root` (no trailing slash), decoded and checked: `SKILL.md`,
 * `references/guide.md`. A path that leaves `root`, or whose decoded segments are not plain names, is a
 * problem, said in words.
 */
export function pathBelow(root: string, uri: string): { path: string } | { problem: string } {
  let canonical: string;
  try {
    canonical = new URL(uri).href;
  } catch {
    return { problem: `${uri} is not a URI` };
  }
  if (!canonical.startsWith(`${root}/`) || /[?#]/.test(canonical)) {
    return { problem: `${uri} is not a file below ${root}` };
  }
  const segments: string[] = [];
  for (const raw of canonical.slice(root.length + 1).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { problem: `${uri} holds a broken percent-encoding` };
    }
    segments.push(segment);
  }
  const path = segments.join("/");
  const problem = segments.some((segment) => segment.includes("/"))
    ? "a name holds a slash"
    : relativePathProblem(path);
  return problem === undefined ? { path } : { problem: `${uri}: ${problem}` };
}

/**
 * Two of `paths` that one file system would take for the same file or folder (macOS and Windows ignore
 * case; macOS ignores Unicode normalization), or a file that another path needs as a folder; undefined
 * when there is none. Writing either pair would leave one file where the manifest lists two; or, for two
 * spellings of one folder (`Refs/a.md`, `refs/b.md`), both files in the folder first made, under a path
 * the lock does not record, so that every later run would take the skill for one changed here.
 */
export function clashingPaths(paths: Iterable<string>): [string, string] | undefined {
  const files = new Map<string, string>();
  // Each folder, folded, with the path that first named it and how that path spells it.
  const folders = new Map<string, { readonly path: string; readonly spelled: string }>();
  const all = [...paths];
  for (const path of all) {
    const folded = foldedName(path);
    const same = files.get(folded);
    if (same !== undefined) return [same, path];
    files.set(folded, path);
    const segments = folded.split("/");
    const spelledSegments = path.split("/");
    for (let depth = 1; depth < segments.length; depth++) {
      const folder = segments.slice(0, depth).join("/");
      const spelled = spelledSegments.slice(0, depth).join("/");
      const first = folders.get(folder);
      if (first === undefined) folders.set(folder, { path, spelled });
      else if (first.spelled !== spelled) return [first.path, path];
    }
  }
  for (const [folded, path] of files) {
    const below = folders.get(folded);
    if (below !== undefined) return [path, below.path];
  }
  return undefined;
}
