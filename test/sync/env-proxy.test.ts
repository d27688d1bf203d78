/**
 * Sync's requests go where Node's global fetch would send them: through the proxy of HTTP_PROXY/HTTPS_PROXY
 * (NO_PROXY excepted) when Node is told to use it (`NODE_USE_ENV_PROXY=1` or `--use-env-proxy`, Node 22.21
 * and 24.5 on), else straight to the server. Its connections are its own (see closed-connection.test.ts),
 * which went straight to the server whatever Node was told.
 */
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { proxyOfFailure } from "../../src/sync/connect-failure.js";
import { proxyFor, usesEnvProxy } from "../../src/sync/connection.js";
import { describeError } from "../../src/sync/describe-error.js";
import { MAIN } from "../helpers/process.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { type Served, serveCatalog, tempFolder } from "./helpers.js";

const execFileAsync = promisify(execFile);

/** A forward proxy on 127.0.0.1: requests in absolute form and CONNECT tunnels, counted. */
async function forwardProxy(): Promise<{
  readonly url: string;
  readonly requests: number;
  close(): Promise<void>;
}> {
  let requests = 0;
  const proxy = http.createServer((request, response) => {
    requests += 1;
    const target = new URL(request.url ?? "/");
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(forward);
  });
  proxy.on("connect", (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    requests += 1;
    const [host = "", port = ""] = (request.url ?? "").split(":");
    const upstream = net.connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    get requests() {
      return requests;
    },
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

let root: Awaited<ReturnType<typeof tempFolder>>;
let server: Served;
beforeAll(async () => {
  root = await tempFolder();
  const skills = path.join(root.dir, "skills");
  await writeTree(skills, { "team/review-code/SKILL.md": skillMd("review-code", "Review code changes.") });
  server = await serveCatalog(skills);
});
afterAll(async () => {
  await server.close();
  await root.remove();
});

/** The requests a sync run as a process, its environment holding `env` and none of the runner's proxy settings, sent through a proxy. */
async function proxiedRequests(env: (proxy: string) => Record<string, string>): Promise<number> {
  const proxy = await forwardProxy();
  try {
    const target = path.join(root.dir, `target-${Math.random().toString(36).slice(2)}`);
    const { stderr } = await execFileAsync(process.execPath, [...MAIN, "sync", server.url, "--to", target], {
      env: { ...ownEnv(), ...env(proxy.url) },
    });
    expect(stderr).toContain("1 added");
    return proxy.requests;
  } finally {
    await proxy.close();
  }
}

describe("sync and the environment's proxy", () => {
  it("sends its requests through HTTP_PROXY when NODE_USE_ENV_PROXY=1", async () => {
    expect(
      await proxiedRequests((proxy) => ({ NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy })),
    ).toBeGreaterThan(0);
  });

  it("sends none through it to a host NO_PROXY names", async () => {
    const env = (proxy: string) => ({ NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy, NO_PROXY: "127.0.0.1" });
    expect(await proxiedRequests(env)).toBe(0);
  });

  it("sends none through it when Node is not told to use it, as Node's fetch", async () => {
    expect(await proxiedRequests((proxy) => ({ HTTP_PROXY: proxy }))).toBe(0);
  });
});

/** A proxy on 127.0.0.1 that answers every request and CONNECT with 407 Proxy Authentication Required. */
async function demandingProxy(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const demand =
    'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
  const proxy = http.createServer((_, response) => {
    response.writeHead(407, { "Proxy-Authenticate": 'Basic realm="proxy"', Connection: "close" });
    response.end();
  });
  proxy.on("connect", (_: http.IncomingMessage, client: net.Socket) => {
    client.on("error", () => undefined);
    client.end(demand);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

/** A port of 127.0.0.1 that nothing listens on: one a server had, closed. */
async function closedPort(): Promise<number> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const address = holder.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  return address.port;
}

/** The environment of the tests' processes, without any of the runner's proxy settings. */
function ownEnv(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(https?_proxy|no_proxy|node_use_env_proxy|node_options)$/i.test(name),
    ),
  );
}

/**
 * What a sync from `url` into `target` (a new folder) run as a process told, failing, with `env` (and
 * none of the runner's proxy settings) and `args`.
 */
async function failedSync(
  env: Record<string, string>,
  {
    url = server.url,
    target = path.join(root.dir, `target-${Math.random().toString(36).slice(2)}`),
    args = [],
  }: { url?: string; target?: string; args?: readonly string[] } = {},
): Promise<{ code: number; stderr: string }> {
  const failure = await execFileAsync(process.execPath, [...MAIN, "sync", url, "--to", target, ...args], {
    env: { ...ownEnv(), ...env },
  }).then(
    () => undefined,
    (error: unknown) => error as { code: number; stderr: string },
  );
  if (failure === undefined) throw new Error("sync succeeded");
  return { code: failure.code, stderr: failure.stderr };
}

describe("sync through a proxy that fails", () => {
  it("names the proxy, without its password, when it asks for credentials (407)", async () => {
    const proxy = await demandingProxy();
    try {
      const withCredentials = proxy.url.replace("http://", "http://someone:secret@");
      const { code, stderr } = await failedSync({ NODE_USE_ENV_PROXY: "1", HTTP_PROXY: withCredentials });
      expect(code).toBe(2);
      expect(stderr).toContain(`through the proxy ${proxy.url}/ (HTTP_PROXY)`);
      expect(stderr).toContain("407");
      expect(stderr).toContain("check the user and password in HTTP_PROXY");
      expect(stderr).not.toContain("secret");
    } finally {
      await proxy.close();
    }
  });

  it("names the proxy when nothing listens at its port", async () => {
    const proxy = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await failedSync({ NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy });
    expect(code).toBe(2);
    expect(stderr).toContain(`through the proxy ${proxy}/ (HTTP_PROXY)`);
    expect(stderr).toContain(`nothing listens at the proxy's address, 127.0.0.1:`);
    expect(stderr).not.toContain(`check that the server runs`);
  });
});

/**
 * A proxy on 127.0.0.1 whose tunnels carry the requests before the first that holds `trigger`
 * (`'"method":"skills/list"'`), then fail: the tunnel is reset, or the proxy stops listening (`refuse`), or
 * it is closed and every tunnel asked for after is answered `status`, as a proxy that fails in the middle of
 * a run.
 */
async function failingProxy(
  trigger: string,
  failure: "reset" | "refuse" | number,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  let failing = false;
  const tunnels = new Set<net.Socket>();
  const proxy = http.createServer();
  proxy.on("connect", (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on("error", () => undefined);
    if (failing && typeof failure !== "number") {
      client.resetAndDestroy();
      return;
    }
    if (failing) {
      client.end(`HTTP/1.1 ${failure} Proxy Failure\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    tunnels.add(client);
    const [host = "", port = ""] = (request.url ?? "").split(":");
    const upstream = net.connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.on("data", (chunk: Buffer) => {
        if (!failing && !chunk.toString("utf8").includes(trigger)) {
          upstream.write(chunk);
          return;
        }
        failing = true;
        upstream.destroy();
        if (failure === "refuse") proxy.close();
        for (const tunnel of tunnels) {
          if (failure === "reset") tunnel.resetAndDestroy();
          else tunnel.destroy();
        }
      });
    });
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      for (const tunnel of tunnels) tunnel.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe("sync through a proxy that fails after the connection's start", () => {
  it.each<["reset" | "refuse" | number, string]>([
    ["reset", "ECONNRESET"],
    ["refuse", "ECONNREFUSED"],
    [502, "502"],
    [503, "503"],
    [407, "407"],
  ])("names the proxy when listing the skills meets %s", async (failure, told) => {
    const proxy = await failingProxy('"method":"skills/list"', failure);
    try {
      const { code, stderr } = await failedSync({ NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url });
      expect(code).toBe(2);
      expect(stderr).toContain(`cannot list the skills of ${server.url}`);
      expect(stderr).toContain(`through the proxy ${proxy.url}/ (HTTP_PROXY)`);
      expect(stderr).toContain(told);
    } finally {
      await proxy.close();
    }
  });
});

describe("sync through a proxy that fails while reading a skill's files", () => {
  const withCredentials = (proxy: string) => proxy.replace("http://", "http://someone:secret@");
  const cases: ["reset" | "refuse" | number, string, string][] = [
    ["reset", "ECONNRESET", "check the proxy HTTP_PROXY names, or name the server's host in NO_PROXY"],
    ["refuse", "ECONNREFUSED", "nothing listens at the proxy's address, 127.0.0.1:"],
    [502, "502", "the proxy would not open a connection to the server: check that the proxy can reach it"],
    [407, "407", "the proxy refused the credentials given: check the user and password in HTTP_PROXY"],
  ];

  it.each(cases)("names the proxy when reading SKILL.md meets %s", async (failure, told, hint) => {
    const proxy = await failingProxy('"method":"resources/read"', failure);
    try {
      const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: withCredentials(proxy.url) };
      const { code, stderr } = await failedSync(env);
      expect(code).toBe(1);
      expect(stderr).toContain(
        `review-code: skipped: reading skill://team/review-code/SKILL.md failed through the proxy ${proxy.url}/ (HTTP_PROXY): `,
      );
      expect(stderr).toContain(told);
      expect(stderr).toContain(hint);
      expect(stderr).not.toContain("secret");
    } finally {
      await proxy.close();
    }
  });

  it.each(cases)("names the proxy when reading a file it cites meets %s", async (failure, told, hint) => {
    const proxy = await failingProxy('"uri":"skill://team/shared/checklist.md"', failure);
    const skills = path.join(root.dir, `cites-${Math.random().toString(36).slice(2)}`);
    await writeTree(skills, {
      "team/cites/SKILL.md": skillMd("cites", "Cites a pack file.", "Follow shared/checklist.md."),
      "team/shared/checklist.md": "- [ ] tests\n",
    });
    const citing = await serveCatalog(skills);
    try {
      const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: withCredentials(proxy.url) };
      const { code, stderr } = await failedSync(env, { url: citing.url });
      expect(code).toBe(1);
      expect(stderr).toContain(
        `cites: skipped: reading skill://team/shared/checklist.md, a file it cites, failed through the proxy ${proxy.url}/ (HTTP_PROXY): `,
      );
      expect(stderr).toContain(told);
      expect(stderr).toContain(hint);
      expect(stderr).not.toContain("secret");
    } finally {
      await citing.close();
      await proxy.close();
    }
  });
});

describe("a check through a proxy that fails while reading a file a skill cites", () => {
  it.each<["reset" | 502, string]>([
    ["reset", "; check the proxy HTTP_PROXY names, or name the server's host in NO_PROXY"],
    [502, "; the proxy would not open a connection to the server"],
  ])("names the proxy, not the server, when it cannot tell, on %s", async (failure, hint) => {
    const skills = path.join(root.dir, `check-${Math.random().toString(36).slice(2)}`);
    await writeTree(skills, {
      "team/cites/SKILL.md": skillMd("cites", "Cites a pack file.", "Follow shared/checklist.md."),
      "team/shared/checklist.md": "- [ ] tests\n",
    });
    const citing = await serveCatalog(skills);
    const proxy = await failingProxy('"uri":"skill://team/shared/checklist.md"', failure);
    try {
      const target = `${skills}-target`;
      await execFileAsync(process.execPath, [...MAIN, "sync", citing.url, "--to", target], { env: ownEnv() });
      const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url };
      const { code, stderr } = await failedSync(env, { url: citing.url, target, args: ["--check"] });
      expect(code).toBe(2);
      expect(stderr).toContain(
        `cannot tell whether cites is up to date: reading skill://team/shared/checklist.md, a file it cites, failed through the proxy ${proxy.url}/ (HTTP_PROXY): `,
      );
      expect(stderr).toContain(hint);
      expect(stderr).toContain(", then try again");
      expect(stderr).not.toContain("try again when the server answers");
    } finally {
      await proxy.close();
      await citing.close();
    }
  });
});

