/**
 * How many items the repin review lists when a large bump passes its budget: renders synthetic reviews of
 * one pack (render step only, no fetch) whose supporting files number from hundreds to thousands, under
 * the fetcher's budget, and prints each one's length, the list limit it was cut to and the files it names.
 * Asserts nothing.
 *
 *   npx tsx bench/repin-review-lists.ts
 */
import { readCommandLine } from "./command-line.js";

readCommandLine(
  { name: "bench/repin-review-lists", usage: "usage: npx tsx bench/repin-review-lists.ts" },
  {},
);

// Loaded only now, so that --help and a mistaken command line skip the review's and the catalog's modules.
const { main } = await import("./repin-review-lists-run.js");
main();
