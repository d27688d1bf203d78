import { writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonFit } from "../../src/catalog/files.js";
import {
  type CatalogFile,
  describeBytes,
  FileReader,
  loadCatalog,
  MAX_FILE_BYTES,
  meantFilePath,
  normalizeFilePath,
  skillOwningPath,
  weighsMoreAsText,
  withoutEdgeSlashes,
  withoutTrailingSlashes,
} from "../../src/catalog/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

describe("normalizeFilePath", () => {
  it.each([
    ["references/guide.md", "references/guide.md"],
    ["./references/guide.md", "references/guide.md"],
    ["references//guide.md", "references/guide.md"],
    ["references/../SKILL.md", "SKILL.md"],
  ])("keeps %s inside as %s", (requested, expected) => {
    expect(normalizeFilePath(requested)).toBe(expected);
  });

  it.each([
    "../secret",
    "../../outside/secret.txt",
    "references/../../x",
    "/etc/passwd",
    "..",
    ".",
    "",
    "references/",
    "a\0b",
    "..\\..\\secret",
    "references\\guide.md",
  ])("refuses %j", (requested) => {
    expect(normalizeFilePath(requested)).toBeUndefined();
  });
});

describe("meantFilePath", () => {
  const paths = ["SKILL.md", "references/guide.md", "docs/README.md", "examples/README.md"];

  it("names the one file a path written loosely stands for", () => {
    expect(meantFilePath("references\\guide.md", paths)).toBe("references/guide.md");
    expect(meantFilePath("//references/guide.md", paths)).toBe("references/guide.md");
    expect(meantFilePath("guide.md", paths)).toBe("references/guide.md");
    expect(meantFilePath("pack/skill/references/guide.md", paths)).toBe("references/guide.md");
    expect(meantFilePath("skill://pack/skill/SKILL.md", paths)).toBe("SKILL.md");
    expect(meantFilePath("pack/skill/docs/README.md", paths)).toBe("docs/README.md");
    expect(meantFilePath("skill/docs/README.md", [...paths, "README.md"])).toBe("docs/README.md");
  });

  // Copied as a SKILL.md cites it: they were answered as naming no file.
  it.each([
    "`references/guide.md`",
    '"references/guide.md"',
    "<references/guide.md>",
    "references/guide.md#setup",
    "` references/guide.md#setup `",
    "./references/guide.md#",
  ])("names the file %j cites", (requested) => {
    expect(meantFilePath(requested, paths)).toBe("references/guide.md");
  });

  it("reads a # or a quote as part of the name when a file is so named", () => {
    expect(meantFilePath("notes/c#.md", ["notes/C#.md", "notes/c.md"])).toBe("notes/C#.md");
    expect(meantFilePath("`guide.md", paths)).toBeUndefined();
    expect(meantFilePath("#guide.md", paths)).toBeUndefined();
  });

  it("names none when several files fit, or for a path out of the folder", () => {
    expect(meantFilePath("readme.md", paths)).toBeUndefined();
    expect(meantFilePath("../references/guide.md", paths)).toBeUndefined();
    expect(meantFilePath("%2e%2e/references/guide.md", paths)).toBeUndefined();
    expect(meantFilePath("other/guide.md", paths)).toBeUndefined();
  });
});

// They replace regular expressions that took time quadratic in a run of slashes: the same text, in one pass.
describe("withoutTrailingSlashes and withoutEdgeSlashes", () => {
  it("trim what the regular expressions trimmed", () => {
    expect(withoutTrailingSlashes("references///")).toBe("references");
    expect(withoutTrailingSlashes("/a//b/")).toBe("/a//b");
    expect(withoutTrailingSlashes("///")).toBe("");
    expect(withoutEdgeSlashes("//pack/skill/x.md//")).toBe("pack/skill/x.md");
    expect(withoutEdgeSlashes("/")).toBe("");
    expect(withoutEdgeSlashes("a")).toBe("a");
    const paths = fc.string({ unit: fc.constantFrom("/", "a", ".", " ", "é") });
    fc.assert(
      fc.property(paths, (text) => {
        expect(withoutTrailingSlashes(text)).toBe(text.replace(/\/+$/, ""));
        expect(withoutEdgeSlashes(text)).toBe(text.replace(/^\/+|\/+$/g, ""));
      }),
    );
  });
});

