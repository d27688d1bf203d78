/**
 * The counts given on a bench's command line (`npm run bench:search-speed -- 10000 3000`), each a whole
 * number of at least 1, at most `most` of them; anything else exits 2 with one line and the usage, as the
 * other commands do (a word read as a count was NaN, and the run failed later or ran on nothing).
 */
export function wholeNumbersOrExit(
  command: string,
  usage: string,
  given: readonly string[],
  most: number,
): number[] {
  const refuse = (problem: string): never => {
    console.error(`${command}: ${problem}\n${usage}`);
    process.exit(2);
  };
  if (given.length > most) refuse(`${most} counts at most (got ${given.length}: ${given.join(" ")})`);
  return given.map((text) =>
    /^[1-9]\d*$/.test(text) ? Number(text) : refuse(`"${text}" is not a whole number ≥ 1`),
  );
}