describe("sync through a proxy that fails while reading the first of several skills", () => {
  it.each<["reset" | "refuse" | number, string]>([
    ["reset", "; check the proxy HTTP_PROXY names, or name the server's host in NO_PROXY"],
    ["refuse", "; nothing listens at the proxy's address, 127.0.0.1:"],
    [502, "; the proxy would not open a connection to the server"],
    [407, "; the proxy asks for credentials: give them in HTTP_PROXY"],
  ])("says no answer came through the proxy, not that the server stopped, on %s", async (failure, hint) => {
    const proxy = await failingProxy('"method":"resources/read"', failure);
    const skills = path.join(root.dir, `two-${Math.random().toString(36).slice(2)}`);
    await writeTree(skills, {
      "team/first/SKILL.md": skillMd("first", "The first skill."),
      "team/second/SKILL.md": skillMd("second", "The second skill."),
    });
    const two = await serveCatalog(skills);
    try {
      const { code, stderr } = await failedSync(
        { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url },
        { url: two.url },
      );
      expect(code).toBe(1);
      expect(stderr).toContain(`no answer came through the proxy ${proxy.url}/ (HTTP_PROXY) (`);
      expect(stderr).toContain(`: 1 more skill not fetched${hint}`);
      expect(stderr).toContain(", then run sync again");
      expect(stderr).not.toContain("the server stopped answering");
    } finally {
      await two.close();
      await proxy.close();
    }
  });
});

