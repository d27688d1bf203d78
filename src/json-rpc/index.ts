export { messageShapeProblem } from "./message-shape.js";
