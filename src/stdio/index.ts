export { serveStdio } from "./serve.js";
