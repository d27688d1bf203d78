/**
 * The explorer-remote-location rule: a file Windows Explorer reads by itself when it shows the folder
 * (`desktop.ini`, `.scf`, `.url`, `.lnk`, `.library-ms`, `.searchConnector-ms`) naming a remote location
 * (`\\host\share`, `file://host/`, a web address Explorer opens by WebDAV). Explorer fetches such a file's
 * icon or target as soon as the folder `skills-mcp sync` wrote is opened, and a share answers with a request
 * for the user's NTLM credentials, which Windows sends: no click needed.
 */
import { quoted } from "../shared/index.js";
import { type Finding, finding } from "./rules.js";

/** The files Explorer reads to show a folder or an icon. */
const EXPLORER_FILE = /(?:^|\/)desktop\.ini$|\.(?:scf|url|lnk|library-ms|searchconnector-ms)$/i;
/** Those of them that are INI files, read key by key. */
const INI_FILE = /(?:^|\/)desktop\.ini$|\.(?:scf|url)$/i;
/**
 * A location on another machine: a UNC path (`\\host\share`), or a file URL naming a host (`file://host/`,
 * not `file:///C:/` nor `file://localhost/`). Each part is a fixed string and one character: the search
 * reads the text once.
 */
const SHARE = /\\\\[^\\\s]|file:\/\/(?!\/|localhost\/)[^/\s]/i;
/** An INI value that is a UNC path in either slash (`//host/share`, as Windows takes it too). */
const SHARE_VALUE = /^"?(?:\\\\|\/\/)[^\\/\s]/;
/** A web address, which Explorer opens as a WebDAV share when it is an icon. */
const WEB = /^"?https?:\/\//i;
/** A web address as a library's or search connector's location or icon, which Explorer opens by WebDAV. */
const WEB_ELEMENT = /<(?:url|iconReference)>\s*https?:\/\//i;
/** An INI key naming an icon, which Explorer fetches to draw the file or the folder. */
const ICON_KEY = /^\s*icon/i;

/** What the rule reads of a file's name: whether Explorer reads it, and as an INI file. */
export function explorerKind(path: string): "ini" | "other" | "none" {
  if (!EXPLORER_FILE.test(path)) return "none";
  return INI_FILE.test(path) ? "ini" : "other";
}

/**
 * The finding of `path`, one of the files Explorer reads, when it names a remote location: in an INI file
 * (`desktop.ini`, `.scf`, `.url`) a share in any key's value, or a web address as an icon (a `.url`'s
 * `URL=https://…` is a link, opened only when clicked, and left alone); in a `.lnk` or a library or search
 * connector (XML), a share anywhere, or a web address as its location or icon. Read as Windows may have written it: UTF-16 (a
 * `desktop.ini` often is, a `.lnk` holds its paths so) shows here with its NULs dropped. One finding a
 * file, at its first such line; linear in the file.
 */
export function explorerFileFindings(path: string, bytes: Uint8Array): Finding[] {
  const kind = explorerKind(path);
  if (kind === "none") return [];
  const text = Buffer.from(bytes).toString("latin1").replaceAll("\0", "");
  const remote = kind === "ini" ? remoteIniLine(text) : remoteAnywhere(text);
  if (remote === undefined) return [];
  const detail =
    `a file Windows Explorer reads when it shows the folder names a remote location, ${quoted(remote.value, 80)}: ` +
    "opening the folder sends the user's Windows (NTLM) credentials there";
  return [finding(path, remote.line, "explorer-remote-location", detail)];
}

/** The first line of an INI file whose value names a remote location, and that value. */
function remoteIniLine(text: string): { readonly line: number; readonly value: string } | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, line] of lines.entries()) {
    const equals = line.indexOf("=");
    if (equals === -1) continue;
    const value = line.slice(equals + 1).trim();
    const key = line.slice(0, equals);
    const share = SHARE_VALUE.test(value) || SHARE.test(value);
    if (share || (ICON_KEY.test(key) && WEB.test(value))) return { line: index + 1, value };
  }
  return undefined;
}

/** The first remote location anywhere in a binary link or an XML library, with what follows it. */
function remoteAnywhere(text: string): { readonly line: number; readonly value: string } | undefined {
  const share = SHARE.exec(text);
  const web = WEB_ELEMENT.exec(text);
  const first = [share, web].filter((match) => match !== null).sort((a, b) => a.index - b.index)[0];
  if (first === undefined) return undefined;
  // The file as a whole: a `.lnk` has no lines.
  const at = first === web ? first.index + first[0].indexOf(">") + 1 : first.index;
  return {
    line: 0,
    value:
      text
        .slice(at, at + 80)
        .trim()
        .split(/[\s<"]/, 1)[0] ?? "",
  };
}
