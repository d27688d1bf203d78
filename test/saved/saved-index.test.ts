import { describe, expect, it } from "vitest";
import { readSavedIndex, savedIndexBytes } from "../../src/saved/index.js";

const PARTS = {
  documents: Buffer.from(JSON.stringify([["p/a/SKILL.md", 60, 1, "a", "Drive nails with a hammer."]])),
  search: Buffer.from("search index bytes"),
  inspection: Buffer.from(JSON.stringify({ digest: `sha256:${"0123456789abcdef".repeat(4)}` })),
};

describe("the saved index's container", () => {
  it("gives back each part as it was saved, in place", () => {
    const read = readSavedIndex(savedIndexBytes(PARTS));
    expect("parts" in read && Object.keys(read.parts)).toEqual(["documents", "search", "inspection"]);
    if (!("parts" in read)) return;
    for (const [name, bytes] of Object.entries(PARTS))
      expect(Buffer.from(read.parts[name] ?? [])).toEqual(bytes);
  });

  // Regression (issue 24): a same-length edit of a description or a digest inside .search-index was served
  // as is; only a torn file was noticed.
  it.each([
    ["documents", "Drive nails", "Drive bolts"],
    ["inspection", "sha256:0", "sha256:1"],
    ["search", "index", "INDEX"],
  ])("refuses the whole file when a same-length edit damages its %s part", (part, from, to) => {
    const file = Buffer.from(savedIndexBytes(PARTS));
    const at = file.indexOf(from);
    expect(at).toBeGreaterThan(0);
    file.write(to, at);
    expect(readSavedIndex(file)).toEqual({
      problem: `damaged: its part "${part}" does not match its checksum`,
      outdated: false,
    });
  });

  it("tells a torn file from an outdated one", () => {
    const file = savedIndexBytes(PARTS);
    expect(readSavedIndex(file.subarray(0, file.length - 9))).toMatchObject({
      problem: expect.stringMatching(/^truncated or damaged/),
      outdated: false,
    });
    const older = Buffer.from(file);
    older.writeUInt32LE(1, 8);
    expect(readSavedIndex(older)).toEqual({
      problem: "saved in format 1; this server reads format 2",
      outdated: true,
    });
  });
});
