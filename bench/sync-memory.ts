/**
 * The peak resident memory of `skills-mcp sync` against a server that answers with skills as large as the
 * extension allows: serves `--skills` skills on 127.0.0.1 (made with the SDK's McpServer alone), each with
 * one file of `--mib` MiB sent as base64, and `--liars` more whose entry lists a file of 16 bytes that is
 * served as 16 MiB (under the answer cap, so that only the size check refuses it), and `--citing` more of
 * SKILL.md alone that each cite 4 pack files of their own (`shared/<name>-a.bin` to `-d.bin`) of a
 * quarter of `--mib` MiB each, so that each holds the first ones while it waits for the others; runs
 * `node <--main> sync` into a new folder under `/usr/bin/time -v`, and prints its maximum resident set
 * size and what the sync said.
 *
 *   npm run build && npx tsx bench/sync-memory.ts [--skills 8] [--mib 14] [--liars 0] [--citing 0] [--main dist/main.js]
 *
 * Give another checkout's built dist/main.js as --main for a before and after.
 */
import path from "node:path";
import { numberAbove0, readCommandLine, wholeNumber } from "./command-line.js";

const COMMAND = {
  name: "bench/sync-memory",
  usage:
    "usage: npx tsx bench/sync-memory.ts [--skills 8] [--mib 14] [--liars 0] [--citing 0] [--main dist/main.js]",
};
const { values } = readCommandLine(COMMAND, {
  skills: { type: "string", default: "8" },
  mib: { type: "string", default: "14" },
  liars: { type: "string", default: "0" },
  citing: { type: "string", default: "0" },
  main: { type: "string", default: "dist/main.js" },
});
const options = {
  skills: wholeNumber(COMMAND, "--skills", values.skills, 0),
  mib: numberAbove0(COMMAND, "--mib", values.mib),
  liars: wholeNumber(COMMAND, "--liars", values.liars, 0),
  citing: wholeNumber(COMMAND, "--citing", values.citing, 0),
  main: path.resolve(values.main),
};

// Loaded only now, so that --help and a mistaken command line skip the SDK's server.
const { main } = await import("./sync-memory-run.js");
await main(options);
