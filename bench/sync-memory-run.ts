/** The work of bench/sync-memory.ts (see there), loaded once its command line is read. */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/core/ext/skills";
import { createMcpHandler, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";

/** What the command line asked: the counts of each kind of skill, the large file's MiB, the entry to run. */
interface SyncMemoryOptions {
  readonly skills: number;
  readonly mib: number;
  readonly liars: number;
  readonly citing: number;
  /** The built dist/main.js to sync with, as an absolute path. */
  readonly main: string;
}

interface Served {
  readonly bytes: Buffer;
  readonly base64: string;
}

interface ServedCatalog {
  /** Each file's bytes by its URI. */
  readonly files: Map<string, Served>;
  /** The skills' entries, as skills/list gives them. */
  readonly entries: unknown[];
}

const PARTS = ["a", "b", "c", "d"];

const digest = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** The skills sync-memory.ts describes: large ones, liars, and ones citing pack files. */
function servedCatalog({ skills, mib, liars, citing }: SyncMemoryOptions): ServedCatalog {
  const large = Buffer.alloc(mib * 1024 * 1024);
  for (let index = 0; index < large.length; index++) large[index] = (index * 7919) % 251;
  const quarterBytes = large.subarray(0, large.length / PARTS.length);
  const quarter = { bytes: quarterBytes, base64: quarterBytes.toString("base64") };
  const lie = Buffer.alloc(16 * 1024 * 1024, 1);
  const lieClaim = Buffer.alloc(16, 1);
  const files = new Map<string, Served>();
  const entries: unknown[] = [];
  const serve = (uri: string, bytes: Buffer) => files.set(uri, { bytes, base64: bytes.toString("base64") });
  const largeBase64 = large.toString("base64");
  const lieBase64 = lie.toString("base64");
  for (let index = 0; index < skills + liars; index++) {
    const liar = index >= skills;
    const name = `${liar ? "liar" : "large"}-${String(index).padStart(2, "0")}`;
    const root = `skill://bench/${name}`;
    const manifest = Buffer.from(`---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`);
    serve(`${root}/SKILL.md`, manifest);
    files.set(
      `${root}/data.bin`,
      liar ? { bytes: lie, base64: lieBase64 } : { bytes: large, base64: largeBase64 },
    );
    const listed = liar ? lieClaim : large;
    entries.push({
      uri: `${root}/SKILL.md`,
      frontmatter: { name, description: `The ${name} skill.` },
      resources: [
        { uri: `${root}/SKILL.md`, digest: digest(manifest), size: manifest.length },
        { uri: `${root}/data.bin`, digest: digest(listed), size: listed.length },
      ],
    });
  }
  for (let index = 0; index < citing; index++) {
    const name = `citing-${String(index).padStart(2, "0")}`;
    const root = `skill://bench/${name}`;
    const manifest = Buffer.from(
      `---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\nSee ${PARTS.map((part) => `shared/${name}-${part}.bin`).join(", ")}.\n`,
    );
    serve(`${root}/SKILL.md`, manifest);
    // Pack files of its own, not ones the others share: each is read, and held until its skill is written.
    for (const part of PARTS) files.set(`skill://bench/shared/${name}-${part}.bin`, quarter);
    entries.push({
      uri: `${root}/SKILL.md`,
      frontmatter: { name, description: `The ${name} skill.` },
      resources: [{ uri: `${root}/SKILL.md`, digest: digest(manifest), size: manifest.length }],
    });
  }
  return { files, entries };
}

function mcpServer({ files, entries }: ServedCatalog): McpServer {
  const mcp = new McpServer({ name: "large", version: "1" });
  mcp.registerResource("skills", new ResourceTemplate("skill://{+path}", { list: undefined }), {}, (uri) => {
    const file = files.get(uri.href);
    if (file === undefined) throw new Error(`nothing at ${uri.href}`);
    return uri.href.endsWith(".md")
      ? { contents: [{ uri: uri.href, text: file.bytes.toString("utf8"), mimeType: "text/markdown" }] }
      : { contents: [{ uri: uri.href, blob: file.base64, mimeType: "application/octet-stream" }] };
  });
  const cache = { ttlMs: 0, cacheScope: "private" as const };
  mcp.server.setRequestHandler(SKILLS_LIST_METHOD, { params: ListSkillsRequestParamsSchema }, () => ({
    skills: entries,
    ...cache,
  }));
  mcp.server.setRequestHandler(SKILLS_GET_METHOD, { params: GetSkillRequestParamsSchema }, (params) => {
    const entry = entries.find((item) => (item as { uri: string }).uri === params.uri);
    if (entry === undefined) throw new Error(`no skill at ${params.uri}`);
    return { skill: entry, ...cache };
  });
  mcp.server.registerCapabilities({ extensions: { [SKILLS_EXTENSION_ID]: {} } });
  return mcp;
}

export async function main(options: SyncMemoryOptions): Promise<void> {
  const { skills, liars, citing } = options;
  const served = servedCatalog(options);
  const handler = createMcpHandler(() => mcpServer(served));
  const server = http.createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [key, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
      }
      const body = request.method === "POST" ? Buffer.concat(chunks) : undefined;
      const reply = await handler.fetch(
        new Request(`http://127.0.0.1${request.url}`, { method: request.method, headers, body }),
      );
      response.writeHead(reply.status, Object.fromEntries(reply.headers));
      if (reply.body !== null) {
        for await (const chunk of reply.body) {
          if (!response.write(chunk)) await new Promise((resolve) => response.once("drain", resolve));
        }
      }
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-sync-memory-"));

  try {
    const url = `http://127.0.0.1:${address.port}/mcp`;
    const child = spawn("/usr/bin/time", ["-v", process.execPath, options.main, "sync", url, "--to", dir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const started = performance.now();
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const seconds = (performance.now() - started) / 1000;
    const peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
    const said = stderr
      .split("\n")
      .filter((line) => /^\[\d+\/\d+\]|added|skipped/.test(line))
      .map((line) => `  ${line.slice(0, 160)}`);
    console.log(
      `${skills} skills of ${options.mib} MiB, ${liars} liars, ${citing} citing: peak RSS ${(peakKiB / 1024).toFixed(0)} MiB, ${seconds.toFixed(1)} s, exit ${status}`,
    );
    console.log(said.join("\n"));
    if (status !== 0) console.log(stderr.slice(0, 2000));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await handler.close();
    await rm(dir, { recursive: true, force: true });
  }
}
