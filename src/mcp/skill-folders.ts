import type { Scope, Skill } from "../catalog/index.js";
import { isVisible, type Target } from "./skill-namespace.js";
import { nameOfKey, parentOfKey, type UriKey } from "./skill-uris.js";

/** A folder of the `skill://` namespace: its children, and whose files lie below it (to scope it). */
export interface Folder {
  readonly children: Map<string, { readonly key: UriKey; readonly folder: boolean }>;
  readonly owners: Set<Skill | Target>;
}

export function isFolderVisible(folder: Folder, scope: Scope): boolean {
  for (const owner of folder.owners) {
    if ("kind" in owner ? isVisible(owner, scope) : scope.has(owner)) return true;
  }
  return false;
}

/** The folders above every target, each with its children and the skills and pack files below it. */
export function foldersOf(targets: ReadonlyMap<UriKey, Target>): ReadonlyMap<UriKey, Folder> {
  const folders = new Map<UriKey, Folder>();
  for (const [key, target] of targets) {
    const owners = target.kind === "skill-file" ? target.skills : [target];
    let child = key;
    let folder = false;
    for (let parent = parentOfKey(child); parent !== undefined; parent = parentOfKey(parent)) {
      let found = folders.get(parent);
      if (found === undefined) {
        found = { children: new Map(), owners: new Set() };
        folders.set(parent, found);
      }
      found.children.set(nameOfKey(child), { key: child, folder });
      for (const owner of owners) found.owners.add(owner);
      child = parent;
      folder = true;
    }
  }
  return folders;
}
