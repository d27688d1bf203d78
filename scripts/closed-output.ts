/**
 * Lets a command's reader go away early (`npm run bench:search -- … | head`) as Unix tools do: what is
 * left to print is dropped and the command finishes its other work (a `--ranks` file, say) and exits as
 * it would have, instead of dying on an unhandled EPIPE with a stack trace.
 */
export function tolerateClosedOutput(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}
