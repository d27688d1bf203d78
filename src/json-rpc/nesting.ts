/**
 * How deep a message's arrays and objects may nest: an MCP message nests five or six levels, and what reads
 * a message after this check (the SDK's schemas, the key of a kept answer, JSON.stringify of a response)
 * walks it recursively, so some thousands of levels in a few kilobytes would overflow the stack.
 */
export const MAX_NESTING = 64;

/** The refusal of a message nested deeper than MAX_NESTING, in the words HTTP and stdio both answer. */
export const TOO_DEEP = `Invalid Request: JSON nested deeper than ${MAX_NESTING} levels; an MCP message needs a few.`;

/** Whether `value` holds arrays or objects nested more than `limit` deep; walked without recursion. */
export function nestedDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  // Only arrays and objects are stacked, with their depths beside them: a message is mostly strings.
  const containers: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === "object") {
    containers.push(value);
    depths.push(0);
  }
  for (let container = containers.pop(); container !== undefined; container = containers.pop()) {
    const depth = depths.pop() ?? 0;
    if (depth === limit) return true;
    for (const child of Object.values(container)) {
      if (child !== null && typeof child === "object") {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
