import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesAt, notUtf8At } from "../../src/json-rpc/index.js";

describe("notUtf8At", () => {
  it("finds nothing in UTF-8, of one to four bytes a character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        expect(notUtf8At(Buffer.from(text))).toBeUndefined();
      }),
    );
  });

  it("names the first byte of the first sequence that is not UTF-8, whatever is around it", () => {
    const bad = [
      [0xc3, 0x28],
      [0xc3],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0x80],
      [0xff],
      [0xf5, 0x80, 0x80, 0x80],
      // Overlong forms, a surrogate, and a code point past U+10FFFF.
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ];
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme" }),
        fc.constantFrom(...bad),
        fc.string({ unit: "grapheme" }),
        fc.uint8Array(),
        (before, sequence, after, rest) => {
          const head = Buffer.from(before);
          // After a character (which no continuation byte begins), any bytes at all.
          const tail = Buffer.concat([Buffer.from(`x${after}`), rest]);
          expect(notUtf8At(Buffer.concat([head, Buffer.from(sequence), tail]))).toBe(head.length);
        },
      ),
    );
  });

  it("agrees with isUtf8 on any bytes: UTF-8 up to where it says, and no longer past it", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const at = notUtf8At(bytes);
        expect(isUtf8(bytes.subarray(0, at ?? bytes.length))).toBe(true);
        if (at === undefined) return;
        // No character of UTF-8, of at most four bytes, begins there.
        for (let end = at + 1; end <= Math.min(at + 4, bytes.length); end++) {
          expect(isUtf8(bytes.subarray(0, end))).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("bytesAt", () => {
  it("shows at most four bytes from the offset, in hex", () => {
    const bytes = Buffer.from([0x7b, 0xc3, 0x28, 0x0a, 0xff, 0x22]);
    expect(bytesAt(bytes, 1)).toBe("0xC3 0x28 0x0A 0xFF");
    expect(bytesAt(bytes, 4)).toBe("0xFF 0x22");
  });
});
