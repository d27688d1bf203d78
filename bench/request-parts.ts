/**
 * What each part of a request the answer cache cannot serve costs, in this process: the search itself,
 * a new server, the exchange over a scope's connection in each era, the SDK's entries that answer what
 * the connections do not (its stateless transport for 2025-era batches, createMcpHandler for the rest),
 * and the whole way through the endpoint. CPU microseconds a request (garbage collection included), the
 * least of a few rounds taken in turns, warm: the machine is shared, and the least is what a part costs
 * when nothing else runs.
 *
 * Beside it, what a request leaves to the young generation's collections (scavenges): the bytes they
 * found still alive and moved to the old generation, and the time they took. A request's objects should
 * be dead by the next scavenge; what a part keeps alive past it is copied once, then lies in the old
 * generation until a full collection, so a server running flat out pays for it twice.
 *
 *   npm run bench:parts -- [catalog folder] [requests a round=2000] [rounds=5]
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { errorMessage } from "../src/shared/index.js";
import { CORPUS_DIR, corpusAvailable, EXAMPLES_DIR } from "./catalogs.js";
import { readCommandLine, wholeNumbersOrExit } from "./command-line.js";

tolerateClosedOutput();
const COMMAND = {
  name: "bench:parts",
  usage: "usage: npm run bench:parts -- [catalog folder] [requests a round=2000] [rounds=5]",
};
// "--help" and "--bogus" were read as the catalog folder ("Skills folder …/--help does not exist").
const { positionals } = readCommandLine(COMMAND, {}, 3);
const [dir = corpusAvailable() ? CORPUS_DIR : EXAMPLES_DIR, ...numbers] = positionals;
const [requests = 2000, rounds = 5] = wholeNumbersOrExit(COMMAND, numbers, 2);
// Loaded only now, so that --help and a mistaken command line skip the server, its endpoint and the SDK.
const { main } = await import("./request-parts-run.js");
main(dir, requests, rounds).catch((error: unknown) => {
  console.error(errorMessage(error));
  process.exit(1);
});
