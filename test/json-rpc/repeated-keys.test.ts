import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_NESTING, repeatedKeyIn } from "../../src/json-rpc/index.js";

const found = (json: string) => repeatedKeyIn(json);

describe("repeatedKeyIn", () => {
  it("finds a key given twice, decoded as JSON.parse reads it, with the path to its object", () => {
    expect(found('{"id":1,"id":2}')).toEqual({ key: "id", path: [] });
    expect(found('[{"a":1},{"b":{"c":[0,{"x":1,"\\u0078":2}]}}]')).toEqual({
      key: "x",
      path: [1, "b", "c", 1],
    });
    expect(found('{"p":{"k":1},"q":{"k":1,"n":"\\\\","n":0}}')).toEqual({ key: "n", path: ["q"] });
  });

  it("takes no string value, nor a key of another object, for a repeat", () => {
    expect(found('{"a":"a","b":{"a":1},"c":[{"a":2},{"a":3}],"d":"\\"a\\":"}')).toBeUndefined();
    expect(found('{"a\\\\":1,"a":2,"a\\"":3}')).toBeUndefined();
  });

  it("finds nothing in JSON that JSON.stringify wrote, and the one repeat added to it", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.string(), (value, key) => {
        expect(found(JSON.stringify(value))).toBeUndefined();
        const object = { [key]: value };
        const twice = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:0}`;
        expect(found(JSON.stringify([value, JSON.parse(twice)]))).toBeUndefined();
        expect(found(`[${JSON.stringify(value)},${twice}]`)).toEqual({ key, path: [1] });
      }),
    );
  });

  it("leaves a message nested past MAX_NESTING to the nesting check, which refuses it", () => {
    const deep = `${'{"a":'.repeat(MAX_NESTING + 1)}{"k":1,"k":2}${"}".repeat(MAX_NESTING + 1)}`;
    expect(found(deep)).toBeUndefined();
    const shallow = `${'{"a":'.repeat(MAX_NESTING - 1)}{"k":1,"k":2}${"}".repeat(MAX_NESTING - 1)}`;
    expect(found(shallow)?.key).toBe("k");
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
    const timed = (read: (json: string) => unknown, json: string, runs: number) => {
      const start = process.hrtime.bigint();
      for (let run = 0; run < runs; run++) read(json);
      return Number(process.hrtime.bigint() - start) / runs / 1000;
    };
    const both = (json: string, runs: number) =>
      `${timed(repeatedKeyIn, json, runs).toFixed(2)} µs (JSON.parse ${timed(JSON.parse, json, runs).toFixed(2)} µs)`;
    both(call, 10_000);
    console.log(
      `repeatedKeyIn: a tools/call of ${call.length} B ${both(call, 100_000)}; a 4 MiB string argument ${both(large, 20)}; 100,000 keys (${manyKeys.length} B) ${both(manyKeys, 5)}`,
    );
    expect(repeatedKeyIn(call)).toBeUndefined();
  });
});
