export { ByteBudget } from "./byte-budget.js";
