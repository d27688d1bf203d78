/** Request bodies of a realistic mix: every tool, some mistakes, and several client ceilings. */
interface LoadRequest {
  readonly method: "POST";
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const BASE_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function toolCall(
  id: number,
  name: string,
  args: Record<string, string>,
  extra: Record<string, string> = {},
) {
  return {
    method: "POST" as const,
    path: "/mcp",
    headers: { ...BASE_HEADERS, ...extra },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
  };
}

/** The mix for the standard test catalog (test/helpers/fixtures.ts). */
export const STANDARD_MIX: readonly LoadRequest[] = [
  toolCall(1, "list_skills", {}),
  toolCall(2, "read_skill", { skill: "hammer" }),
  toolCall(3, "list_skills", { query: "documentation" }, { "x-skill-pack": "beta" }),
  toolCall(4, "read_skill", { skill: "two", file: "references/guide.md" }),
  toolCall(5, "list_packs", {}, { "x-skill-pack": "alpha, gamma" }),
  toolCall(6, "read_pack_file", { pack: "beta", file: "shared/guide.md" }),
  toolCall(7, "read_skill", { skill: "drill" }, { "x-skill-pack": "gamma" }),
  toolCall(8, "read_skill", { skill: "no-such-skill" }),
];
