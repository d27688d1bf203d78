import { ProtocolError, ProtocolErrorCode, type Resource } from "@modelcontextprotocol/server";
import {
  DIRECTORY_MIME_TYPE,
  type SkillReadResult,
  type SkillSource,
} from "@modelcontextprotocol/server/ext/skills";
import {
  type FileReader,
  MAX_FILE_BYTES,
  type Scope,
  SKILL_DOCUMENT,
  type Skill,
  skillPath,
} from "../catalog/index.js";
import type { SkillEntry } from "../inspection/index.js";
import { compareText, quoted } from "../shared/index.js";
import { firstAfter, listingOf, PAGE_SIZE } from "./cursor.js";
import { fileAsResource, MAX_READ_BYTES } from "./resource-read.js";
import { type CarriedSkill, respelledEntry, skillDocumentResource } from "./skill-entries.js";
import { type Folder, foldersOf, isFolderVisible } from "./skill-folders.js";
import {
  isVisible,
  type ListedPackFile,
  namespaceOf,
  type ResourceWarning,
  type Target,
} from "./skill-namespace.js";
import {
  childUriAt,
  cursorAfter,
  type ResourceListPosition,
  resourceListCursor,
  resourceListPositionAt,
  skillUriAt,
  startAfter,
} from "./skill-uri-cursors.js";
import {
  inAskedCase,
  keyOfFolderUri,
  keyOfUri,
  mimeTypeOf,
  nameOfKey,
  RESOURCES_LISTED,
  SCHEME,
  SKILLS_LISTED,
  type UriKey,
  uriOfKey,
  whatwgSpelling,
  withUriShapeProblem,
} from "./skill-uris.js";

/**
 * The most bytes of entries (as JSON) a `skills/list` page carries, past its first: a skill's manifest may
 * list 512 files, and a page of 100 such skills took some 9 MB, made afresh for every request (an answer
 * over 1 MiB is never kept) and 100 times over in a batch. A page this size is kept.
 */
const PAGE_BYTES = 512 * 1024;

/**
 * Every skill the MCP Skills extension carries, with each of its files as a `skill://` resource, and
 * every pack file beside them at `skill://<pack>/<path>`: built once for the whole catalog, then read
 * within the scope of each caller. What lies outside the scope reads exactly like what does not exist.
 */
export class SkillResources {
  /** The whole catalog, which names each caller's scope in its cursors. */
  readonly #everything: Scope;
  /** Sorted by URI, as `skills/list` pages them. */
  readonly #carried: readonly CarriedSkill[];
  readonly #bySkillUri: ReadonlyMap<UriKey, CarriedSkill>;
  readonly #targets: ReadonlyMap<UriKey, Target>;
  /** Worked out on the first folder read: most clients never read one, and it costs a walk of every key. */
  #folders: ReadonlyMap<UriKey, Folder> | undefined;
  /** Of every pack, sorted by URI, as `resources/list` pages them after the skills. */
  readonly #packFiles: readonly ListedPackFile[];
  readonly #entrySizes = new WeakMap<CarriedSkill, number>();

