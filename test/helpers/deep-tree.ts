import { execFileSync } from "node:child_process";

/**
 * Creates `folders` nested in turn under `dir`, each from inside its parent (so that no call is given a
 * path longer than one name, however deep the tree goes), and writes `file` holding `content` in the
 * deepest. Node's own calls take whole paths, which the system refuses past PATH_MAX.
 */
export function makeDeepFolders(
  dir: string,
  folders: readonly string[],
  file: { readonly name: string; readonly content: string },
): void {
  // `cd -P`: the shell would otherwise build the whole path to change into, and fail past PATH_MAX itself.
  const script =
    'set -e; mkdir -p "$1"; cd -P "$1"; name=$2; content=$3; shift 3; ' +
    'for d in "$@"; do mkdir "$d"; cd -P "$d"; done; printf "%s" "$content" > "$name"';
  execFileSync("sh", ["-c", script, "sh", dir, file.name, file.content, ...folders]);
}

/** Removes a tree that may be deeper than PATH_MAX, which `rm -rf` walks one folder at a time. */
export function removeDeepTree(dir: string): void {
  execFileSync("rm", ["-rf", dir]);
}