/** A JSON-RPC error, as a skills-mcp server shedding load answers 503 with. */
const OVER_LOAD = JSON.stringify({
  jsonrpc: "2.0",
  id: null,
  error: { code: -32000, message: "over its load limit" },
});

/**
 * What stands in front of the test's server (an ingress): it passes requests on, but answers `status` to
 * each that holds `trigger`, with `body` (and without the Retry-After that sync would wait for).
 */
async function answeringIngress(trigger: string, status: number, body = OVER_LOAD): Promise<Served> {
  const ingress = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const asked = Buffer.concat(chunks);
      if (asked.toString("utf8").includes(trigger)) {
        response.writeHead(status, { "Content-Type": "application/json" });
        response.end(body);
        return;
      }
      const forward = http.request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.end(asked);
    });
  });
  await new Promise<void>((resolve) => ingress.listen(0, "127.0.0.1", resolve));
  const address = ingress.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    port: address.port,
    close: async () => {
      ingress.closeAllConnections();
      await new Promise<void>((resolve) => ingress.close(() => resolve()));
    },
  };
}

// undici tunnels even an http:// server's requests through the proxy (CONNECT): a status answered in the
// tunnel is the server's, or its ingress's, not the proxy's, whose own refusal fails the tunnel.
describe("sync through a working proxy to a server that answers 502, 503 or 504", () => {
  it.each<[string, number, (url: string) => string]>([
    ['"method":"skills/list"', 503, (url) => `cannot list the skills of ${url}: `],
    ['"method":"skills/list"', 502, (url) => `cannot list the skills of ${url}: `],
    [
      '"method":"resources/read"',
      503,
      () => "review-code: skipped: reading skill://team/review-code/SKILL.md failed: ",
    ],
    [
      '"method":"resources/read"',
      504,
      () => "review-code: skipped: reading skill://team/review-code/SKILL.md failed: ",
    ],
  ])("tells it as the server's, not the proxy's, when %s meets %s", async (trigger, status, told) => {
    const front = await answeringIngress(trigger, status);
    const proxy = await forwardProxy();
    try {
      const { stderr } = await failedSync(
        { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url },
        { url: front.url },
      );
      expect(proxy.requests).toBeGreaterThan(0);
      expect(stderr).toContain(
        `${told(front.url)}Error POSTing to endpoint (HTTP ${status}): over its load limit`,
      );
      expect(stderr).not.toContain("proxy");
    } finally {
      await proxy.close();
      await front.close();
    }
  });

  // Regression: at the connection's start, a status the server answered through the tunnel was told as
  // `cannot connect to <url> through the proxy http://127.0.0.1:…/ (HTTP_PROXY): …`.
  it.each([502, 503])("tells a %s answered at the connection's start as the server's", async (status) => {
    const front = await answeringIngress('"jsonrpc"', status);
    const proxy = await forwardProxy();
    try {
      const { code, stderr } = await failedSync(
        { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url },
        { url: front.url },
      );
      expect(proxy.requests).toBeGreaterThan(0);
      expect(code).toBe(2);
      expect(stderr).toContain(`cannot connect to ${front.url}: `);
      expect(stderr).toContain(`HTTP ${status}`);
      expect(stderr).not.toContain("proxy");
    } finally {
      await proxy.close();
      await front.close();
    }
  });

  // An ingress's error page was quoted whole, markup and line breaks, on every line of the run.
  it("names an HTML page it was answered with by its title, not its markup", async () => {
    const page =
      "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    const front = await answeringIngress('"method":"skills/list"', 503, page);
    const proxy = await forwardProxy();
    try {
      const { stderr } = await failedSync(
        { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url },
        { url: front.url },
      );
      expect(stderr).toContain(
        `cannot list the skills of ${front.url}: Error POSTing to endpoint (HTTP 503): an HTML page titled "503 Service Temporarily Unavailable"\n`,
      );
      expect(stderr).not.toContain("<");
    } finally {
      await proxy.close();
      await front.close();
    }
  });

  it("says the status of an answer with an empty body", async () => {
    const front = await answeringIngress('"method":"skills/list"', 503, "");
    const proxy = await forwardProxy();
    try {
      const { stderr } = await failedSync(
        { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url },
        { url: front.url },
      );
      expect(stderr).toContain(
        `cannot list the skills of ${front.url}: Error POSTing to endpoint (HTTP 503)\n`,
      );
    } finally {
      await proxy.close();
      await front.close();
    }
  });
});

