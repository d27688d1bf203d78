export { isJsonObject, messageShapeProblem } from "./message-shape.js";
