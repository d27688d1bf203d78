/**
 * `npm run fetch-skills`: turns skills.toml into the skills folder the server serves. The one place that
 * touches the process; everything else is in cli.ts.
 */
import { run } from "./cli.js";
import { StoppedError } from "./errors.js";

// A CI runner or `timeout` signals node alone, not its git children: the run stops them and removes its
// work folder itself. The same signal again ends node at once (its handler is gone).
const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => stop.abort(new StoppedError(signal)));
}

process.exitCode = await run(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  signal: stop.signal,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