  private constructor(
    everything: Scope,
    carried: readonly CarriedSkill[],
    targets: ReadonlyMap<UriKey, Target>,
    packFiles: readonly ListedPackFile[],
  ) {
    this.#everything = everything;
    this.#carried = [...carried].sort((a, b) => compareText(a.entry.uri, b.entry.uri));
    this.#bySkillUri = new Map(
      carried.map((item) => [`${skillPath(item.skill)}/${item.skill.document.path}`, item]),
    );
    this.#targets = targets;
    this.#packFiles = [...packFiles].sort((a, b) => compareText(a.uri, b.uri));
  }

  #foldersNow(): ReadonlyMap<UriKey, Folder> {
    this.#folders ??= foldersOf(this.#targets);
    return this.#folders;
  }

  /**
   * The resources of `everything`: the skills that `entryOf` gives an entry, and the pack files. A skill
   * whose URIs another skill already holds is left out, and a pack file at a skill file's URI is not a
   * resource: `warn` hears of each.
   */
  static build(
    everything: Scope,
    entryOf: (skill: Skill) => SkillEntry | undefined,
    warn: (warning: ResourceWarning) => void,
  ): SkillResources {
    const { carried, targets, packFiles } = namespaceOf(everything, entryOf, warn);
    return new SkillResources(everything, carried, targets, packFiles);
  }

  /** How many skills the extension carries, over the whole catalog. */
  get carried(): number {
    return this.#carried.length;
  }

  /** The extension's view of `scope`, for one caller: the SDK's SkillSource, bound to it. */
  sourceFor(scope: Scope, reader: FileReader): SkillSource {
    return {
      list: async ({ cursor }) => this.#list(scope, cursor),
      // Refused here rather than by the SDK, whose answers repeat the URI whole however long, and call a URI
      // that names nothing "not a directory resource".
      get: async (uri) => this.#get(scope, uri) ?? notServed(this.#noSkillAt(scope, uri), uri),
      read: (uri) => this.#read(scope, uri, reader),
      readDirectory: async (uri, { cursor }) =>
        this.#readDirectory(scope, uri, cursor) ??
        notServed(
          // A file's URI with a folder's slash after it (…/SKILL.md/) names the file too: still no folder.
          this.#isFile(scope, uri) || (uri.endsWith("/") && this.#isFile(scope, uri.slice(0, -1)))
            ? `${quoted(uri)} is not a directory resource; read it with resources/read`
            : withUriShapeProblem(`Nothing is served at ${quoted(uri)}`, uri, RESOURCES_LISTED, true),
          uri,
        ),
    };
  }

  /**
   * Why skills/get of `uri` names no skill: a skill's folder (`skill://design/icon-sets`, as a sloppy client
   * asks) is told the URI of its SKILL.md, which a skill's URI is; a skill outside `scope` reads as missing.
   */
  #noSkillAt(scope: Scope, uri: string): string {
    const said = `No skill is served at ${quoted(uri)}`;
    const key = this.#keyOf(uri, true);
    const item = key === undefined ? undefined : this.#bySkillUri.get(`${key}/${SKILL_DOCUMENT}`);
    if (item === undefined || !scope.has(item.skill)) return withUriShapeProblem(said, uri, SKILLS_LISTED);
    return `${said}: a skill's URI is that of its ${SKILL_DOCUMENT}, here ${quoted(inAskedCase(item.entry.uri, uri))}`;
  }

  /**
   * Whether `uri` names a folder `scope` sees (as resources/directory/read reads it): a read of one is told
   * to list it, as a folder read of a file is told to read it. One outside the scope is no folder here.
   */
  isFolderIn(scope: Scope, uri: string): boolean {
    const key = this.#keyOf(uri, true);
    const folder = key === undefined ? undefined : this.#foldersNow().get(key);
    return folder !== undefined && isFolderVisible(folder, scope);
  }

  /** Whether `uri` names a file `scope` sees (as resources/read reads it). */
  #isFile(scope: Scope, uri: string): boolean {
    const key = this.#keyOf(uri);
    const target = key === undefined ? undefined : this.#targets.get(key);
    return target !== undefined && isVisible(target, scope);
  }

  #list(scope: Scope, cursor: string | undefined): { skills: SkillEntry[]; nextCursor?: string } {
    const { items, nextCursor } = this.#page(scope, cursor);
    const skills = items.map((item) => item.entry);
    return nextCursor === undefined ? { skills } : { skills, nextCursor };
  }

  /**
   * The skills of one `skills/list` page: PAGE_SIZE of them, fewer once their entries hold PAGE_BYTES (at
   * least one), and the bytes of their entries as JSON.
   */
  #page(
    scope: Scope,
    cursor: string | undefined,
  ): { items: CarriedSkill[]; bytes: number; nextCursor?: string } {
    const listing = listingOf("skills/list", this.#everything, scope);
    const after = cursor === undefined ? undefined : skillUriAt(listing, cursor);
    const items: CarriedSkill[] = [];
    let bytes = 0;
    let last: string | undefined;
    const start =
      after === undefined ? 0 : firstAfter(this.#carried, (item) => compareText(item.entry.uri, after) <= 0);
    for (let at = start; at < this.#carried.length; at++) {
      const item = this.#carried[at];
      if (item === undefined || !scope.has(item.skill)) continue;
      const size = this.#entryBytes(item);
      if (items.length === PAGE_SIZE || (items.length > 0 && bytes + size > PAGE_BYTES)) {
        return { items, bytes, nextCursor: cursorAfter(listing, last ?? SCHEME) };
      }
      items.push(item);
      bytes += size;
      last = item.entry.uri;
    }
    return { items, bytes };
  }

  /** The bytes of a skill's entry as JSON, worked out on its first listing. */
  #entryBytes(item: CarriedSkill): number {
    let bytes = this.#entrySizes.get(item);
    if (bytes === undefined) {
      bytes = Buffer.byteLength(JSON.stringify(item.entry));
      this.#entrySizes.set(item, bytes);
    }
    return bytes;
  }

  /**
   * The bytes of the entries that `skills/list` with `cursor` answers in `scope`; 0 for a cursor this
   * server did not give, which is refused. What the answer weighs before it is made.
   */
  bytesToList(scope: Scope, cursor: string | undefined): number {
    try {
      return this.#page(scope, cursor).bytes;
    } catch {
      return 0;
    }
  }

  /**
   * The most bytes of a file a read of `uri` holds in `scope`: its file's size, or what is shown of a file
   * over MAX_READ_BYTES; 0 when it names no file in scope, as for a missing one, so that what a batch
   * weighs tells nothing of files outside its scope. What an answer weighs before it is made.
   */
  bytesToRead(scope: Scope, uri: string): number {
    const key = this.#keyOf(uri);
    const target = key === undefined ? undefined : this.#targets.get(key);
    if (target === undefined || !isVisible(target, scope)) return 0;
    return target.file.size > MAX_READ_BYTES ? MAX_FILE_BYTES : target.file.size;
  }

  /**
   * The key `uri` names, its pack (the URI's authority) read in any case when that names one pack: RFC 3986
   * makes a host case-insensitive, so a host may lowercase it (Python's `urlparse(…).hostname` does) and
   * ask `skill://mypack/…` of pack `MyPack`. The load serves no two packs whose names differ only so; the
   * path below stays case-sensitive, as file names are. Of the whole catalog, so that what a URI names does
   * not depend on the caller's scope, which the target is then checked against.
   */
  #keyOf(uri: string, folder = false): UriKey | undefined {
    const key = folder ? keyOfFolderUri(uri) : keyOfUri(uri);
    if (key === undefined) return undefined;
    const slash = key.indexOf("/");
    const pack = slash < 0 ? key : key.slice(0, slash);
    const found = this.#everything.findPackAnyCase(pack);
    return found === undefined || found.name === pack ? key : `${found.name}${key.slice(pack.length)}`;
  }

  #get(scope: Scope, uri: string): SkillEntry | undefined {
    const key = this.#keyOf(uri);
    const item = key === undefined ? undefined : this.#bySkillUri.get(key);
    if (item === undefined || !scope.has(item.skill) || !URL.canParse(uri)) return undefined;
    // The SDK answers an entry whose URI is not the one asked for (as a URL spells it) with an internal
    // error: another spelling of the URI (`%53KILL.md`, a lowercase `%c3%a9`) is refused as naming no skill.
    const asked = new URL(uri).href;
    // Its pack in the case asked, as a host lowercasing the authority asks it: the entry at that URI, each
    // of its files below it as the SDK's client checks they are, and resources/read reads them so too.
    const entry =
      inAskedCase(item.entry.uri, asked) === item.entry.uri
        ? item.entry
        : respelledEntry(item.entry, (listed) => inAskedCase(listed, asked));
    if (asked === entry.uri) return entry;
    // The URI as entries spelled it before, `[` raw: answered with the entry spelled so, as it was then,
    // each of whose files resources/read reads by that spelling too.
    return asked === whatwgSpelling(entry.uri) ? respelledEntry(entry, whatwgSpelling) : undefined;
  }

  async #read(scope: Scope, uri: string, reader: FileReader): Promise<SkillReadResult | undefined> {
    const key = this.#keyOf(uri);
    const target = key === undefined ? undefined : this.#targets.get(key);
    if (target === undefined || !isVisible(target, scope)) return undefined;
    return fileAsResource(uri, target.file, target.kind === "skill-file" ? target.digest : undefined, reader);
  }

  #readDirectory(
    scope: Scope,
    uri: string,
    cursor: string | undefined,
  ): { resources: Resource[]; nextCursor?: string } | undefined {
    const key = this.#keyOf(uri, true);
    const folder = key === undefined ? undefined : this.#foldersNow().get(key);
    if (key === undefined || folder === undefined || !isFolderVisible(folder, scope)) return undefined;
    // Ordered and paged as listed, so that a cursor names the same place whichever case its read asked.
    const children: Resource[] = [];
    for (const child of folder.children.values()) {
      const resource = this.#childResource(child.key, child.folder, scope);
      if (resource !== undefined) children.push(resource);
    }
    children.sort((a, b) => compareText(a.uri, b.uri));
    const listing = listingOf("resources/directory/read", this.#everything, scope, { key, uri });
    const after = cursor === undefined ? undefined : childUriAt(listing, cursor, uriOfKey(key));
    const start =
      after === undefined ? 0 : firstAfter(children, (resource) => compareText(resource.uri, after) <= 0);
    // Below the folder as it was asked for, its pack in the case asked (see #keyOf).
    const listed = children.slice(start, start + PAGE_SIZE);
    const page = listed.map((resource) => ({ ...resource, uri: inAskedCase(resource.uri, uri) }));
    const last = listed.at(-1);
    return start + PAGE_SIZE < children.length && last !== undefined
      ? { resources: page, nextCursor: cursorAfter(listing, last.uri) }
      : { resources: page };
  }

  #childResource(key: UriKey, folder: boolean, scope: Scope): Resource | undefined {
    const uri = uriOfKey(key);
    const name = nameOfKey(key);
    if (folder) {
      const found = this.#foldersNow().get(key);
      return found !== undefined && isFolderVisible(found, scope)
        ? { uri, name, mimeType: DIRECTORY_MIME_TYPE }
        : undefined;
    }
    const target = this.#targets.get(key);
    if (target === undefined || !isVisible(target, scope)) return undefined;
    // A nested skill's SKILL.md is a skill's only to those who see the skill; else a file of those around it.
    const carried = target.kind === "skill-file" ? this.#bySkillUri.get(key) : undefined;
    return carried !== undefined && scope.has(carried.skill)
      ? skillDocumentResource(carried)
      : { uri, name, mimeType: mimeTypeOf(name), size: target.file.size };
  }

  /**
   * One page of `resources/list` in `scope`: PAGE_SIZE resources, the skills (their SKILL.md) by URI, then
   * the pack files by URI. The SDK lists a resource template's resources whole, without a cursor: the
   * server answers `resources/list` with this instead (see serverFactoryFor).
   */
  listResources(scope: Scope, cursor: string | undefined): { resources: Resource[]; nextCursor?: string } {
    const listing = listingOf("resources/list", this.#everything, scope);
    const after = cursor === undefined ? undefined : resourceListPositionAt(listing, cursor);
    const resources: Resource[] = [];
    let last: ResourceListPosition | undefined;
    const full = () => resources.length === PAGE_SIZE;
    const pastSkills = after?.section === "pack-files";
    const skillStart = pastSkills
      ? this.#carried.length
      : startAfter(this.#carried, (item) => item.entry.uri, after?.uri);
    for (let at = skillStart; at < this.#carried.length; at++) {
      const item = this.#carried[at];
      if (item === undefined || !scope.has(item.skill)) continue;
      if (full()) return { resources, nextCursor: resourceListCursor(listing, last) };
      resources.push(skillDocumentResource(item));
      last = { section: "skills", uri: item.entry.uri };
    }
    const fileStart = pastSkills ? startAfter(this.#packFiles, (listed) => listed.uri, after?.uri) : 0;
    for (let at = fileStart; at < this.#packFiles.length; at++) {
      const listed = this.#packFiles[at];
      if (listed === undefined || !isVisible(listed.target, scope)) continue;
      if (full()) return { resources, nextCursor: resourceListCursor(listing, last) };
      const { pack, file } = listed.target;
      resources.push({
        uri: listed.uri,
        name: `${pack}/${file.path}`,
        description: `A file of pack ${pack} that its skills cite`,
        mimeType: mimeTypeOf(file.path),
        size: file.size,
      });
      last = { section: "pack-files", uri: listed.uri };
    }
    return { resources };
  }
}

/** Refuses a request for `uri`, which `message` quotes cut: `data.uri` keeps it whole, as resources/read's. */
function notServed(message: string, uri: string): never {
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, message, { uri });
}
