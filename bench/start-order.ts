/**
 * Which build a part of the bench starts first, where it starts this build and another (`--compare`, and
 * in the throughput part `--control`). The server started first cost more in 5 of 6 throughput runs, and
 * a coin drawn for each run could start this build first in every run of a comparison: the order is
 * planned instead, row by row, and each row records the order it was measured in.
 */

/** `--start-order`: this build first, the other builds first, or the two in turn from one row to the next. */
export const START_ORDER_PLANS = ["alternate", "this-first", "other-first"] as const;

export type StartOrderPlan = (typeof START_ORDER_PLANS)[number];

/** Whether `text` names a plan (the command line's value). */
export function isStartOrderPlan(text: string): text is StartOrderPlan {
  return (START_ORDER_PLANS as readonly string[]).includes(text);
}

/**
 * Whether this build starts first in row `row` of a part (counted from 0 over the part's rows that start
 * both): under `alternate` in the even rows and not in the odd ones, so that over any two rows each order
 * is taken once.
 */
export function thisBuildFirst(plan: StartOrderPlan, row: number): boolean {
  if (plan === "this-first") return true;
  if (plan === "other-first") return false;
  return row % 2 === 0;
}

/** `builds`, this build's first, in the order row `row` starts them. */
export function startOrderOf<T>(builds: readonly T[], plan: StartOrderPlan, row: number): T[] {
  return thisBuildFirst(plan, row) ? [...builds] : [...builds].reverse();
}
