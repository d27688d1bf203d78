/**
 * Where a served file may land on disk. A server names files by URI; sync writes each one below its
 * skill's folder only when every segment of its path is an ordinary file name on every system the
 * clients run on, so that no name can climb out, reach a device, or mean two files at once; and that shows
 * all it holds, as the server's catalog requires of the names it serves.
 */
import { foldedName } from "../catalog/index.js";
import { visible } from "../visible.js";

/** Deeper paths than this are refused: no real skill needs them, and each level is a folder to make. */
const MAX_DEPTH = 16;
/** The longest file name most file systems take, in UTF-8 bytes. */
const MAX_SEGMENT_BYTES = 255;
/** Control characters, and what Windows refuses or reads as a drive or a stream (`:`) or a separator. */
const FORBIDDEN = /[\p{Cc}\\:*?"<>|]/u;

/**
 * What Windows opens as a device whatever the folder: CON, PRN, AUX, NUL, COM0-9 and LPT0-9 (with the
 * superscript digits it also takes), in any case, with or without an extension.
 */
const DEVICE = /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]) *(?:\..*)?$/i;

/** Why `segment` cannot be one name in a path on disk, or undefined when it can. */
export function segmentProblem(segment: string): string | undefined {
  if (segment === "" || segment === "." || segment === "..") return `"${segment}" is not a name`;
  if (segment.includes("/")) return "a name holds a slash";
  const forbidden = FORBIDDEN.exec(segment);
  if (forbidden) return `a name holds ${describe(forbidden[0])}`;
  const shown = visible(segment);
  if (shown !== segment) return `a name holds a character no reader sees: ${JSON.stringify(shown)}`;
  if (DEVICE.test(segment)) return `a name is a device on Windows: ${JSON.stringify(segment)}`;
  // Windows drops a trailing dot or space: `a.md.` would be written as `a.md`.
  if (segment.endsWith(".") || segment.endsWith(" "))
    return `a name ends in a dot or a space, which Windows drops: ${JSON.stringify(segment)}`;
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES)
    return `a name is longer than ${MAX_SEGMENT_BYTES} bytes`;
  return undefined;
}

/** Why a relative `/`-separated path cannot be written below a folder, or undefined when it can. */
export function relativePathProblem(path: string): string | undefined {
  const segments = path.split("/");
  if (segments.length > MAX_DEPTH) return `deeper than ${MAX_DEPTH} folders`;
  for (const segment of segments) {
    const problem = segmentProblem(segment);
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

function describe(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f
    ? `a control character (U+${code.toString(16).toUpperCase().padStart(4, "0")})`
    : `"${character}"`;
}