/**
 * A server that serves `review-code` alone at the URL of one that also served `gone`, and the folder a
 * sync from the first filled: `gone` is a skill sync installed that the listing now leaves out.
 */
async function goneFromListing(): Promise<{ readonly server: Served; readonly target: string }> {
  const skills = path.join(root.dir, `gone-${Math.random().toString(36).slice(2)}`);
  await writeTree(skills, {
    "team/review-code/SKILL.md": skillMd("review-code", "Review code changes."),
    "team/gone/SKILL.md": skillMd("gone", "Served no more."),
  });
  const before = await serveCatalog(skills);
  const target = `${skills}-target`;
  try {
    await execFileAsync(process.execPath, [...MAIN, "sync", before.url, "--to", target], { env: ownEnv() });
  } finally {
    await before.close();
  }
  await rm(path.join(skills, "team", "gone"), { recursive: true });
  return { server: await serveCatalog(skills, before.port), target };
}

describe("sync through a proxy that fails while asking whether the server still serves a skill it left out", () => {
  // skills/get asks for the skill by its URI; the server saying it serves nothing there, read_skill asks
  // whether its tools still serve it.
  const cases: [string, "reset" | 502, string][] = [
    [
      '"method":"skills/get"',
      "reset",
      "; check the proxy HTTP_PROXY names, or name the server's host in NO_PROXY",
    ],
    ['"method":"skills/get"', 502, "; the proxy would not open a connection to the server"],
    [
      '"name":"read_skill"',
      "reset",
      "; check the proxy HTTP_PROXY names, or name the server's host in NO_PROXY",
    ],
    ['"name":"read_skill"', 502, "; the proxy would not open a connection to the server"],
  ];

  it.each(cases)("names the proxy in the skip when %s meets %s", async (trigger, failure, hint) => {
    const { server: gone, target } = await goneFromListing();
    const proxy = await failingProxy(trigger, failure);
    try {
      const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url };
      const { code, stderr } = await failedSync(env, { url: gone.url, target });
      expect(code).toBe(1);
      expect(stderr).toContain(
        `gone: skipped: no answer came through the proxy ${proxy.url}/ (HTTP_PROXY) to whether the server still serves it (`,
      );
      expect(stderr).toContain(`): left alone${hint}`);
      expect(stderr).not.toContain("the server could not say");
    } finally {
      await proxy.close();
      await gone.close();
    }
  });

  it.each(cases)(
    "names the proxy when a check cannot tell, when %s meets %s",
    async (trigger, failure, hint) => {
      const { server: gone, target } = await goneFromListing();
      const proxy = await failingProxy(trigger, failure);
      try {
        const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url };
        const { code, stderr } = await failedSync(env, { url: gone.url, target, args: ["--check"] });
        expect(code).toBe(2);
        expect(stderr).toContain(
          `cannot tell whether gone is up to date: no answer came through the proxy ${proxy.url}/ (HTTP_PROXY) to whether the server still serves it (`,
        );
        expect(stderr).toContain(`)${hint}`);
        expect(stderr).toContain(", then try again");
        expect(stderr).not.toContain("try again when the server answers");
      } finally {
        await proxy.close();
        await gone.close();
      }
    },
  );
});