describe("describeBytes", () => {
  it("reads UTF-8 text", () => {
    expect(describeBytes(Buffer.from("héllo"), 6, "a.md")).toEqual({
      kind: "text",
      text: "héllo",
      size: 6,
      truncated: false,
    });
  });

  it("calls bytes with NUL or invalid UTF-8 binary, naming the type from the extension", () => {
    expect(describeBytes(Buffer.from([0x89, 0x50, 0x00]), 3, "x.png")).toEqual({
      kind: "binary",
      size: 3,
      mediaType: "PNG image",
    });
    expect(describeBytes(Buffer.from([0xff, 0xfe, 0xfd]), 3, "x.dat")).toMatchObject({
      kind: "binary",
      mediaType: "binary file",
    });
  });

  it("calls UTF-8 binary when more than a third of its start is control characters, as JSON would spell them", () => {
    const controls = Buffer.from("\x01\x02\x03\x1b\x1f\x7f ab");
    expect(describeBytes(controls, controls.length, "x.dat")).toMatchObject({ kind: "binary" });
    // A third at most, or line endings, tabs and page breaks: text, whose escapes the audit flags.
    for (const text of ["\x1b[m".repeat(100), "\x1b[31mred\x1b[0m\n", "a\tb\r\n\f\n\n"]) {
      expect(describeBytes(Buffer.from(text), text.length, "x.txt")).toMatchObject({ kind: "text", text });
    }
    // Only the first 8 KiB are looked at.
    const late = Buffer.concat([Buffer.alloc(8192, "a"), Buffer.alloc(100_000, 1)]);
    expect(describeBytes(late, late.length, "x.txt")).toMatchObject({ kind: "text" });
  });

  it("cuts a truncated text at its last whole line", () => {
    const bytes = Buffer.from("one\ntwo\nthr");
    expect(describeBytes(bytes, MAX_FILE_BYTES * 2, "a.txt")).toMatchObject({
      text: "one\ntwo\n",
      truncated: true,
    });
  });

  it("does not split a multi-byte character when a single long line is cut", () => {
    const bytes = Buffer.from("ééé").subarray(0, 5);
    expect(describeBytes(bytes, 6, "a.txt")).toMatchObject({ kind: "text", text: "éé", truncated: true });
  });
});

describe("FileReader", () => {
  /** Three 100-byte files; each kept entry costs its size plus 1 KiB, so 2,500 bytes keep two. */
  async function threeFiles() {
    const tree = await makeTree({
      "a.md": "a".repeat(100),
      "b.md": "b".repeat(100),
      "c.md": "c".repeat(100),
    });
    const file = (name: string): CatalogFile => ({
      path: name,
      size: 100,
      mtimeMs: 0,
      source: path.join(tree.dir, name),
      identity: `path:${name}`,
    });
    const rewrite = (name: string) => writeFile(path.join(tree.dir, name), "z".repeat(100));
    const textOf = async (reader: FileReader, name: string) => {
      const content = await reader.read(file(name));
      return content.kind === "text" ? content.text[0] : content.kind;
    };
    return { tree, file, rewrite, textOf };
  }

  it("keeps what it read: the catalog does not change while served", async () => {
    const { tree, rewrite, textOf } = await threeFiles();
    try {
      const reader = new FileReader();
      expect(await textOf(reader, "a.md")).toBe("a");
      await rewrite("a.md");
      expect(await textOf(reader, "a.md")).toBe("a");
    } finally {
      await tree.remove();
    }
  });

  it("stays within its budget by dropping the file read least recently", async () => {
    const { tree, rewrite, textOf } = await threeFiles();
    try {
      const reader = new FileReader(2500);
      await textOf(reader, "a.md");
      await textOf(reader, "b.md");
      await textOf(reader, "a.md");
      await textOf(reader, "c.md");
      await rewrite("a.md");
      await rewrite("b.md");
      expect(await textOf(reader, "a.md")).toBe("a");
      expect(await textOf(reader, "b.md")).toBe("z");
    } finally {
      await tree.remove();
    }
  });

  it("does not keep a failed read", async () => {
    const { tree, file, textOf } = await threeFiles();
    try {
      const reader = new FileReader();
      await expect(reader.read(file("later.md"))).rejects.toThrow(/ENOENT/);
      await writeFile(path.join(tree.dir, "later.md"), "l".repeat(100));
      expect(await textOf(reader, "later.md")).toBe("l");
    } finally {
      await tree.remove();
    }
  });
});

