/** Work on many items at once, within a bound, told in the items' order. */

/** Runs `work` on every item, at most `limit` at a time; the first failure fails it all and starts no more. */
export async function forEachLimited<Item>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const item = items[next];
      next += 1;
      try {
        if (item !== undefined) await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Runs `work` on every item, at most `limit` at a time, started in the items' order, and hands each
 * outcome to `take` in that order too, whichever finished first: what `take` says comes out the same
 * however the work runs at once. Once `take` answers false, no more work starts; the work started is
 * still waited for, so that none outlives the call.
 */
export async function forEachInOrder<Item, Outcome>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<Outcome>,
  take: (outcome: Outcome, item: Item, index: number) => Promise<boolean>,
): Promise<void> {
  const runs = items.map((item) => ({ item, outcome: settleable<Outcome>() }));
  let stopped = false;
  const running = forEachLimited(runs, limit, async ({ item, outcome }) => {
    if (stopped) return;
    await work(item).then(outcome.resolve, outcome.reject);
  });
  try {
    for (const [index, { item, outcome }] of runs.entries()) {
      if (!(await take(await outcome.promise, item, index))) break;
    }
  } finally {
    stopped = true;
    await running;
  }
}

function settleable<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
} {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  // A failure after `take` stopped is waited for but read by no one: not an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