describe("a failure after the connection's start, through the proxy", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const server = new URL("http://skills.example/mcp");
  const reading = (cause: Error) => new Error("reading skill://team/a/SKILL.md failed", { cause });

  it.each<[string, Error, string]>([
    [
      "names the proxy when no answer came",
      reading(new TypeError("fetch failed", { cause: new Error("read ECONNRESET") })),
      " through the proxy http://p:1/ (HTTP_PROXY)",
    ],
    // A file the server lists and then cannot read: its own error, which the proxy only carried.
    [
      "names none for a JSON-RPC error the server answered",
      reading(new ProtocolError(-32603, "skill://team/a/SKILL.md could not be read inside the server")),
      "",
    ],
    // The SDK's error for an HTTP status, which came through the proxy's tunnel: the server's.
    [
      "names none for a 503 the server answered",
      reading(
        Object.assign(new Error("Error POSTing to endpoint: over its load limit"), { data: { status: 503 } }),
      ),
      "",
    ],
    [
      "names it when it would not open the tunnel (502)",
      reading(
        new TypeError("fetch failed", {
          cause: new Error("Proxy response (502) !== 200 when HTTP Tunneling"),
        }),
      ),
      " through the proxy http://p:1/ (HTTP_PROXY)",
    ],
  ])("%s", (_, error, through) => {
    for (const name of ["HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy", "NODE_OPTIONS"]) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv("NODE_USE_ENV_PROXY", "1");
    vi.stubEnv("HTTP_PROXY", "http://p:1");
    expect(proxyOfFailure(server, error, describeError(error)).through).toBe(through);
  });
});

