import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { InputLines } from "../../src/stdio/input-lines.js";

/**
 * What `InputLines(limit)` passes on of `chunks` to a reader that says which lines were JSON, as the SDK's
 * transport does, how many lines it dropped, and how many it told of as no JSON.
 */
async function read(limit: number, chunks: readonly string[]) {
  let dropped = 0;
  let notJson = 0;
  const unfinished: number[] = [];
  const stage = new InputLines(limit, {
    tooLong: () => dropped++,
    notJson: () => notJson++,
    notUtf8: () => {},
    unfinished: (bytes) => unfinished.push(bytes),
  });
  const out: Buffer[] = [];
  stage.on("data", (chunk: Buffer) => {
    out.push(chunk);
    if (isJson(chunk.toString().replace(/\r?\n$/, ""))) stage.parsed();
  });
  const ended = new Promise((resolve) => stage.on("end", resolve));
  for (const chunk of chunks) stage.write(Buffer.from(chunk));
  stage.end();
  await ended;
  return { out: Buffer.concat(out).toString(), dropped, notJson, unfinished };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What `InputLines(limit)` passes on of `chunks`, and how many lines it dropped. */
async function pass(limit: number, chunks: readonly string[]): Promise<{ out: string; dropped: number }> {
  const { out, dropped } = await read(limit, chunks);
  return { out, dropped };
}

/** Compact JSON `text` with a CR after each `[`, `{`, `,` and `:` and before each `]` and `}` outside strings. */
function withCrsBetweenTokens(text: string): string {
  let out = "";
  let inString = false;
  let escaped = false;
  for (const character of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (character === "\\") escaped = true;
      else if (character === '"') inString = false;
      out += character;
    } else if (character === '"') {
      inString = true;
      out += character;
    } else if ("[{,:".includes(character)) out += `${character}\r`;
    else if ("]}".includes(character)) out += `\r${character}`;
    else out += character;
  }
  return out;
}

/** `text` cut at every pair of places. */
function everySplit(text: string): string[][] {
  const splits: string[][] = [];
  for (let a = 0; a <= text.length; a++) {
    for (let b = a; b <= text.length; b++) splits.push([text.slice(0, a), text.slice(a, b), text.slice(b)]);
  }
  return splits;
}

