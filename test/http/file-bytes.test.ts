import { describe, expect, it } from "vitest";
import { FileBytesBudget } from "../../src/http/file-bytes.js";

/** Lets every callback already due run: what could start has started. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("FileBytesBudget", () => {
  it("lets answers hold at most its bytes at once; the rest wait their turn, in order", async () => {
    const budget = new FileBytesBudget(10);
    const started: string[] = [];
    const take = (name: string, bytes: number) =>
      budget.take(bytes).then((free) => {
        started.push(name);
        return free;
      });
    const first = take("first 6", 6);
    const second = take("second 6", 6);
    // Would fit beside the first, but does not pass the one waiting before it.
    const third = take("third 1", 1);
    await settle();
    expect(started).toEqual(["first 6"]);
    (await first)();
    await settle();
    expect(started).toEqual(["first 6", "second 6", "third 1"]);
    (await second)();
    (await third)();
    // Freeing twice frees once: the whole budget is there again, and no more.
    (await third)();
    const whole = take("whole", 10);
    const more = take("more", 1);
    await settle();
    expect(started.slice(3)).toEqual(["whole"]);
    (await whole)();
    await more;
  });

  it("never makes an answer that holds no file wait", async () => {
    const budget = new FileBytesBudget(10);
    const held = await budget.take(10);
    let started = false;
    void budget.take(0).then(() => {
      started = true;
    });
    await settle();
    expect(started).toBe(true);
    held();
  });

  it("refuses a share larger than the whole budget, which could never start", async () => {
    await expect(new FileBytesBudget(10).take(11)).rejects.toThrow(RangeError);
  });
});