describe("sync through a proxy named without its scheme", () => {
  it("says to give the proxy as a URL", async (context) => {
    const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: "proxy.example:3128" };
    // Node 22.21 and 24.5 on, told to use the proxy, refuse such a variable as they start: sync never runs.
    const nodeRefuses = await execFileAsync(process.execPath, ["-e", ""], {
      env: { ...process.env, ...env },
    }).then(
      () => false,
      () => true,
    );
    if (nodeRefuses) context.skip();
    const { code, stderr } = await failedSync(env);
    expect(code).toBe(2);
    expect(stderr).toContain("through the proxy proxy.example:3128 (HTTP_PROXY)");
    expect(stderr).toContain("give HTTP_PROXY as a URL, as http://proxy.example:3128");
  });
});

describe("whether Node sends fetch through the environment's proxy", () => {
  const proxy = { HTTP_PROXY: "http://proxy.example:3128" };
  it.each<[string, NodeJS.ProcessEnv, string[], boolean]>([
    ["NODE_USE_ENV_PROXY=1", { ...proxy, NODE_USE_ENV_PROXY: "1" }, [], true],
    ["NODE_USE_ENV_PROXY=true (not 1)", { ...proxy, NODE_USE_ENV_PROXY: "true" }, [], false],
    ["no proxy named", { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: "" }, [], false],
    ["https_proxy alone", { https_proxy: "http://proxy.example:3128", NODE_USE_ENV_PROXY: "1" }, [], true],
    ["--use-env-proxy on the command line", proxy, ["--use-env-proxy"], true],
    [
      "--use-env-proxy in NODE_OPTIONS",
      { ...proxy, NODE_OPTIONS: "--max-old-space-size=512 --use-env-proxy" },
      [],
      true,
    ],
    [
      "--no-use-env-proxy over NODE_USE_ENV_PROXY=1",
      { ...proxy, NODE_USE_ENV_PROXY: "1" },
      ["--no-use-env-proxy"],
      false,
    ],
    [
      "the command line over NODE_OPTIONS",
      { ...proxy, NODE_OPTIONS: "--use-env-proxy" },
      ["--no-use-env-proxy"],
      false,
    ],
    [
      "the last flag of NODE_OPTIONS",
      { ...proxy, NODE_OPTIONS: "--use-env-proxy --no-use-env-proxy" },
      [],
      false,
    ],
    ["neither", proxy, [], false],
    // Node 24.22, 22.21 and 22.23 take any `--use-env-proxy=<value>` for "on" and any
    // `--no-use-env-proxy=<value>` for "off".
    ["--use-env-proxy=false on the command line", proxy, ["--use-env-proxy=false"], true],
    ["--use-env-proxy=0 in NODE_OPTIONS", { ...proxy, NODE_OPTIONS: "--use-env-proxy=0" }, [], true],
    [
      "--no-use-env-proxy=true over NODE_USE_ENV_PROXY=1",
      { ...proxy, NODE_USE_ENV_PROXY: "1" },
      ["--no-use-env-proxy=true"],
      false,
    ],
    [
      "--no-use-env-proxy=false over NODE_USE_ENV_PROXY=1",
      { ...proxy, NODE_USE_ENV_PROXY: "1" },
      ["--no-use-env-proxy=false"],
      false,
    ],
    ["--use-env-proxy= after --no-use-env-proxy", proxy, ["--no-use-env-proxy", "--use-env-proxy="], true],
    // Node takes underscores for dashes in its options' names.
    ["--use_env_proxy", proxy, ["--use_env_proxy"], true],
    [
      "--no-use_env-proxy in NODE_OPTIONS",
      { ...proxy, NODE_USE_ENV_PROXY: "1", NODE_OPTIONS: "--no-use_env-proxy" },
      [],
      false,
    ],
    // NODE_OPTIONS is split at spaces outside double quotes, which may stand anywhere; inside them, a
    // backslash escapes the character after it.
    [
      "a flag inside a quoted value of NODE_OPTIONS",
      { ...proxy, NODE_OPTIONS: '--use-env-proxy --title="a --no-use-env-proxy b"' },
      [],
      true,
    ],
    ["quotes within a flag of NODE_OPTIONS", { ...proxy, NODE_OPTIONS: '--use"-env-"proxy' }, [], true],
    [
      "an escaped quote inside quotes in NODE_OPTIONS",
      { ...proxy, NODE_OPTIONS: '--no-use-env-proxy --title="a \\" --use-env-proxy b"' },
      [],
      false,
    ],
    [
      "a backslash outside quotes in NODE_OPTIONS",
      { ...proxy, NODE_OPTIONS: "--use-env-proxy --title=a\\ --no-use-env-proxy" },
      [],
      false,
    ],
  ])("%s", (_, env, execArgv, uses) => {
    expect(usesEnvProxy(env, execArgv)).toBe(uses);
  });
});

