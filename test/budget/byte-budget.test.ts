import { describe, expect, it } from "vitest";
import { ByteBudget } from "../../src/budget/index.js";

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("ByteBudget", () => {
  it("grants what fits at once, makes the rest wait in turn, and never holds more than its limit", async () => {
    const budget = new ByteBudget(10);
    const granted: string[] = [];
    const take = (name: string, bytes: number) =>
      budget.take(bytes).then((release) => {
        granted.push(name);
        return release;
      });
    const a = take("a", 6);
    const b = take("b", 4);
    const c = take("c", 5);
    const d = take("d", 1);
    await settle();
    // d would fit after c, but waits behind it: a large piece is never starved by small ones.
    expect(granted).toEqual(["a", "b"]);
    (await a)();
    await settle();
    expect(granted).toEqual(["a", "b", "c", "d"]);
    expect(budget.peak).toBe(10);
    (await b)();
    (await c)();
    (await d)();
  });

  it("runs a piece larger than the whole budget alone, once nothing else is held", async () => {
    const budget = new ByteBudget(10);
    const small = await budget.take(3);
    let large = false;
    const waiting = budget.take(25).then((release) => {
      large = true;
      return release;
    });
    await settle();
    expect(large).toBe(false);
    small();
    // Giving back twice gives back once.
    small();
    const release = await waiting;
    expect(large).toBe(true);
    expect(budget.peak).toBe(25);
    let after = false;
    const next = budget.take(1).then((give) => {
      after = true;
      return give;
    });
    await settle();
    expect(after).toBe(false);
    release();
    (await next)();
    expect(after).toBe(true);
  });
});

describe("ByteBudget for work that needs no bytes", () => {
  it("never makes it wait, even while the whole budget is held", async () => {
    const budget = new ByteBudget(10);
    const held = await budget.take(10);
    let started = false;
    void budget.take(0).then(() => {
      started = true;
    });
    await settle();
    expect(started).toBe(true);
    expect(budget.peak).toBe(10);
    held();
  });
});
