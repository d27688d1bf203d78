import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, utf8SequenceLength } from "../src/shared/index.js";

describe("decodeUtf8", () => {
  it("reads UTF-8 as text, and says that other bytes are not, rather than write U+FFFD", () => {
    expect(decodeUtf8(Buffer.from("café 😀"))).toBe("café 😀");
    expect(decodeUtf8(Buffer.from("caf\xe9", "latin1"))).toBeUndefined();
    expect(decodeUtf8(Uint8Array.of(0xed, 0xa0, 0x80))).toBeUndefined();
  });
});

describe("utf8SequenceLength", () => {
  // The catalog once took a sequence's length from its lead byte and asked isUtf8 of it: the same answer.
  it("is the length of the shortest start of the bytes that is UTF-8, or 0 when none of 1-4 bytes is", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 5 }), (bytes) => {
        const shortest = [1, 2, 3, 4].find(
          (length) => length <= bytes.length && isUtf8(bytes.subarray(0, length)),
        );
        expect(utf8SequenceLength(bytes, 0)).toBe(shortest ?? 0);
      }),
      { numRuns: 20_000 },
    );
  });

  it("reads the sequence at an offset, each byte of it checked", () => {
    const bytes = Buffer.from("a€b");
    expect([0, 1, 2, 3, 4].map((index) => utf8SequenceLength(bytes, index))).toEqual([1, 3, 0, 0, 1]);
    const emoji = Buffer.from("😀");
    expect(utf8SequenceLength(emoji, 0)).toBe(4);
    expect(utf8SequenceLength(emoji.subarray(0, 3), 0)).toBe(0);
  });
});