describe("skillOwningPath", () => {
  it("names the innermost skill holding a path, with the path inside it", async () => {
    const tree = await makeTree({
      "p/games/SKILL.md": skillMd("games"),
      "p/games/notes.md": "notes\n",
      "p/games/web/SKILL.md": skillMd("web"),
      "p/games/web/references/canvas.md": "# Canvas\n",
    });
    try {
      const pack = loadCatalog(tree.dir).catalog.everything.findPack("p");
      if (pack === undefined) throw new Error("pack p not loaded");
      const owner = (requested: string) => {
        const found = skillOwningPath(pack, requested);
        return found && [found.skill.name, found.file];
      };
      expect(owner("games/web/references/canvas.md")).toEqual(["web", "references/canvas.md"]);
      expect(owner("games/web/SKILL.md")).toEqual(["web", "SKILL.md"]);
      expect(owner("games/notes.md")).toEqual(["games", "notes.md"]);
      expect(owner("games/missing.md")).toBeUndefined();
    } finally {
      await tree.remove();
    }
  });

  // A pack that is one skill has no pack files: read_pack_file's "no pack file" sent models in a circle.
  it("names the skill that is the whole pack", async () => {
    const tree = await makeTree({
      "solo/SKILL.md": skillMd("solo"),
      "solo/references/r.md": "# R\n",
      "solo/inner/SKILL.md": skillMd("inner"),
    });
    try {
      const pack = loadCatalog(tree.dir).catalog.everything.findPack("solo");
      if (pack === undefined) throw new Error("pack solo not loaded");
      const owner = (requested: string) => {
        const found = skillOwningPath(pack, requested);
        return found && [found.skill.name, found.file];
      };
      expect(owner("SKILL.md")).toEqual(["solo", "SKILL.md"]);
      expect(owner("references/r.md")).toEqual(["solo", "references/r.md"]);
      expect(owner("inner/SKILL.md")).toEqual(["inner", "SKILL.md"]);
      expect(owner("missing.md")).toBeUndefined();
    } finally {
      await tree.remove();
    }
  });
});

describe("weighsMoreAsText", () => {
  const text = Buffer.from("words of a line\n".repeat(100));
  it("counts control characters JSON spells in six bytes, over the whole file", () => {
    expect(weighsMoreAsText(text)).toBe(false);
    expect(weighsMoreAsText(Buffer.concat([text, Buffer.alloc(text.length, 0x1b)]))).toBe(true);
    // One in twenty: five bytes more each, under the third base64 adds.
    expect(weighsMoreAsText(Buffer.from("\x01".padEnd(20, "a").repeat(100)))).toBe(false);
  });

  it("leaves out those JSON spells in two bytes: tab, backspace, line and form feed, carriage return", () => {
    expect(weighsMoreAsText(Buffer.from("\t\b\n\f\r".repeat(1000)))).toBe(false);
  });
});

describe("jsonFit", () => {
  it("counts each byte as JSON spells it: six for a control character, two for a quote or backslash", () => {
    const samples = ["plain words", 'a "quoted" \\ word', "\x01\x1b\t\n\b", "é ü 😀 \u2028", "\x7f"];
    for (const sample of samples) {
      const bytes = Buffer.from(sample);
      const spelled = Buffer.byteLength(JSON.stringify(sample)) - 2;
      expect(jsonFit(bytes, spelled)).toBe(bytes.length);
      expect(jsonFit(bytes, spelled - 1)).toBeLessThan(bytes.length);
    }
    expect(jsonFit(Buffer.alloc(100, 1), 60)).toBe(10);
  });
});
