import path from "node:path";

/**
 * Whether the path `target` is `folder` or lies below it; both absolute and resolved (no `..`, no symlink
 * left to follow), as realpath gives them.
 *
 * Node built-ins only: the image's skills stage copies this file for the fetcher, without the rest of src/.
 */
export function isInside(folder: string, target: string): boolean {
  return target === folder || target.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}
