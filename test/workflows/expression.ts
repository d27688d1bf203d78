/**
 * The part of GitHub Actions' expression language the workflows' status texts use, evaluated over string
 * contexts: `${{ … }}` around string literals ('' for a quote), context names (`steps.audit.outputs.n`),
 * `==`, `!=`, `&&`, `||`, parentheses and `format('{0}…', …)`. Enough to read what a status says for a
 * count, not only how its expression is spelled.
 */
export function evaluate(expression: string, context: Readonly<Record<string, string>>): string {
  const inner = /^\$\{\{(.*)\}\}$/s.exec(expression)?.[1];
  if (inner === undefined) throw new Error(`not an expression: ${expression}`);
  const tokens = inner.match(/'(?:[^']|'')*'|[\w.-]+|==|!=|&&|\|\||[(),]|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`expected ${expected ?? "a token"} at ${at} in ${expression}`);
    return token;
  };
  const or = (): string => {
    let value = and();
    while (peek() === "||") {
      take();
      const right = and();
      value = value !== "" ? value : right;
    }
    return value;
  };
  const and = (): string => {
    let value = compare();
    while (peek() === "&&") {
      take();
      const right = compare();
      value = value === "" ? value : right;
    }
    return value;
  };
  const compare = (): string => {
    const left = primary();
    const operator = peek();
    if (operator !== "==" && operator !== "!=") return left;
    take();
    const equal = left === primary();
    // Actions' true and false, as strings: only the empty string is falsy here.
    return (operator === "==") === equal ? "true" : "";
  };
  const primary = (): string => {
    const token = take();
    if (token === "(") {
      const value = or();
      take(")");
      return value;
    }
    if (token.startsWith("'")) return token.slice(1, -1).replaceAll("''", "'");
    if (token === "format") {
      take("(");
      const args = [or()];
      while (peek() === ",") {
        take();
        args.push(or());
      }
      take(")");
      const [template = "", ...values] = args;
      return template.replace(/\{(\d+)\}/g, (_, index: string) => values[Number(index)] ?? "");
    }
    const value = context[token];
    if (value === undefined) throw new Error(`unknown context ${token} in ${expression}`);
    return value;
  };
  const value = or();
  if (at !== tokens.length) throw new Error(`trailing tokens in ${expression}`);
  return value;
}
