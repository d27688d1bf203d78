/**
 * What `skills-mcp sync` costs against a server far away: serves a synthetic catalog on 127.0.0.1 behind a
 * proxy that holds every request `--latency` ms, syncs it once, then times a run with nothing to change
 * (sync and --check), and an update of every skill where one of its files changed; it prints the wall
 * time of each run and the requests it sent, by JSON-RPC method.
 *
 *   npx tsx bench/sync-latency.ts [--skills 24] [--latency 50]
 *
 * Each skill has SKILL.md, two files of its own, and cites a pack file all share and one of its own.
 * Copy this file, sync-latency-run.ts and bench/command-line.ts into another checkout's bench/ to measure
 * that one: a before and after.
 */
import { readCommandLine, wholeNumber } from "./command-line.js";

const COMMAND = {
  name: "bench/sync-latency",
  usage: "usage: npx tsx bench/sync-latency.ts [--skills 24] [--latency 50]",
};
const { values } = readCommandLine(COMMAND, {
  skills: { type: "string", default: "24" },
  latency: { type: "string", default: "50" },
});
const skills = wholeNumber(COMMAND, "--skills", values.skills);
const latency = wholeNumber(COMMAND, "--latency", values.latency, 0);

// Loaded only now, so that --help and a mistaken command line skip the server and the sync.
const { main } = await import("./sync-latency-run.js");
await main(skills, latency);
