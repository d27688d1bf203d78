/**
 * `npm run fetch-skills`: turns skills.toml into the skills folder the server serves. The one place that
 * touches the process; everything else is in cli.ts.
 */
import { run } from "./cli.js";

process.exitCode = await run(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
