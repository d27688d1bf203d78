#!/usr/bin/env node
import { endOnStopSignals } from "./shared/stop-signals.js";

// Before the imports (Fastify, the SDK, zod: a few hundred ms), and from its own module rather than the
// folder's door, which loads the rest of shared/: the kernel drops a signal that a container's PID 1 has
// no handler for, so a stop early in a start waited for SIGKILL, a whole grace period.
endOnStopSignals();
await import("./cli.js");
