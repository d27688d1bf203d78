export { type AppDeps, buildApp, SHED_QUIET_MS } from "./app.js";
export { InFlight } from "./in-flight.js";
export { Readiness } from "./readiness.js";
