import { type CatalogFile, type FileContent, formatSize, MANIFEST_NAME } from "../catalog/index.js";
import { plural } from "./format.js";

/** The `file` value that asks for a file list instead of a file; the catalog lists no file of that name. */
export const MANIFEST = MANIFEST_NAME;
/** Past this many entries a manifest is cut: a skill with a vendored tree would flood the context. */
const LISTED_FILES = 500;

export interface ManifestWording {
  readonly title: string;
  /** The whole answer when there is no file. */
  readonly empty: string;
  /** The call that reads one of the files. */
  readonly next: string;
}

export function formatManifest(files: ReadonlyMap<string, CatalogFile>, wording: ManifestWording): string {
  if (files.size === 0) return wording.empty;
  const lines = [`${wording.title} (${files.size}):`];
  let listed = 0;
  for (const file of files.values()) {
    if (listed++ === LISTED_FILES) break;
    lines.push(`${file.path} (${formatSize(file.size)})`);
  }
  if (files.size > LISTED_FILES) lines.push(`… ${plural(files.size - LISTED_FILES, "more file")}`);
  lines.push(`Next: ${wording.next}.`);
  return lines.join("\n");
}

/** A file's text, or a line saying what a binary file is; a cut text says so at its end. */
export function formatFileContent(path: string, content: FileContent): string {
  if (content.kind === "binary") {
    return `${path} is a ${content.mediaType} of ${formatSize(content.size)}; binary files are not shown as text.`;
  }
  if (!content.truncated) return content.text;
  const shown = Buffer.byteLength(content.text, "utf8");
  return `${content.text}\n\n[${path} is cut here: showing the first ${formatSize(shown)} of ${formatSize(content.size)}.]`;
}
