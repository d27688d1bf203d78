export { buildApp, SHED_QUIET_MS } from "./app.js";
export { InFlight } from "./in-flight.js";
export { LINGER_BOUNDS, LingeringCloses } from "./lingering-close.js";
/** McpEndpoint and ServerConnection: parts of an answer, which bench/request-parts.ts times one by one. */
export { McpEndpoint } from "./mcp-endpoint.js";
export { shedRssWarning } from "./mcp-guards.js";
export { Readiness } from "./readiness.js";
export { ServerConnection } from "./sdk-contract.js";
