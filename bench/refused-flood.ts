/**
 * How fast `/health` answers while a flood of refused bodies comes in: the real server (`node dist/main.js`,
 * production defaults) on 127.0.0.1, probed with a GET /health on a new connection every `--every` ms, as a
 * kubelet probes it, first alone, then while `--clients` connections at once each POST a body of `--bytes`
 * over MAX_BODY_BYTES (read and thrown away, then 413, then a lingering close: docs/security.md), and once
 * the flood is over. The flood runs in a process of its own (refused-flood-client.ts), as a client would.
 * Prints the probes' median, 95th percentile and most in each phase, how many took longer than the
 * manifests' readiness (1 s) and liveness (5 s) timeouts, what the flooding connections saw, and the CPU time
 * the server spent meanwhile.
 *
 *   npm run build && npm run bench:refused-flood -- [--clients 200] [--bytes 524288] [--every 50] [--rounds 3]
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { errorMessage } from "../src/shared/index.js";
import { readCommandLine, wholeNumber } from "./command-line.js";

tolerateClosedOutput();
const COMMAND = {
  name: "bench:refused-flood",
  usage:
    "usage: npm run build && npm run bench:refused-flood -- [--clients 200] [--bytes 524288] [--every 50] [--rounds 3]",
};
const { values } = readCommandLine(COMMAND, {
  clients: { type: "string", default: "200" },
  bytes: { type: "string", default: "524288" },
  every: { type: "string", default: "50" },
  rounds: { type: "string", default: "3" },
});
const clients = wholeNumber(COMMAND, "--clients", values.clients);
const bytes = wholeNumber(COMMAND, "--bytes", values.bytes);
const everyMs = wholeNumber(COMMAND, "--every", values.every);
const rounds = wholeNumber(COMMAND, "--rounds", values.rounds);

// Loaded only now, so that --help and a mistaken command line start no server.
const { main } = await import("./refused-flood-run.js");
main({ clients, bytes, everyMs, rounds }).catch((error: unknown) => {
  console.error(errorMessage(error));
  process.exit(1);
});
