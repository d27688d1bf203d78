import { describe, expect, it } from "vitest";
import { normalizeFilePath } from "../../src/catalog/files.js";
import { describeBytes, MAX_FILE_BYTES } from "../../src/catalog/index.js";

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
