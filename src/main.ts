#!/usr/bin/env node
import { endOnStopSignals } from "./stop-signals.js";

// Before the imports (Fastify, the SDK, zod: a few hundred ms): the kernel drops a signal that a container's
// PID 1 has no handler for, so a stop early in a start waited for SIGKILL, a whole grace period.
endOnStopSignals();
await import("./cli.js");
