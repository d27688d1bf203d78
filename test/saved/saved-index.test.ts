import { describe, expect, it } from "vitest";
import {
  MalformedPart,
  PartReader,
  PartWriter,
  readSavedIndex,
  type SavedIndex,
  savedIndexBytes,
} from "../../src/saved/index.js";

const FINGERPRINT = { skills: 3, digest: new Uint8Array(32).fill(7) };
const PARTS = new Map([
  ["documents", [Buffer.from(JSON.stringify([["p/a/SKILL.md", "60:1", "a", "Drive nails with a hammer."]]))]],
  ["search", [Buffer.from("search index bytes"), Buffer.from("odd"), Buffer.alloc(0), Buffer.from("more")]],
  ["inspection", [Buffer.from(JSON.stringify({ digest: `sha256:${"0123456789abcdef".repeat(4)}` }))]],
]);

function read(file: Uint8Array): SavedIndex {
  const result = readSavedIndex(file);
  if (!result.ok) throw new Error(result.problem);
  return result.index;
}

describe("the saved index's container", () => {
  it("gives back the catalog fingerprint and each part's pieces as they were saved, in place", () => {
    const file = savedIndexBytes({ fingerprint: FINGERPRINT, parts: PARTS });
    const { fingerprint, parts } = read(file);
    expect(fingerprint.skills).toBe(3);
    expect(Buffer.from(fingerprint.digest)).toEqual(Buffer.from(FINGERPRINT.digest));
    expect([...parts.keys()]).toEqual(["documents", "search", "inspection"]);
    for (const [name, pieces] of PARTS) {
      expect(parts.get(name)?.map((piece) => Buffer.from(piece))).toEqual(pieces);
    }
    // Views of the file, each at a multiple of 8, so that a reader views its arrays in place.
    for (const piece of parts.get("search") ?? []) {
      expect(piece.buffer).toBe((file as Buffer).buffer);
      expect(piece.byteOffset % 8).toBe(0);
    }
  });

  it("reads back a part holding an empty typed array", () => {
    const part = new PartWriter();
    part.number(1);
    part.array(Int32Array.from([4, 5]));
    part.array(Int32Array.from([]));
    const file = savedIndexBytes({ fingerprint: FINGERPRINT, parts: new Map([["terms", part.pieces()]]) });
    const reader = new PartReader(read(file).parts.get("terms") ?? []);
    expect(reader.number()).toBe(1);
    expect([...reader.array(Int32Array)]).toEqual([4, 5]);
    expect(reader.array(Int32Array).length).toBe(0);
    reader.end();
  });

  it("reads a file that does not start at a multiple of 8 in its buffer", () => {
    const file = savedIndexBytes({ fingerprint: FINGERPRINT, parts: PARTS });
    const shifted = Buffer.concat([Buffer.from([1, 2, 3]), file]).subarray(3);
    expect(shifted.byteOffset % 8).not.toBe(0);
    const pieces = read(shifted).parts.get("search") ?? [];
    expect(pieces.map((piece) => piece.byteOffset % 8)).toEqual([0, 0, 0, 0]);
    expect(Buffer.from(pieces[0] ?? [])).toEqual(Buffer.from("search index bytes"));
  });

  // Regression: each piece and part is an object in memory, made before the checksum is compared, and a
  // crafted file of 160 MB declaring 20 million empty pieces took 2.5 GB to read. A server saves four
  // parts of some tens of pieces, named in a few bytes.
  it("refuses a file of more parts or pieces, or longer part names, than a server saves, before reading them", () => {
    const problem = (parts: Map<string, Uint8Array[]>) => {
      const result = readSavedIndex(savedIndexBytes({ fingerprint: FINGERPRINT, parts }));
      return result.ok ? "read" : result.problem;
    };
    const empty = () => [Buffer.alloc(0)];
    expect(problem(new Map([["search", Array.from({ length: 1024 }, () => Buffer.alloc(0))]]))).toBe("read");
    expect(problem(new Map([["search", Array.from({ length: 1025 }, () => Buffer.alloc(0))]]))).toBe(
      'damaged: its part "search" holds 1025 pieces, where at most 1024 are read',
    );
    expect(problem(new Map(Array.from({ length: 65 }, (_, i) => [`part${i}`, empty()])))).toBe(
      "malformed header: 65 parts, where at most 64 are read",
    );
    expect(problem(new Map([["x".repeat(65), empty()]]))).toBe(
      "damaged: a part's name takes 65 bytes, where at most 64 are read",
    );
  });

  // Regression (issue 24): a same-length edit of a description or a digest inside .search-index was served
  // as is; only a torn file was noticed.
  it.each([
    ["documents", "Drive nails", "Drive bolts"],
    ["inspection", "sha256:0", "sha256:1"],
    ["search", "more", "MORE"],
  ])("refuses the whole file when a same-length edit damages its %s part", (part, from, to) => {
    const file = Buffer.from(savedIndexBytes({ fingerprint: FINGERPRINT, parts: PARTS }));
    const at = file.indexOf(from);
    expect(at).toBeGreaterThan(0);
    file.write(to, at);
    expect(readSavedIndex(file)).toEqual({
      ok: false,
      problem: `damaged: its part "${part}" does not match its checksum`,
      outdated: false,
    });
  });

  it("refuses a piece length changed within the file, which its part's checksum covers", () => {
    const file = Buffer.from(savedIndexBytes({ fingerprint: FINGERPRINT, parts: PARTS }));
    const at = file.indexOf(Buffer.from(new Float64Array([3]).buffer));
    expect(at).toBeGreaterThan(0);
    file.writeDoubleLE(2, at);
    expect(readSavedIndex(file)).toMatchObject({ ok: false, outdated: false });
  });

  it("tells a torn file, foreign bytes and another byte order from an outdated file", () => {
    const file = savedIndexBytes({ fingerprint: FINGERPRINT, parts: PARTS });
    expect(readSavedIndex(file.subarray(0, file.length - 9))).toMatchObject({
      problem: expect.stringMatching(/^truncated or damaged/),
      outdated: false,
    });
    expect(readSavedIndex(Buffer.concat([file, Buffer.alloc(8)]))).toMatchObject({
      problem: expect.stringMatching(/^truncated or damaged/),
      outdated: false,
    });
    expect(readSavedIndex(Buffer.from("not a saved index at all, just words"))).toEqual({
      ok: false,
      problem: "not a saved index of skills-mcp",
      outdated: false,
    });
    const swapped = Buffer.from(file);
    swapped.writeUInt32BE(swapped.readUInt32LE(12), 12);
    expect(readSavedIndex(swapped)).toEqual({
      ok: false,
      problem: "saved on a machine of the other byte order",
      outdated: false,
    });
    const older = Buffer.from(file);
    older.writeUInt32LE(2, 8);
    expect(readSavedIndex(older)).toEqual({
      ok: false,
      problem: "saved in format 2; this server reads format 3",
      outdated: true,
    });
    expect(readSavedIndex(Buffer.from("SKILLIDX and the rest of an index"))).toEqual({
      ok: false,
      problem: "saved by an earlier version, which saved the search index alone",
      outdated: true,
    });
  });

  it("refuses a bit flipped anywhere, or cut anywhere, without throwing", () => {
    const file = savedIndexBytes({ fingerprint: FINGERPRINT, parts: PARTS });
    for (let at = 56; at < file.length; at++) {
      const flipped = Buffer.from(file);
      flipped[at] = (flipped[at] as number) ^ 0x10;
      const result = readSavedIndex(flipped);
      // A flip in padding changes nothing saved; anywhere else the file is refused as damaged.
      if (result.ok) expect(result.index.parts).toEqual(read(file).parts);
      else expect(result.outdated).toBe(false);
    }
    for (let length = 0; length < file.length; length++) {
      expect(readSavedIndex(file.subarray(0, length))).toMatchObject({ ok: false, outdated: false });
    }
  });
});

