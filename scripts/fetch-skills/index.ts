/**
 * `npm run fetch-skills`: turns skills.toml into the skills folder the server serves. The one place that
 * touches the process; everything else is in cli.ts, and the command line in options.ts.
 */
import { StoppedError } from "./errors.js";
import { readCommandLine } from "./options.js";

const argv = process.argv.slice(2);
const io = {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};
const options = await readCommandLine(argv, io);
if (typeof options === "number") {
  process.exitCode = options;
} else {
  // Loaded only now, so that --help and a wrong command line skip git's and TOML's modules.
  const { runWith } = await import("./cli.js");
  // A CI runner or `timeout` signals node alone, not its git children: the run stops them and removes its
  // work folder itself. The same signal again ends node at once (its handler is gone).
  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => stop.abort(new StoppedError(signal)));
  }
  process.exitCode = await runWith(options, argv, { ...io, signal: stop.signal });
}
