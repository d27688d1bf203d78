import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_NESTING, textProblemIn } from "../../src/json-rpc/index.js";

const found = (json: string) => textProblemIn(Buffer.from(json));
const repeated = (key: string, path: (string | number)[]) => ({ kind: "repeated key", key, path });
const TOO_DEEP = { kind: "too deep" };

/** How deep `value`'s arrays and objects nest, the top one at 1: what the scan must count from the text. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/** `depth` arrays, objects and arrays in turn, around `inner`. */
function nestedAround(depth: number, inner: string): string {
  let text = inner;
  for (let level = 0; level < depth; level++) text = level % 2 === 0 ? `[${text}]` : `{"k":${text}}`;
  return text;
}

describe("textProblemIn", () => {
  it("finds a key given twice, decoded as JSON.parse reads it, with the path to its object", () => {
    expect(found('{"id":1,"id":2}')).toEqual(repeated("id", []));
    expect(found('[{"a":1},{"b":{"c":[0,{"x":1,"\\u0078":2}]}}]')).toEqual(repeated("x", [1, "b", "c", 1]));
    expect(found('{"p":{"k":1},"q":{"k":1,"n":"\\\\","n":0}}')).toEqual(repeated("n", ["q"]));
    expect(found('{"ключ":1,"ключ":2}')).toEqual(repeated("ключ", []));
  });

  it("takes no string value, nor a key of another object, for a repeat", () => {
    expect(found('{"a":"a","b":{"a":1},"c":[{"a":2},{"a":3}],"d":"\\"a\\":"}')).toBeUndefined();
    expect(found('{"a\\\\":1,"a":2,"a\\"":3}')).toBeUndefined();
  });

  it("skips strings longer than those read byte by byte, whatever escapes they end in", () => {
    // Quotes and backslashes around where the scan hands a string over to Buffer's search.
    const unit = fc.constantFrom("a", "\\", '"', "é", "{", ",");
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 100 }), fc.string({ unit, maxLength: 100 }), (value, key) => {
        const object = `{${JSON.stringify(key)}:${JSON.stringify(value)},"k":[${JSON.stringify(value)}]`;
        expect(found(`${object}}`)).toBeUndefined();
        expect(found(`${object},"k":0}`)).toEqual(repeated("k", []));
        expect(found(`{${JSON.stringify(value)}:0,${JSON.stringify(value)}:1}`)).toEqual(repeated(value, []));
      }),
    );
  });

  it("finds nothing in JSON that JSON.stringify wrote, and the one repeat added to it", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.string(), (value, key) => {
        expect(found(JSON.stringify(value))).toBeUndefined();
        const object = { [key]: value };
        const twice = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:0}`;
        expect(found(JSON.stringify([value, JSON.parse(twice)]))).toBeUndefined();
        expect(found(`[${JSON.stringify(value)},${twice}]`)).toEqual(repeated(key, [1]));
      }),
    );
  });

  it("refuses arrays and objects nested deeper than MAX_NESTING, as deep as JSON.parse reads them", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_NESTING + 3 }),
        fc.jsonValue({ maxDepth: 3 }),
        (depth, inner) => {
          const text = nestedAround(depth, JSON.stringify(inner));
          const deeper = depthOf(JSON.parse(text)) > MAX_NESTING;
          expect(found(text)).toEqual(deeper ? TOO_DEEP : undefined);
        },
      ),
    );
    expect(found(nestedAround(MAX_NESTING, "1"))).toBeUndefined();
    expect(found(nestedAround(MAX_NESTING + 1, "1"))).toEqual(TOO_DEEP);
    expect(found(`"${"[".repeat(1000)}"`)).toBeUndefined();
  });

  it("tells of the first problem in the text, deep nesting or a repeat", () => {
    const deep = nestedAround(MAX_NESTING + 1, "1");
    expect(found(`{"k":1,"k":2,"deep":${deep}}`)).toEqual(repeated("k", []));
    expect(found(`{"deep":${deep},"k":1,"k":2}`)).toEqual(TOO_DEEP);
    // JSON.parse keeps the last copy, which is shallow: the deep one a gateway may read is still refused.
    expect(found(`{"a":${deep},"a":1}`)).toEqual(TOO_DEEP);
  });

  it("costs little per request (printed, not asserted)", () => {
    const call =
      '{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"read_skill","arguments":{"skill":"design/api-review","file":"SKILL.md"},"_meta":{"progressToken":17}}}';
    const large = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_skills", arguments: { query: "x".repeat(4 * 1024 * 1024) } },
    });
    const manyKeys = JSON.stringify(
      Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`k${index}`, index])),
    );
    // Each beside JSON.parse of the same text, which every message costs already.
    const timed = <T>(read: (json: T) => unknown, json: T, runs: number) => {
      const start = process.hrtime.bigint();
      for (let run = 0; run < runs; run++) read(json);
      return Number(process.hrtime.bigint() - start) / runs / 1000;
    };
    const both = (json: string, runs: number) =>
      `${timed(textProblemIn, Buffer.from(json), runs).toFixed(2)} µs (JSON.parse ${timed(JSON.parse, json, runs).toFixed(2)} µs)`;
    both(call, 10_000);
    console.log(
      `textProblemIn: a tools/call of ${call.length} B ${both(call, 100_000)}; a 4 MiB string argument ${both(large, 20)}; 100,000 keys (${manyKeys.length} B) ${both(manyKeys, 5)}`,
    );
    expect(found(call)).toBeUndefined();
  });
});