describe("the proxy a request to the server goes through", () => {
  const on = { NODE_USE_ENV_PROXY: "1" };
  it.each<[string, string, NodeJS.ProcessEnv, string | undefined]>([
    [
      "HTTP_PROXY for http",
      "http://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1" },
      "http://p:1/ (HTTP_PROXY)",
    ],
    [
      "http_proxy over HTTP_PROXY",
      "http://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1", http_proxy: "http://q:2" },
      "http://q:2/ (http_proxy)",
    ],
    [
      "HTTPS_PROXY for https",
      "https://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1", HTTPS_PROXY: "http://s:3" },
      "http://s:3/ (HTTPS_PROXY)",
    ],
    [
      "HTTP_PROXY for https when no HTTPS_PROXY",
      "https://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1" },
      "http://p:1/ (HTTP_PROXY)",
    ],
    [
      "none for http with HTTPS_PROXY alone",
      "http://skills.example/mcp",
      { ...on, HTTPS_PROXY: "http://s:3" },
      undefined,
    ],
    [
      "without its user and password",
      "http://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://me:secret@p:1" },
      "http://p:1/ (HTTP_PROXY)",
    ],
    [
      "one without its scheme, without its user and password",
      "http://skills.example/mcp",
      { ...on, HTTP_PROXY: "me:secret@p:1" },
      "p:1 (HTTP_PROXY)",
    ],
    [
      "none when Node is not told to use it",
      "http://skills.example/mcp",
      { HTTP_PROXY: "http://p:1" },
      undefined,
    ],
    [
      "none for a host NO_PROXY names",
      "http://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1", NO_PROXY: "other.example, skills.example" },
      undefined,
    ],
    [
      "none for a subdomain of one NO_PROXY names",
      "http://a.skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1", NO_PROXY: ".skills.example" },
      undefined,
    ],
    [
      "one where NO_PROXY names another port",
      "http://skills.example:8080/mcp",
      { ...on, HTTP_PROXY: "http://p:1", NO_PROXY: "skills.example:80" },
      "http://p:1/ (HTTP_PROXY)",
    ],
    [
      "none for NO_PROXY=*",
      "http://skills.example/mcp",
      { ...on, HTTP_PROXY: "http://p:1", no_proxy: "*" },
      undefined,
    ],
  ])("%s", (_, url, env, proxy) => {
    const found = proxyFor(new URL(url), env, []);
    expect(found === undefined ? undefined : `${found.url} (${found.variable})`).toBe(proxy);
  });
});
