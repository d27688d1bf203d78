export { type StdioDeps, serveStdio } from "./serve.js";