describe("InputLines", () => {
  it("passes lines up to the limit unchanged however stdin cuts them", async () => {
    const input = '{"a":1}\n\n12345\r\n{"b":2}\n';
    for (const chunks of everySplit(input)) {
      expect(await pass(7, chunks)).toEqual({ out: input, dropped: 0 });
    }
  });

  it("drops a line over the limit, once, and passes the lines around it, however stdin cuts them", async () => {
    for (const chunks of everySplit("ab\n1234567\ncd\n")) {
      expect(await pass(6, chunks)).toEqual({ out: "ab\ncd\n", dropped: 1 });
    }
  });

  it("drops a line over the limit that ends in the chunk it starts in, or never ends", async () => {
    expect(await pass(3, ["a\nlong line\nb\nlonger line\nc\n"])).toEqual({ out: "a\nb\nc\n", dropped: 2 });
    expect(await pass(3, ["a\nb\nno newline", " ever"])).toEqual({ out: "a\nb\n", dropped: 1 });
  });

  it("ends a line at a lone CR after a whole JSON object or array, however stdin cuts them", async () => {
    // Regression: a client that ended its messages with CR alone (old Mac OS style, some bridges from
    // Windows) had them held until stdin closed, then dropped as an unfinished line: it waited forever.
    // A CR inside the value, or after anything else, is no end; a CRLF stays one end.
    const input = '{"a":"}",\r"b":[1,\r2]}\r[{}\r,{}] \r\r{"c":3}\r\n{"d":4}\r5\r6\n{"e":5}\r';
    const out = '{"a":"}",\r"b":[1,\r2]}\r\n[{}\r,{}] \r\n\r{"c":3}\r\n{"d":4}\r\n5\r6\n{"e":5}\r\n';
    for (const chunks of everySplit(input)) {
      expect(await read(100, chunks)).toEqual({ out, dropped: 0, notJson: 1, unfinished: [] });
    }
  });

  it("ends a line at a lone CR before an object or array where no JSON value can begin, however stdin cuts them", async () => {
    // Regression: a client ending its lines with CR alone that sent a broken message (an object left
    // open, a string left open, text that is no JSON) had it and every message after it held as one
    // line, unanswered, until stdin closed. A CR before `{` or `[` where JSON has no value begin (after
    // a value, in a string, after a text that is no object or array) ends it; before one where a value
    // may begin (after `[`, `,`, `:`, or blanks alone) it does not.
    const input = '{"id":1,"method":"ping"\r{"a":1}\r{"b":"x\r[1]\rnot json\r{"c":2}\r[\r{"d":\r[4]}]\r';
    const out =
      '{"id":1,"method":"ping"\r\n{"a":1}\r\n{"b":"x\r\n[1]\r\nnot json\r\n{"c":2}\r\n[\r{"d":\r[4]}]\r\n';
    for (const chunks of everySplit(input)) {
      expect(await read(100, chunks)).toEqual({ out, dropped: 0, notJson: 3, unfinished: [] });
    }
  });

  it("passes every line of JSON whole, whatever lone CRs it holds as blanks, however stdin cuts it", async () => {
    // JSON with a CR wherever it allows blanks between tokens, as a pretty-printer with CR line ends
    // writes it (JSON holds no raw CR in a string): the lone-CR rules above must never cut such a line.
    const value = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()));
    await fc.assert(
      fc.asyncProperty(value, fc.array(fc.nat(), { maxLength: 4 }), async (json, cuts) => {
        const line = `${withCrsBetweenTokens(JSON.stringify(json))}\n`;
        const places = [...new Set(cuts.map((cut) => cut % line.length))].sort((a, b) => a - b);
        const chunks = [0, ...places].map((place, index) => line.slice(place, places[index] ?? line.length));
        expect(await read(1024 * 1024, chunks)).toEqual({
          out: line,
          dropped: 0,
          notJson: 0,
          unfinished: [],
        });
      }),
      { numRuns: 500 },
    );
  });

  it("drops a line over the limit ended by a lone CR, and passes the next, however stdin cuts them", async () => {
    for (const chunks of everySplit('{"a":"1234"}\r{}\r')) {
      expect(await pass(8, chunks)).toEqual({ out: "{}\r\n", dropped: 1 });
    }
  });

  it("reads a line of 400,000 CRs inside an array as one line", async () => {
    // Each CR checked from the line's start would take some 10^11 steps here, past the test's time limit.
    const line = `[${"{}\r,".repeat(400_000)}{}]\r`;
    const { out, dropped } = await pass(10 * 1024 * 1024, [line]);
    expect(out === `${line}\n` && dropped === 0).toBe(true);
  });

  it("tells of an unfinished last line, which it does not pass on, unless it is blank", async () => {
    expect(await read(100, ["{}\n", "{}"])).toEqual({ out: "{}\n", dropped: 0, notJson: 0, unfinished: [2] });
    expect(await read(100, ["{}\n", " \r"])).toEqual({ out: "{}\n", dropped: 0, notJson: 0, unfinished: [] });
    // A line over the limit is told of as such.
    expect(await read(2, ["{}\n", "{12"])).toEqual({ out: "{}\n", dropped: 1, notJson: 0, unfinished: [] });
  });

  it("tells of each line its reader did not say was JSON, unless blank, however stdin cuts them", async () => {
    const input = 'hello\n  {"a":1}\n\r\n \t[1]\n\uFEFF{"b":2}\nContent-Length: 7\r\n\r\n{"c":\n5\n[1,\n';
    for (const chunks of everySplit(input)) {
      expect(await read(100, chunks)).toEqual({ out: input, dropped: 0, notJson: 5, unfinished: [] });
    }
  });

  it("says why a line is not JSON when it starts with a byte-order mark or holds more than one value", async () => {
    // Regression: both got the same parse error as any broken line, which did not hint at the mistake.
    const whys: unknown[] = [];
    const stage = new InputLines(100, {
      tooLong: () => {},
      notJson: (why) => whys.push(why),
      notUtf8: () => {},
      unfinished: () => {},
    });
    stage.on("data", () => {});
    const ended = new Promise((resolve) => stage.on("end", resolve));
    const lines = ['\uFEFF{"a":1}', '{"a":1}{"b":2}', '[1] {"b":2}', '{"a":}{"b":2}', '{"a":1', "5 6", "{}x"];
    stage.end(Buffer.from(lines.map((line) => `${line}\n`).join("")));
    await ended;
    expect(whys).toEqual(["bom", "more", "more", undefined, undefined, undefined, "more"]);
  });

  // Regression: the SDK decoded such a line with each byte that is not UTF-8 turned to U+FFFD, and served it:
  // a list_skills query with 0xC3 0x28 in it searched for "\uFFFD(".
  it("tells of a line that is not UTF-8, with where, and passes it not on, in whatever chunks it came", async () => {
    const good = Buffer.from('{"a":"caf\u00e9"}\n');
    const bad = Buffer.from('{"a":"caf\u00e9 x"}\r');
    const at = bad.indexOf("x");
    bad[at] = 0xc3;
    const bytes = Buffer.concat([good, bad, Buffer.from([0xed, 0xa0, 0x80, 0x0a]), good]);
    for (let split = 0; split <= bytes.length; split++) {
      const told: [string, number][] = [];
      const stage = new InputLines(100, {
        tooLong: () => {},
        notJson: () => {},
        notUtf8: (line, at) => told.push([line.toString("hex"), at]),
        unfinished: () => {},
      });
      const out: Buffer[] = [];
      stage.on("data", (line: Buffer) => out.push(line));
      const ended = new Promise((resolve) => stage.on("end", resolve));
      stage.write(bytes.subarray(0, split));
      stage.end(bytes.subarray(split));
      await ended;
      expect(Buffer.concat(out).toString(), `split at ${split}`).toBe(`${good}${good}`);
      expect(told, `split at ${split}`).toEqual([
        [Buffer.concat([bad, Buffer.from("\n")]).toString("hex"), at],
        ["eda0800a", 0],
      ]);
    }
  });

  it("hands each line on as a chunk of its own, whatever chunks it came in", async () => {
    const stage = new InputLines(100, {
      tooLong: () => {},
      notJson: () => {},
      notUtf8: () => {},
      unfinished: () => {},
    });
    const seen: string[] = [];
    stage.on("data", (line: Buffer) => seen.push(`${line.toString()}|${stage.current?.toString()}`));
    const ended = new Promise((resolve) => stage.on("end", resolve));
    for (const chunk of ['{"a":1}\n{"b"', ':2}\n{"c":3}\n{"d":4}\n']) stage.write(Buffer.from(chunk));
    stage.end();
    await ended;
    // And says which line its listeners are reading while they read it.
    expect(seen).toEqual(
      ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n', '{"d":4}\n'].map((line) => `${line}|${line}`),
    );
    expect(stage.current).toBeUndefined();
  });

  it("passes on a line that came a byte at a time, holding it as bytes rather than as pieces", async () => {
    // Regression: kept as one piece a chunk, a line of 1-byte chunks took some 100 bytes a byte, and one of
    // 500,000 overflowed the stack when passed on.
    const line = `{"x":"${"a".repeat(500_000)}"}`;
    const { out, dropped } = await pass(1024 * 1024, [...line.split(""), "\n"]);
    expect(out === `${line}\n` && dropped === 0).toBe(true);
  });

  it("holds at most one line read ahead while its reader has stopped reading", () => {
    // Regression: while the server stopped reading stdin (too many messages waiting), this stage still read
    // 16 lines ahead, 16 lines of 10 MiB: 60 such lines from a client that did not read its answers took
    // the server to 310 MiB instead of 200.
    const stage = new InputLines(4 * 1024 * 1024, {
      tooLong: () => {},
      notJson: () => {},
      notUtf8: () => {},
      unfinished: () => {},
    });
    const line = Buffer.from(`${"x".repeat(1024 * 1024)}\n`);
    // No reader: paused, as the server pauses it.
    for (let i = 0; i < 20; i++) stage.write(line);
    expect(stage.readableLength).toBe(1);
    stage.destroy();
  });

  it("passes on a line that came in pieces from the buffer its start grew, not copied whole once more", () => {
    // Regression: each such line was copied whole once more when its newline came: a line of 10 MiB took
    // the server 56 MiB for a moment, 46 without that copy.
    const stage = new InputLines(4 * 1024 * 1024, {
      tooLong: () => {},
      notJson: () => {},
      notUtf8: () => {},
      unfinished: () => {},
    });
    const seen: Buffer[] = [];
    stage.on("data", (line: Buffer) => seen.push(line));
    const concat = vi.spyOn(Buffer, "concat");
    try {
      const piece = Buffer.alloc(100_000, 0x61);
      for (let i = 0; i < 10; i++) stage.write(piece);
      stage.write(Buffer.from("a\n"));
      expect(concat).not.toHaveBeenCalled();
    } finally {
      concat.mockRestore();
    }
    expect(
      seen.map((line) => [
        line.length,
        line.at(-1),
        line.every((byte, at) => byte === (at < 1_000_001 ? 0x61 : 10)),
      ]),
    ).toEqual([[1_000_002, 10, true]]);
  });
});
