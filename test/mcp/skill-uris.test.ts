import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inAskedCase, keyOfUri, uriOfKey, whatwgSpelling } from "../../src/mcp/skill-uris.js";

/** A segment a served file may have: not empty, not hidden, no slash, backslash or NUL. */
const segment = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 12 })
  .filter((text) => !text.startsWith(".") && !/[/\\\0]/.test(text));

describe("skill:// URIs of served files", () => {
  it("read back as the file they were made for, whatever its name holds", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
        const key = segments.join("/");
        expect(keyOfUri(uriOfKey(key))).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });

  it("spell a plain name as it is and encode the rest as a URL would", () => {
    expect(uriOfKey("pack/skill-1/references/notes_v2.md")).toBe(
      "skill://pack/skill-1/references/notes_v2.md",
    );
    expect(uriOfKey("pack/skill/a b/100%.md")).toBe("skill://pack/skill/a%20b/100%25.md");
    expect(uriOfKey("pack/skill/café.md")).toBe("skill://pack/skill/caf%C3%A9.md");
    // Raw in a WHATWG URL's path, not in RFC 3986's.
    expect(uriOfKey("pack/[g]/skill/a|b.md")).toBe("skill://pack/%5Bg%5D/skill/a%7Cb.md");
  });

  it("hold raw only what RFC 3986 allows: a reg-name, then path segments of pchars", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
        expect(uriOfKey(segments.join("/"))).toMatch(
          /^skill:\/\/(?:[\w.~!$&'()*+,;=-]|%[\dA-F]{2})*(?:\/(?:[\w.~!$&'()*+,;=:@-]|%[\dA-F]{2})*)*$/,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("spelled as entries were before, raw `[`, `]` and `|` below the pack, read back as the same file", () => {
    expect(whatwgSpelling("skill://%5Bp%5D/%5Bg%5D/a%7Cb%255B.md")).toBe("skill://%5Bp%5D/[g]/a|b%255B.md");
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
        const key = segments.join("/");
        expect(keyOfUri(whatwgSpelling(uriOfKey(key)))).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });

  it("take the pack's spelling from a URI asked in another case only, the path below kept", () => {
    const listed = "skill://MyPack/Tools/SKILL.md";
    expect(inAskedCase(listed, "skill://mypack/Tools/SKILL.md")).toBe("skill://mypack/Tools/SKILL.md");
    expect(inAskedCase(listed, "skill://mypack")).toBe("skill://mypack/Tools/SKILL.md");
    expect(inAskedCase(listed, "skill://My%50ack/x")).toBe(listed);
    expect(inAskedCase(listed, "skill://other/x")).toBe(listed);
    expect(inAskedCase("skill://Caf%C3%A9/a", "skill://caf%c3%a9/")).toBe("skill://caf%c3%a9/a");
    // A capital outside ASCII, whose lowercase is other escapes: `É` is %C3%89, `é` %C3%A9.
    expect(inAskedCase("skill://%C3%89tudes/a", "skill://%C3%A9tudes")).toBe("skill://%C3%A9tudes/a");
    expect(inAskedCase("skill://%C3%89tudes/a", "skill://%C3%A9tude%73")).toBe("skill://%C3%89tudes/a");
    expect(inAskedCase("skill://%C3%89tudes/a", "skill://%E9tudes")).toBe("skill://%C3%89tudes/a");
  });
});