describe("a part of numbers and typed arrays", () => {
  it("reads back what was written, in order, as views of its pieces", () => {
    const part = new PartWriter();
    const weights = Float64Array.of(0.5, 2);
    part.number(6, 1.5);
    part.array(Int32Array.of(-1, 2, 3));
    part.array(weights);
    const file = savedIndexBytes({ fingerprint: FINGERPRINT, parts: new Map([["p", part.pieces()]]) });
    const reader = new PartReader(read(file).parts.get("p") ?? []);
    expect([reader.number(), reader.number()]).toEqual([6, 1.5]);
    expect([...reader.array(Int32Array)]).toEqual([-1, 2, 3]);
    expect([...reader.array(Float64Array)]).toEqual([0.5, 2]);
    expect(() => reader.end()).not.toThrow();
  });

  it("says what it lacks instead of reading past its end, or an array of the wrong kind", () => {
    const part = new PartWriter();
    part.number(1);
    part.array(Uint8Array.of(1, 2, 3));
    const reader = new PartReader(part.pieces());
    expect(reader.count()).toBe(1);
    expect(() => reader.number()).toThrow(new MalformedPart("it holds fewer numbers than it should"));
    expect(() => reader.array(Int32Array)).toThrow(/not a whole number of elements/);
    expect(() => reader.array(Uint8Array)).toThrow(/fewer arrays/);
    expect(() => new PartReader([])).toThrow(/no numbers/);
    const unread = new PartReader(part.pieces());
    expect(() => unread.end()).toThrow(/more than it should/);
  });
});
