export { firstNotBlank, holdsMoreAfterValue, JsonExtent } from "./json-extent.js";
export { isJsonObject, kindOf, messageShapeProblem } from "./message-shape.js";
