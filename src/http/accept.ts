/**
 * Whether an `Accept` header accepts `mediaType` (a `type/subtype` in lower case, without parameters), as
 * RFC 9110 (12.5.1) reads it: the most specific range that matches it (`type/subtype`, then `type/*`, then
 * `*\/*`) decides, and a weight of 0 refuses. Parameters other than `q` are not compared: an answer of this
 * server carries none that a client could ask otherwise. Media types are read in any case.
 */
export function acceptsMediaType(header: string, mediaType: string): boolean {
  const [type] = mediaType.split("/");
  let best: { readonly specificity: number; readonly weight: number } | undefined;
  for (const { range, weight } of rangesOf(header)) {
    const specificity = range === mediaType ? 3 : range === `${type}/*` ? 2 : range === "*/*" ? 1 : 0;
    if (specificity > 0 && (best === undefined || specificity > best.specificity))
      best = { specificity, weight };
  }
  return best !== undefined && best.weight > 0;
}

/** Each media range of an `Accept` header, in lower case, with its weight (1 when it has no valid `q`). */
function rangesOf(header: string): { readonly range: string; readonly weight: number }[] {
  return header.split(",").map((element) => {
    const [range = "", ...parameters] = element.split(";").map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => /^q\s*=/.test(parameter));
    const weight = q === undefined ? 1 : Number(q.slice(q.indexOf("=") + 1).trim());
    return { range, weight: Number.isNaN(weight) ? 1 : weight };
  });
}
