/*
 * What the /mcp endpoint assumes of the SDK, each assumption in one place, named there (a comment that
 * begins "Assumption:") and held by a test of its own (test/http/sdk-contract.test.ts), so that a release of
 * the SDK that changes one fails a test rather than a client. This file is the door of sdk-contract/, one
 * module a job:
 *
 *   kept-answers.ts        the headers the SDK checks and the shape of its JSON answers (the answer cache)
 *   classification.ts      the era of a request, or its refusal, as the SDK's entry tells it
 *   legacy-transport.ts    what the stateless 2025 transport checks, in its order, and hands over unchanged
 *   modern-handler.ts      what createMcpHandler answers a refused request, and hands over unchanged
 *   plain-requests.ts      a request that plainly speaks either era, told without the SDK's schemas
 *   refusals.ts            requests the SDK refuses, refused in its place in words that say what to send
 *   unclaimed-envelope.ts  a 2026-07-28 envelope without its version, which the SDK reads as 2025
 *   reworded-answers.ts    the SDK's refusals of Accept, batches and unknown methods, reworded
 *   header-refusals.ts     its refusals of headers that disagree with the body, reworded
 *   server-connection.ts   one long-lived server of the SDK, carrying many requests at once
 *
 * The modules import one another, never this file.
 */
export { classify, isJsonRpcMessage } from "./sdk-contract/classification.js";
export {
  advisingHeaderRefusal,
  namingNameEncoding,
  quotingHeaderMismatch,
} from "./sdk-contract/header-refusals.js";
export { answerEnding, CHECKED_HEADERS } from "./sdk-contract/kept-answers.js";
export {
  acceptAsTheSdkReadsIt,
  legacyRequestOf,
  MAX_BATCH_MESSAGES,
} from "./sdk-contract/legacy-transport.js";
export { modernRequestOf, rejectionOf } from "./sdk-contract/modern-handler.js";
export { plainLegacyRequestOf, plainModernRequestOf } from "./sdk-contract/plain-requests.js";
export {
  batchedHandshakeOf,
  invalidMessageProblem,
  modernMisfitOf,
  repeatedIdOf,
  type UnsupportedVersion,
  unsupportedVersionOf,
} from "./sdk-contract/refusals.js";
export {
  countingBatch,
  isCancellation,
  namingAccept,
  namingEnvelopeInBatch,
  namingMethods,
} from "./sdk-contract/reworded-answers.js";
export { ServerConnection } from "./sdk-contract/server-connection.js";
export { namingUnclaimedEnvelope, unclaimedEnvelopeRefusal } from "./sdk-contract/unclaimed-envelope.js";
