/** How the tools write what they answer: file lists, file contents, counts. */
import { type CatalogFile, type FileContent, formatSize } from "../catalog/index.js";
import { isJsonObject, jsonKindOf } from "../json-rpc/index.js";
import { excerpt, plural, quoted } from "../shared/index.js";

/** Past this many entries a manifest is cut: a skill with a vendored tree would flood the context. */
const LISTED_FILES = 500;
/**
 * Nor does a manifest list files past this many characters of lines: 500 paths of a few folders take some
 * 25,000, while paths nested to the system's limit (4,096 bytes) made 500 entries 1.9 MB.
 */
const LISTED_CHARACTERS = 32 * 1024;

interface ManifestWording {
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
  let characters = 0;
  for (const file of files.values()) {
    const line = `${file.path} (${formatSize(file.size)})`;
    characters += line.length;
    if (listed === LISTED_FILES || (listed > 0 && characters > LISTED_CHARACTERS)) break;
    lines.push(line);
    listed++;
  }
  if (files.size > listed) lines.push(`… ${plural(files.size - listed, "more file")}`);
  lines.push(`Next: ${wording.next}.`);
  return lines.join("\n");
}

/**
 * A file's text, or a line saying what a binary file is; a cut text says so at its end, and that no call
 * gives the rest: a model asking again with an offset the tools ignore got the same 256 KiB again.
 */
export function formatFileContent(path: string, content: FileContent): string {
  if (content.kind === "binary") {
    return `${path} is a ${content.mediaType} of ${formatSize(content.size)}; binary files are not shown as text.`;
  }
  if (!content.truncated) return content.text;
  const shown = Buffer.byteLength(content.text, "utf8");
  return `${content.text}\n\n[${path} is cut here: showing the first ${formatSize(shown)} of ${formatSize(content.size)}; the tools serve no more of it.]`;
}

/**
 * The most characters of a string read as JSON, to tell whether it holds the object meant: a tool's
 * arguments take a few hundred.
 */
const MAX_PARSED_OBJECT = 64 * 1024;

/**
 * What is wrong with `member` (a request's `arguments`) that is no object, said so that a model fixes its
 * next call: models send the object as a string holding its JSON, which is then shown as it should have
 * been sent, and at most 100 characters of it.
 */
export function notAnObject(member: string, value: unknown, wanted: string): string {
  if (typeof value !== "string") return `${member} must be ${wanted}, not ${jsonKindOf(value)}`;
  const held = value.length <= MAX_PARSED_OBJECT ? jsonOf(value) : undefined;
  if (!isJsonObject(held)) return `${member} must be ${wanted}, not a string (${quoted(value)})`;
  return `${member} must be ${wanted}, not a string: this string holds a JSON object, so send the object itself, not a string holding it: "${member}": ${excerpt(JSON.stringify(held), 100)}`;
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
