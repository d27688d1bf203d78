import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { constants } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { Client, deserializeMessage } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../scripts/free-port.js";
import { USAGE } from "../src/config/index.js";
import { MAX_HELD_BYTES } from "../src/log-output.js";
import { makeStandardCatalog, type StandardCatalog } from "./helpers/fixtures.js";
import {
  canRunAsPid1,
  logLines,
  MAIN,
  outputOf,
  pidOf,
  ROOT,
  runServer,
  startServerProcess,
  stdioServerProcess,
} from "./helpers/process.js";
import { THE_FOUR_TOOLS } from "./helpers/server.js";
import { makeTree, skillMd } from "./helpers/skill-tree.js";
import { makeUnreadableFolder } from "./helpers/unreadable-folder.js";

const asPid1 = await canRunAsPid1();

let tree: StandardCatalog;
beforeAll(async () => {
  tree = await makeStandardCatalog();
});
afterAll(() => tree.remove());

describe("refusing to start", () => {
  it("exits 1 with one line when the skills folder is missing", async () => {
    const result = await runServer({ SKILLS_DIR: "/nonexistent/skills" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "skills-mcp: Skills folder /nonexistent/skills does not exist or is not a folder\n",
    );
    // Not a line of a start that goes on to build the index.
    expect(logLines(result.stdout).map((line) => line.msg)).toEqual([]);
  });

  // Regression: a warning that the saved index "cannot be read: a part of its path is a file" came first.
  it("exits 1 with one line when the skills folder is a file", async () => {
    const file = path.join(tree.dir, "SKILLS.md");
    await writeFile(file, "not a folder\n");
    const result = await runServer({ SKILLS_DIR: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`skills-mcp: Skills folder ${file} is a file, not a folder\n`);
    expect(logLines(result.stdout).map((line) => line.msg)).toEqual([]);
  });

  // Regression: a desktop client's configuration with a relative SKILLS_DIR started the server in a working
  // folder of the client's choosing, and the message named a folder there without saying why it was looked
  // for there.
  it("says that a relative SKILLS_DIR is read from the working folder, when it names no folder there", async () => {
    const result = await runServer({ SKILLS_DIR: "no-such-skills" }, ["--stdio"], tree.dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `skills-mcp: Skills folder ${path.join(tree.dir, "no-such-skills")} does not exist or is not a folder: SKILLS_DIR is a relative path, read from the working folder ${tree.dir}, which a client that starts the server chooses; give an absolute path\n`,
    );
  });

  it("exits 1 when no skill is valid", async () => {
    const empty = await makeTree({ "p/broken/SKILL.md": "no frontmatter" });
    try {
      const result = await runServer({ SKILLS_DIR: empty.dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^skills-mcp: No valid skill in .*; p\/broken: no frontmatter.*\n$/);
    } finally {
      await empty.remove();
    }
  });

  // Regression: SKILLS_DIR=/dev said of stdout and stderr "it vanished while the catalog was loaded": their
  // links lead to pipes, which realpath spells `…/fd/pipe:[…]`, a path that names nothing.
  it("says nothing vanished of links that lead to pipes", async () => {
    const links = await makeTree({
      "p/broken/SKILL.md": "no frontmatter",
      out: { symlink: "/proc/self/fd/1" },
      err: { symlink: "/proc/self/fd/2" },
    });
    try {
      const result = await runServer({ SKILLS_DIR: links.dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^skills-mcp: No valid skill in [^;]*; p\/broken: no frontmatter[^;]*; p: [^;]*\n$/,
      );
    } finally {
      await links.remove();
    }
  });

  it("exits 1 when SKILL_PACKS names nothing, listing the valid selectors", async () => {
    const result = await runServer({ SKILLS_DIR: tree.skillsDir, SKILL_PACKS: "alpha,nope" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^skills-mcp: SKILL_PACKS: Unknown pack or group "nope"\. Valid selectors: alpha, beta, .*\n$/,
    );
  });

  it("exits 1 when SKILL_PACKS holds only commas, rather than load every pack", async () => {
    const result = await runServer({ SKILLS_DIR: tree.skillsDir, SKILL_PACKS: "," });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^skills-mcp: SKILL_PACKS "," names no pack or group, only commas and spaces: /,
    );
  });

  it("exits 1 on a bad setting, naming what is valid", async () => {
    const result = await runServer({ SKILLS_DIR: tree.skillsDir, PORT: "eighty", LOG_LEVEL: "loud" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'skills-mcp: PORT "eighty" is not a port number (0-65535); LOG_LEVEL "loud" is not one of fatal, error, warn, info, debug, trace, silent\n',
    );
  });

  // A value holding a line break or a terminal escape was written raw: the reason took two lines, or
  // recoloured the terminal, as the scripts' lines (which escape it) never did.
  it("says a setting's value with what no reader sees escaped, on one line", async () => {
    const result = await runServer({
      SKILLS_DIR: `${tree.skillsDir}\nmissing`,
      LOG_LEVEL: "info\u001b[31m",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'skills-mcp: LOG_LEVEL "info{U+001B}[31m" is not one of fatal, error, warn, info, debug, trace, silent\n',
    );
    const missing = await runServer({ SKILLS_DIR: `${tree.skillsDir}\nmissing` });
    expect(missing.stderr).toBe(
      `skills-mcp: Skills folder ${tree.skillsDir}{U+000A}missing does not exist or is not a folder\n`,
    );
  });

  it("exits 1 with one line when its port is taken or its host is not an address", async () => {
    const taken = await startServerProcess({ SKILLS_DIR: tree.skillsDir });
    try {
      const port = new URL(taken.url).port;
      const second = await runServer({ SKILLS_DIR: tree.skillsDir, HOST: "127.0.0.1", PORT: port });
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(
        `skills-mcp: Cannot listen on 127.0.0.1:${port}: another process listens on that port (EADDRINUSE); set PORT to a free one.\n`,
      );
    } finally {
      taken.child.kill("SIGTERM");
      await taken.exited;
    }
    const nowhere = await runServer({ SKILLS_DIR: tree.skillsDir, HOST: "999.1.1.1", PORT: "0" });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(
      /^skills-mcp: Cannot listen on 999\.1\.1\.1:0: HOST (is neither|could not be resolved) .*\n$/,
    );
    // A name longer than DNS allows was a stack trace, with the value's escape and line break raw.
    const long = `a\u001b[31m\nb${"0".repeat(300)}`;
    const garbled = await runServer({ SKILLS_DIR: tree.skillsDir, HOST: long, PORT: "0" });
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toBe(
      `skills-mcp: Cannot listen on a{U+001B}[31m{U+000A}b${"0".repeat(300)}:0: HOST is no address or name this machine can listen on (EINVAL); set it to an IP address (0.0.0.0, ::, 127.0.0.1).\n`,
    );
  });

  // The server alone passed on Node's parseArgs texts ("Unknown option '--bogus'", three lines on a --pack
  // followed by an option), where the scripts and `sync` say what was wrong and what is valid.
  // It exited 1, where `skills-mcp sync`, fetch-skills and every script exit 2 for a wrong command line.
  it("exits 2 on a wrong command line with one line saying what was wrong and the valid options", async () => {
    const valid = "valid: --stdio, --build-index, --steering, --pack, --version, --help (-h)";
    const cases: [string[], string][] = [
      [["--bogus"], `unknown option --bogus; ${valid}`],
      [["serve"], `unexpected argument "serve": only options are taken; ${valid}`],
      // A mistyped command was told only the server's options, never that `sync` is one.
      [
        ["sycn", "http://127.0.0.1:1/mcp", "--to", "x"],
        `unexpected argument "sycn": did you mean sync? (skills-mcp sync --help); ${valid}`,
      ],
      [["Sync"], `unexpected argument "Sync": did you mean sync? (skills-mcp sync --help); ${valid}`],
      [["--steering", "--pack"], "--pack needs a value"],
      [
        ["--steering", "--pack", "--stdio"],
        '--pack needs a value, and the next word is an option (write --pack=VALUE for a value that starts with "-")',
      ],
      [["--stdio=yes"], "--stdio takes no value"],
      [["--pack", "p"], "--pack narrows --steering; to narrow what the server loads, set SKILL_PACKS"],
    ];
    for (const [args, said] of cases) {
      const result = await runServer({ SKILLS_DIR: tree.skillsDir }, args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stderr: `skills-mcp: ${said}\n`,
      });
    }
  });

  it("prints usage for --help", async () => {
    const result = await runServer({}, ["--help"]);
    expect(result.code).toBe(0);
    // The usage whole and alone, on stdout (its words are config.test.ts's to check).
    expect(result.stdout).toBe(`${USAGE}\n`);
    expect(result.stderr).toBe("");
  });
});

describe("serving over HTTP", () => {
  it("serves the bundled examples when there is no SKILLS_DIR and no ./skills, saying so", async () => {
    const empty = await makeTree({ "readme.txt": "no skills folder here" });
    const server = await startServerProcess({ SKILLS_DIR: "" }, empty.dir);
    try {
      const health = (await (await fetch(`${server.url}/health`)).json()) as { packs: string[] };
      expect(health.packs).toEqual(["design", "workflows"]);
      expect(server.output()).toContain("serving the bundled examples");
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      await empty.remove();
    }
  });

  // The only URL logged was Fastify's "Server listening at http://127.0.0.1:8000", which users pasted into
  // their clients without /mcp.
  it("names the MCP endpoint's URL in its ready line, a wildcard address as loopback", async () => {
    for (const host of ["127.0.0.1", "0.0.0.0"]) {
      const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, HOST: host });
      try {
        await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
        const ready = logLines(server.output()).find((line) => line.msg === "ready");
        expect(ready?.mcp, host).toBe(`${server.url}/mcp`);
        expect((await fetch(`${ready?.mcp}`, { method: "GET" })).status).toBe(405);
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    }
  });

  it("works out the previews after it listens, while it already serves, and says so", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir });
    try {
      await vi.waitFor(() => expect(server.output()).toContain('"msg":"previews worked out"'));
      const lines = logLines(server.output());
      const ready = lines.findIndex((line) => line.msg === "ready");
      const worked = lines.findIndex((line) => line.msg === "previews worked out");
      expect(ready).toBeGreaterThanOrEqual(0);
      expect(worked).toBeGreaterThan(ready);
      expect(lines[worked]?.ms).toEqual(expect.any(Number));
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  // Regression (issue 24): a file name that is not UTF-8, an unreadable file, folder or SKILL.md, or
  // folders nested past PATH_MAX each made the server refuse to start, with a stack trace.
  it("starts on a folder with entries it cannot read, warning about each, and serves the rest", async () => {
    const folder = await makeUnreadableFolder();
    const server = await startServerProcess({ SKILLS_DIR: folder.dir }, ROOT, folder.user);
    try {
      await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
      const warnings = logLines(server.output()).filter((line) => line.level === 40);
      expect(warnings.map((line) => [line.path, line.reason])).toEqual(
        expect.arrayContaining([
          ["p/ok/caf\\xe9.txt", "its name is not UTF-8, so no client could ask for it"],
          ["p/closed", "SKILL.md cannot be read: permission denied (EACCES)"],
          ["p/ok/locked", "folder cannot be read: permission denied (EACCES)"],
          ["p/ok/secret.md", "cannot be read: permission denied (EACCES)"],
          [expect.stringMatching(/^p\/ok\/deep\//), expect.stringContaining("(ENAMETOOLONG)")],
        ]),
      );
      const reply = await postCall(server.url, "p", {
        name: "read_skill",
        arguments: { skill: "ok", file: "_manifest" },
      });
      expect(await reply.text()).toContain("notes.md (8 B)");
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      folder.remove();
    }
  });

  // A server on port 6665 started and served, but no fetch-based client (Claude Code, n8n, sync) reached
  // it: each refused the port before connecting, and the server logged no request to say why.
  it("warns that fetch-based clients cannot reach a port the Fetch standard blocks", async (context) => {
    const port = await firstFreePort([6665, 6666, 6667, 6668, 6669, 6679, 6697]);
    // Reported as skipped, not passed: nothing was checked.
    if (port === undefined) return context.skip("every port the Fetch standard blocks is taken here");
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, PORT: String(port) });
    try {
      await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
      expect(logLines(server.output())).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: expect.stringMatching(new RegExp(`^PORT ${port} is one that browsers and fetch refuse`)),
        }),
      );
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  // Regression: the start read sources.json and the saved index with a blocking open, so a FIFO in the
  // place of either kept it waiting for a writer for good, before it listened or heeded SIGTERM.
  it("starts on a folder whose sources.json and saved index are FIFOs, warning about each", async () => {
    const folder = await makeTree({ "p/ok/SKILL.md": skillMd("ok", "Served beside two FIFOs.") });
    try {
      for (const name of ["sources.json", ".search-index"]) {
        execFileSync("mkfifo", [path.join(folder.dir, name)]);
      }
      const server = await startServerProcess({ SKILLS_DIR: folder.dir });
      try {
        await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
        const warnings = logLines(server.output()).filter((line) => line.level === 40);
        expect(warnings).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ path: "sources.json", reason: "ignored: it is not a regular file" }),
            expect.objectContaining({
              msg: "saved index cannot be read: building the index",
              problem: "cannot be read: it is not a regular file",
            }),
          ]),
        );
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    } finally {
      await folder.remove();
    }
  });

  // It was ignored without a word: /health named no commit, and nothing said why.
  it("warns once of a sources.json it may not read, and serves the skills", async () => {
    const folder = await makeTree({
      "p/ok/SKILL.md": skillMd("ok", "Served beside a sources.json of mode 000."),
      "sources.json": JSON.stringify({ sources: [{ name: "p", ref: "a".repeat(40) }] }),
    });
    // Root reads any file: the server runs as nobody then, and must be able to enter the folder.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    try {
      await chmod(path.join(folder.dir, "sources.json"), 0o000);
      await chmod(folder.dir, 0o755);
      const server = await startServerProcess({ SKILLS_DIR: folder.dir }, ROOT, user);
      try {
        await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
        const about = logLines(server.output()).filter((line) => line.path === "sources.json");
        expect(about.map((line) => [line.level, line.msg])).toEqual([
          [40, "sources.json: ignored: it cannot be read: permission denied (EACCES)"],
        ]);
        expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({ skills: 1 });
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    } finally {
      await folder.remove();
    }
  });

  it("loads only SKILL_PACKS, and logs each failed request with the tool and the scope", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, SKILL_PACKS: "beta/tools,gamma" });
    try {
      const health = (await (await fetch(`${server.url}/health`)).json()) as {
        packs: string[];
        skills: number;
      };
      expect(health).toMatchObject({ packs: ["beta", "gamma"], skills: 3 });
      await postCall(server.url, "gamma", { name: "list_packs" });
      await postCall(server.url, "gamma", { name: "read_skill", arguments: { skill: "no-such-skill" } });
      await vi.waitFor(() => expect(server.output()).toContain('"msg":"request"'));
      // At info, answers are counted in /metrics, not logged; the failure is.
      expect(requestLines(server.output())).toEqual([
        expect.objectContaining({
          level: 30,
          rpc: "tools/call",
          tool: "read_skill",
          scope: "query=gamma",
          status: 200,
        }),
      ]);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("warns at start about a variable one slip from a setting", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, SKILL_PACK: "gamma" });
    try {
      expect(logLines(server.output())).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: "SKILL_PACK is not a setting, and is ignored: did you mean SKILL_PACKS?",
        }),
      );
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  // Regression: a SHED_RSS_MB below what the server holds once ready shed every /mcp request for good,
  // while /health kept the replica ready, and nothing said why.
  it("warns at start of a SHED_RSS_MB below what it holds once ready, which would shed every request", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, SHED_RSS_MB: "1" });
    try {
      await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
      expect(logLines(server.output())).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: expect.stringMatching(
            /^SHED_RSS_MB 1 is below the \d+ MiB the server holds once ready: \/mcp answers every request 503/,
          ),
        }),
      );
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("logs every request at LOG_LEVEL=debug", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, LOG_LEVEL: "debug" });
    try {
      await postCall(server.url, "gamma", { name: "list_packs" });
      await vi.waitFor(() => expect(requestLines(server.output())).toHaveLength(1));
      expect(requestLines(server.output())[0]).toMatchObject({
        level: 20,
        tool: "list_packs",
        scope: "query=gamma",
        status: 200,
      });
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("exits cleanly and promptly on SIGTERM", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir });
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    // Promptly: it stopped once the drain ended, with nothing left to wait for, not at the grace period's end.
    expect(stopLines(server.output())).toEqual(STOPPED_AFTER_DRAIN);
    // Its last line says it stopped, and what the stop took: a log ending at "closing" could be a hang.
    expect(logLines(server.output()).at(-1)).toMatchObject({
      msg: "stopped",
      signal: "SIGTERM",
      ms: expect.any(Number),
    });
  });

  // SIGINT still had its listener after a SIGTERM, so Ctrl-C during the drain did nothing until it ran out.
  it("ends at once on Ctrl-C while it drains after SIGTERM, as a second signal does", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, SHUTDOWN_DRAIN_MS: "60000" });
    let ended: NodeJS.Signals | null | undefined;
    server.child.on("close", (_code, signal) => {
      ended = signal;
    });
    try {
      server.child.kill("SIGTERM");
      await vi.waitFor(() => expect(server.output()).toContain("shutting down"));
      server.child.kill("SIGINT");
      await vi.waitFor(() => expect(ended).toBe("SIGINT"), { timeout: 10_000 });
      // Regression: it ended without a word, so the log stopped at "shutting down" and read as a hang.
      const last = logLines(server.output()).at(-1);
      expect([last?.level, last?.signal, last?.msg]).toEqual([
        40,
        "SIGINT",
        "stopping at once on a second stop signal; requests in flight are cut off",
      ]);
    } finally {
      server.child.kill("SIGKILL");
    }
  });
});

describe("shutting down with a request in flight", () => {
  it("closes that request's connection once answered, and exits 0 without waiting out the grace", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, SHUTDOWN_DRAIN_MS: "300" });
    const agent = new http.Agent({ keepAlive: true });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const request = http.request(`${server.url}/mcp`, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
      },
    });
    request.write(body.slice(0, 10));
    await sleep(300);
    server.child.kill("SIGTERM");
    // Past the drain: the server is closing while the request's body is still on its way.
    await sleep(600);
    request.end(body.slice(10));
    const [response] = (await once(request, "response")) as [http.IncomingMessage];
    response.resume();
    expect(response.statusCode).toBe(200);
    expect(response.headers.connection).toBe("close");
    expect(await server.exited).toBe(0);
    expect(stopLines(server.output())).toEqual(STOPPED_AFTER_DRAIN);
    agent.destroy();
  });
});

describe("shutting down with a request its client never finishes", () => {
  // Regression (issue 24): a client that sent half a request turned a rolling restart into exit 1.
  it("closes that connection once the grace runs out, says so, and exits 0", async () => {
    const server = await startServerProcess({ SKILLS_DIR: tree.skillsDir, SHUTDOWN_DRAIN_MS: "100" });
    const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1");
    socket.on("error", () => {});
    const closed = once(socket, "close");
    // Headers and half the body it announces, and never the rest.
    socket.write(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        'Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc":',
    );
    // And a connection that never finished its headers.
    const silent = net.connect(Number(new URL(server.url).port), "127.0.0.1");
    silent.on("error", () => {});
    silent.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    await vi.waitFor(() => expect(socket.bytesWritten).toBeGreaterThan(0));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await closed;
    const messages = logLines(server.output()).map((line) => line.msg);
    expect(messages).toContain("closing the connections of clients that never finished their requests");
    expect(messages).not.toContain("in-flight requests did not finish in time; exiting anyway");
    silent.destroy();
  });
});

// Regression: the close at the drain's end ended every connection Node counts idle, among them one whose
// answers the server had written whole but its slow client had not taken yet: of 35 answers pipelined on
// it, the client got 20, and the process exited 0 at once.
describe("shutting down while a slow client takes the answers written to it", () => {
  it("waits for the client to take every one, then exits 0", async () => {
    const big = await makeTree({ "p/big/SKILL.md": skillMd("big", "A big skill.", "word ".repeat(40_000)) });
    try {
      const server = await startServerProcess({ SKILLS_DIR: big.dir, SHUTDOWN_DRAIN_MS: "0" });
      const read = (id: number) => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "read_skill", arguments: { name: "big" } },
        });
        return (
          "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`
        );
      };
      const ids = Array.from({ length: 35 }, (_, id) => id);
      const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1");
      socket.write(ids.map(read).join(""));
      // Some 7 MB of answers in all, more than the sockets' buffers hold of a client that reads nothing, and
      // less than the server reads for answers at once (so all are written at once): the client takes the first
      // bytes, proof that the server is writing, then nothing until the stop has begun.
      let answers = "";
      socket.on("data", (chunk: Buffer) => {
        answers += chunk.toString("latin1");
      });
      await once(socket, "data");
      socket.pause();
      server.child.kill("SIGTERM");
      const waitedFor = /waiting for clients to take answers written whole|"closing: no new connections/;
      await vi.waitFor(() => expect(server.output()).toMatch(waitedFor), { timeout: 30_000 });
      socket.resume();
      await once(socket, "close");
      expect(await server.exited).toBe(0);
      expect([...answers.matchAll(/"id":(\d+)\}/g)].map(([, id]) => Number(id))).toEqual(ids);
      expect(
        logLines(server.output()).find(
          (line) => line.msg === "waiting for clients to take answers written whole",
        ),
      ).toBeDefined();
    } finally {
      await big.remove();
    }
  });
});

// Exiting with log lines queued, pino wrote them in a loop that retried a closed or full pipe forever.
describe("exiting while the log's reader is gone or takes nothing", () => {
  /** The server with `env`, its stdout closed at once (`| head -0`) or never read; its exit code and stderr. */
  function serverWithoutLogReader(env: Record<string, string>, stdout: "closed" | "unread") {
    const child = spawn(process.execPath, MAIN, {
      cwd: ROOT,
      env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (stdout === "closed") child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Bounded: a server that hangs is killed, and its exit code is null. A server left unread is given the
    // time the load a test puts on it takes on a busy machine (the 16 MiB test's outlasted 20 s), then 20 s
    // from SIGTERM.
    const kill = (ms: number) => setTimeout(() => child.kill("SIGKILL"), ms);
    let timer = kill(stdout === "closed" ? 20_000 : 200_000);
    const stop = () => {
      clearTimeout(timer);
      timer = kill(20_000);
      child.kill("SIGTERM");
    };
    const exited = new Promise<number | null>((resolve) =>
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve(code);
      }),
    );
    return { child, exited, stop, stderr: () => stderr };
  }

  it("refuses to start with its reason and exit status 1 when stdout is a closed pipe", async () => {
    // Warnings at once, so that lines wait behind the first write when it exits.
    const server = serverWithoutLogReader(
      { SKILLS_DIR: path.join(tree.dir, "missing"), SKILL_PACK: "alpha", API_KEY: "x", ALLOWED_HOST: "y" },
      "closed",
    );
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain("does not exist");
  });

  it("exits 0 on SIGTERM when its log's reader takes nothing", async () => {
    // Some 900 KB of warnings at the start: more than the pipe and its reader's buffer hold.
    const names = Array.from({ length: 3000 }, (_, i) => `not-a-pack-of-this-server-at-all-${i}`);
    const descriptions = path.join(tree.dir, "descriptions.json");
    await writeFile(descriptions, JSON.stringify(Object.fromEntries(names.map((name) => [name, "x"]))));
    const port = await freePort();
    const server = serverWithoutLogReader(
      {
        SKILLS_DIR: tree.skillsDir,
        PACK_DESCRIPTIONS: descriptions,
        PORT: String(port),
        SHUTDOWN_DRAIN_MS: "0",
      },
      "unread",
    );
    await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200), {
      timeout: 20_000,
      interval: 100,
    });
    server.stop();
    expect(await server.exited).toBe(0);
  });

  it("holds at most 16 MiB of lines for a reader that takes none, and says how many it dropped", {
    timeout: 240_000,
  }, async () => {
    const port = await freePort();
    const server = serverWithoutLogReader({ SKILLS_DIR: tree.skillsDir, PORT: String(port) }, "unread");
    try {
      await vi.waitFor(
        async () => expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200),
        { timeout: 20_000, interval: 100 },
      );
      // Each a 404 with a line of some 7 KB: some 40 MB of lines in all.
      const url = `http://127.0.0.1:${port}/nowhere?${"x".repeat(7000)}`;
      const client = async () => {
        for (let sent = 0; sent < 350; sent++) {
          await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 16 }, client));
      let stdout = "";
      server.child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      // Some 16 MiB reach the reader first: on a loaded machine that takes a while.
      await vi.waitFor(() => expect(stdout).toContain("log lines dropped"), {
        timeout: 120_000,
        interval: 500,
      });
      const [dropped] = logLines(stdout).filter((line) =>
        line.msg?.toString().startsWith("log lines dropped"),
      );
      expect(dropped?.lines).toBeGreaterThan(1000);
      expect(Buffer.byteLength(stdout)).toBeLessThan(MAX_HELD_BYTES + 4 * 1024 * 1024);
      server.stop();
      expect(await server.exited).toBe(0);
    } finally {
      server.child.kill("SIGKILL");
    }
  });
});

// Node as a container's PID 1 ignores a signal it has no handler for: a process that does not handle the
// signal itself (here: ends by it, exit code null) waits for SIGKILL in a container.
describe("stopping on a signal before it serves, and over stdio", () => {
  it("handles SIGTERM during startup: exits 0 without listening, saying so", async () => {
    // Enough skills that preparing them (no saved index) outlasts the signal by far.
    const entries = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [
        `pack/s${i}/SKILL.md`,
        skillMd(`s${i}`, `Handles widget ${i}.`),
      ]),
    );
    const large = await makeTree(entries);
    try {
      const child = spawn(process.execPath, MAIN, {
        cwd: ROOT,
        env: { ...process.env, SKILLS_DIR: large.dir, HOST: "127.0.0.1", PORT: "0", NODE_OPTIONS: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const { stdout, exited } = outputOf(child);
      await vi.waitFor(() => expect(stdout()).toContain("no saved index"), { timeout: 30_000 });
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const messages = logLines(stdout()).map((line) => line.msg);
      expect(messages).toContain("stopped before serving");
      expect(stdout()).not.toContain("Server listening");
    } finally {
      await large.remove();
    }
  });

  // A loader hook holds the import of the server's code after the entry (the bundle's chunk of it, whose
  // load takes a few hundred ms): the kernel drops a signal that a container's PID 1 has no handler for,
  // and handlers were installed only after the imports, so `docker stop` or a pod's deletion early in a
  // start waited for SIGKILL.
  it.for([
    { as: "a container's PID 1", pid1: true, ended: { code: 128 + constants.signals.SIGTERM, signal: null } },
    { as: "any other process", pid1: false, ended: { code: null, signal: "SIGTERM" } },
  ])(
    "ends on SIGTERM during its imports as $as, as the signal ends a process",
    async ({ pid1, ended }, { skip }) => {
      skip(pid1 && !asPid1, "needs unshare, as root");
      const hooks = await makeTree({
        "register.mjs":
          'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
        "hooks.mjs": [
          'import { writeSync } from "node:fs";',
          "let held = false;",
          "export async function load(url, context, nextLoad) {",
          "  if (!held && /\\/dist\\/chunks\\/cli-\\w+\\.js$/.test(url)) {",
          "    held = true;",
          '    writeSync(2, "importing\\n");',
          "    await new Promise((resolve) => setTimeout(resolve, 60_000));",
          "  }",
          "  return nextLoad(url, context);",
          "}",
        ].join("\n"),
      });
      const node = [
        process.execPath,
        "--import",
        pathToFileURL(path.join(hooks.dir, "register.mjs")).href,
        ...MAIN,
      ];
      // --kill-child: the namespace goes with unshare, should the server outlive the test.
      const [command, ...args] = pid1 ? ["unshare", "--pid", "--fork", "--kill-child", ...node] : node;
      const child = spawn(command ?? "", args, {
        cwd: ROOT,
        env: { ...process.env, SKILLS_DIR: tree.skillsDir, HOST: "127.0.0.1", PORT: "0", NODE_OPTIONS: "" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      child.on("close", (code, signal) => {
        exit = { code, signal };
      });
      try {
        await vi.waitFor(() => expect(stderr).toContain("importing"), { timeout: 20_000 });
        // As PID 1: the server is unshare's child, which the signal goes to, as a container engine's would.
        const pid = pidOf(child);
        const server = pid1
          ? Number((await readFile(`/proc/${pid}/task/${pid}/children`, "utf8")).trim())
          : pid;
        process.kill(server, "SIGTERM");
        await vi.waitFor(() => expect(exit).toEqual(ended), { timeout: 10_000 });
      } finally {
        child.kill("SIGKILL");
        await hooks.remove();
      }
    },
  );

  // Only the preparing of the catalog was raced with the signal: one between it and listening (building the
  // app, taking the port) was served, the server listening and draining for SHUTDOWN_DRAIN_MS after all.
  it("handles SIGTERM while it takes its port: exits 0 without listening, saying so", async () => {
    const hooks = await makeTree({
      "hold-listen.mjs": [
        'import { writeSync } from "node:fs";',
        'import net from "node:net";',
        "const { listen } = net.Server.prototype;",
        "net.Server.prototype.listen = function (...args) {",
        '  writeSync(2, "listening held\\n");',
        "  setTimeout(() => listen.apply(this, args), 60_000);",
        "  return this;",
        "};",
      ].join("\n"),
    });
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(path.join(hooks.dir, "hold-listen.mjs")).href, ...MAIN],
      {
        cwd: ROOT,
        env: { ...process.env, SKILLS_DIR: tree.skillsDir, HOST: "127.0.0.1", PORT: "0", NODE_OPTIONS: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const { stdout, stderr, exited } = outputOf(child);
    let exit: number | null | undefined;
    void exited.then((code) => {
      exit = code;
    });
    try {
      await vi.waitFor(() => expect(stderr()).toContain("listening held"), { timeout: 20_000 });
      child.kill("SIGTERM");
      await vi.waitFor(() => expect(exit).toBe(0), { timeout: 10_000 });
      const messages = logLines(stdout()).map((line) => line.msg);
      expect(messages).toContain("stopped before serving");
      expect(messages).not.toContain("ready");
    } finally {
      child.kill("SIGKILL");
      await hooks.remove();
    }
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "handles %s over stdio: exits 0 as when stdin closes",
    async (signal) => {
      const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
      child.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
      await vi.waitFor(() => expect(child.stdout()).toContain('"id":1'), { timeout: 10_000 });
      expect(await child.signal(signal)).toBe(0);
      expect(child.stderr()).toContain("stdio: stopping");
    },
  );
});

describe("serving over stdio", () => {
  it.each([
    ["2025", "legacy"],
    ["2026-07-28", { pin: "2026-07-28" }],
  ] as const)("serves the same tools through the SDK's stdio client in the %s era", async (_era, mode) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...MAIN, "--stdio"],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", SKILLS_DIR: tree.skillsDir, SKILL_PACKS: "gamma" },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-test", version: "1" }, { versionNegotiation: { mode } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(THE_FOUR_TOOLS);
      const result = (await client.callTool({ name: "list_skills", arguments: {} })) as CallToolResult;
      expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^drill: /) });
    } finally {
      await client.close();
    }
  });

  it("writes only JSON-RPC to stdout and its logs to stderr, and exits when stdin closes", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    const send = (message: object) => child.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_packs", arguments: {} } });
    await vi.waitFor(() => expect(child.stdout().split("\n").filter(Boolean)).toHaveLength(2), {
      timeout: 10_000,
    });
    expect(await child.end()).toBe(0);
    const lines = child.answers();
    expect(lines.map((line) => [line.jsonrpc, line.id])).toEqual([
      ["2.0", 1],
      ["2.0", 2],
    ]);
    expect(child.stderr()).toContain("catalog loaded");
  });

  // An invalid PORT stops no stdio start (README), but passed without a word.
  it("warns of an invalid HTTP setting, which it ignores, and serves", async () => {
    const child = stdioServerProcess({
      ...process.env,
      SKILLS_DIR: tree.skillsDir,
      NODE_OPTIONS: "",
      PORT: "abc",
    });
    child.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":1'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expect(logLines(child.stderr())).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'PORT "abc" is not a port number (0-65535); ignored: it applies only over HTTP, not over stdio',
      }),
    );
  });

  it("skips a line that is no JSON-RPC message with a warning, and answers the next", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    // Regression: the requests of a batch went unanswered, so its client waited out its own timeout (over
    // HTTP a 2025 batch is served).
    child.write(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"}]\n{"id":2}\n',
    );
    child.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":3'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const batchError = {
      code: -32600,
      message:
        "Invalid Request: a batch (a JSON array of messages) is not served over stdio; send each JSON-RPC message on a line of its own",
    };
    // `{"id":2}`, a request missing its members, is told the first missing, as /mcp tells it.
    expect(child.answers()).toEqual([
      { jsonrpc: "2.0", id: 1, error: batchError },
      { jsonrpc: "2.0", id: "b", error: batchError },
      {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0", and is missing.' },
      },
      { result: {}, jsonrpc: "2.0", id: 3 },
    ]);
    const lines = logLines(child.stderr());
    expect(
      lines
        .filter((line) => String(line.msg).startsWith("stdio") && Number(line.level) >= 40)
        .map((line) => line.level),
    ).toEqual([40, 40]);
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(child.stderr()).toContain("stdio: a line from the client is not a JSON-RPC message; skipped");
  });
});

// Regression: `[]` went unanswered, where JSON-RPC answers an empty batch with one Invalid Request and
// /mcp does (400, -32600); without an id, as every stdio refusal whose id is unknown.
describe("a stdio client that sends an empty batch", () => {
  it("is answered -32600 once, and the next line is served", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write('[]\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":1'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expect(child.answers()).toEqual([
      {
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request: an empty batch; /) },
      },
      { result: {}, jsonrpc: "2.0", id: 1 },
    ]);
    expectReadBySdkClient(child.stdout());
  });
});

// Regression: only the first 100 requests were answered (the 220,000 a line of 9.5 MiB holds took 100 MiB
// more to answer), and the others' client waited with no word; /mcp refuses such a batch whole (400, -32600).
describe("a stdio client that sends a batch of more than 100 messages", () => {
  it("is answered -32600 once, naming the limit, and the next line is served", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    const batch = Array.from({ length: 150 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
    child.write(`${JSON.stringify(batch)}\n{"jsonrpc":"2.0","id":"last","method":"ping"}\n`);
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":"last"'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expect(child.answers()).toEqual([
      {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message: expect.stringMatching(
            /^Invalid Request: Batch must not exceed 100 messages \(this one holds 150\); a batch .* is not served over stdio/,
          ),
        },
      },
      { result: {}, jsonrpc: "2.0", id: "last" },
    ]);
    expectReadBySdkClient(child.stdout());
  });
});

describe("a stdio client that asks for a protocol revision the server does not speak", () => {
  // Regression: each refusal, answered to the client, was also logged as an error of the server with its
  // stack, where /mcp logs it at debug: a newer client negotiating down left an error in every session.
  it("gets the refusal, and the log no error", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    const envelope = (revision: string) => ({
      "io.modelcontextprotocol/protocolVersion": revision,
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    });
    const send = (message: object) => child.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "tools/list", params: { _meta: envelope("2099-01-01") } });
    send({ id: 2, method: "tools/list", params: { _meta: envelope("2026-07-28") } });
    // A 2025 handshake on a connection the 2026-07-28 era holds.
    send(initialize(3));
    await vi.waitFor(() => expect(child.stdout().split("\n").filter(Boolean)).toHaveLength(3), {
      timeout: 10_000,
    });
    expect(await child.end()).toBe(0);
    const answers = child.answers();
    expect(new Map(answers.map((answer) => [answer.id, answer.error?.code]))).toEqual(
      new Map<unknown, unknown>([
        [1, -32022],
        [2, undefined],
        [3, -32022],
      ]),
    );
    // Regression: it said "Unsupported protocol version: 2025-06-18", a revision the server does serve, on a
    // connection that opens with the handshake.
    expect(answers.find((answer) => answer.id === 3)?.error?.message).toBe(
      'Unsupported protocol version "2025-06-18" on this connection: initialize is a method of the 2025 handshake, and this connection speaks 2026-07-28, as its first request did (a stdio connection keeps the era it opens with): ask server/discover instead, with the envelope, or open a new connection whose first request is initialize.',
    );
    expect(logLines(child.stderr()).filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});

describe("a stdio client whose messages the SDK discards unanswered", () => {
  // Regression: a response sent before the protocol revision was settled, or a notification with a broken
  // envelope, was logged as an error of the server with the SDK's stack: the client's mistake, every time.
  it("has each warned about with the SDK's reason, and the log no error", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    child.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: meta } })}\n`,
    );
    child.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":2'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const lines = logLines(child.stderr());
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    const discarded = lines.filter((line) => String(line.msg).includes("discarded by the SDK"));
    expect(discarded.map((line) => [line.level, line.skipped, String(line.reason).split(":")[0]])).toEqual([
      [40, 1, "Discarded a JSON-RPC response received before the connection negotiated an era"],
      [40, 2, "Discarded a notification with a malformed envelope"],
    ]);
  });
});

describe("a stdio client that sends many lines that are no JSON-RPC message", () => {
  // Regression: each was warned about, 130 bytes of log for a line of 3: 200,000 lines of `{}` wrote 27 MB
  // to stderr, which went on for 12 s after the last.
  it("has the first 10 warned about, then the 100th, the 1,000th…, with how many so far", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n${"{}\n".repeat(2000)}`);
    child.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":2'), { timeout: 30_000 });
    expect(await child.end()).toBe(0);
    const warnings = logLines(child.stderr()).filter(
      (line) => String(line.msg).startsWith("stdio") && Number(line.level) >= 40,
    );
    expect(warnings.map((line) => [line.level, line.msg, line.skipped])).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 1000].map((skipped) => [
        40,
        "stdio: a line from the client is not a JSON-RPC message; skipped",
        skipped,
      ]),
    );
  });
});

describe("a stdio client that sends a request of the wrong shape", () => {
  // Regression: the SDK refused it with a warning in the log and no answer, so the client waited out its
  // own timeout (over HTTP /mcp answers it at once, with its id).
  it("gets an error with its id, and answers to the requests after it", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n`);
    child.write('{"jsonrpc":"2.0","id":"odd","method":"ping","params":5}\n');
    child.write('{"jsonrpc":"2.0","method":"notifications/odd","params":5}\n');
    child.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":3'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const answers = child.answers();
    // The notification, of the wrong shape too, is answered by nothing. (Answers come in any order.)
    expect(new Map(answers.map((answer) => [answer.id, answer.error?.code]))).toEqual(
      new Map<unknown, unknown>([
        [1, undefined],
        ["odd", -32600],
        [3, undefined],
      ]),
    );
    expect(answers).toHaveLength(3);
  });
});

describe("a stdio client that sends requests of the wrong shape", () => {
  // Regression: each was answered "the line is not a valid JSON-RPC message (…)", a list of every rule,
  // where /mcp names the member that is wrong and what it must be.
  it("is told which member is wrong and what it must be, as /mcp tells it", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n`);
    const sent: [string | number, unknown, string][] = [
      [
        "params",
        { params: 5 },
        '"params" must be an object, not a number; leave it out when there are none.',
      ],
      ["version", { jsonrpc: "1.0" }, '"jsonrpc" must be "2.0", not "1.0".'],
      ["method", { method: 5 }, '"method" must be a string, not a number.'],
      ["meta", { params: { _meta: [] } }, '"params._meta" must be an object, not an array.'],
      [
        "token",
        { params: { _meta: { progressToken: 1.5 } } },
        '"params._meta.progressToken" must be a string or an integer, not 1.5.',
      ],
      ["extra", { extra: true }, '"extra" is no member of a JSON-RPC message'],
      // Regression: a request without its method got no answer at all (only a warning in the log), and one
      // with a result too the words for every fault, where /mcp names what is wrong.
      ["no method", { method: undefined }, '"method" is missing'],
      ["no method, params", { method: undefined, params: {} }, '"method" is missing'],
      [
        "result",
        { result: {} },
        'a message with a "method" is a request or a notification, which holds no "result"',
      ],
    ];
    for (const [id, wrong] of sent)
      child.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "ping", ...(wrong as object) })}\n`);
    child.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":3'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const said = new Map(child.answers().map((answer) => [answer.id, answer.error]));
    for (const [id, , words] of sent) {
      expect(said.get(id)?.code).toBe(-32600);
      expect(said.get(id)?.message).toContain(`Invalid Request: ${words}`);
    }
  });
});

// Regression: JSON that is no request, response or notification was only warned about in the log, where
// JSON-RPC answers it Invalid Request (as /mcp does, 400 -32600), so its client never learnt its mistake.
describe("a stdio client that sends JSON that is no JSON-RPC message", () => {
  it("is told what is wrong, in an answer without an id; a response or notification gets nothing", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n`);
    const sent: [string, string][] = [
      ["null", "the line is null, where a JSON-RPC message is an object"],
      ["123", "the line is a number, where a JSON-RPC message is an object"],
      ["{}", '"jsonrpc" must be "2.0", and is missing.'],
      ['{"jsonrpc":"2.0","method":5}', '"method" must be a string, not a number.'],
    ];
    for (const [line] of sent) child.write(`${line}\n`);
    // A response and a notification, each of the wrong shape: JSON-RPC answers neither.
    child.write(
      '{"jsonrpc":"2.0","id":9,"result":5}\n{"jsonrpc":"2.0","method":"notifications/odd","params":5}\n',
    );
    child.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":3'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expectReadBySdkClient(child.stdout());
    const refusals = child.answers().filter((answer) => answer.error !== undefined);
    expect(refusals).toHaveLength(sent.length);
    for (const [line, words] of sent) {
      expect(refusals, line).toContainEqual({
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringContaining(`Invalid Request: ${words}`) },
      });
    }
  });
});

describe("a stdio client that sends a request with an id MCP does not allow", () => {
  // Regression: a request with id 1.5, 2^53 + 1, null or true went unanswered (only a warning in the log),
  // so its client waited out its own timeout, where /mcp says what is wrong with the id.
  it("is told what is wrong with the id, in an answer without one", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    for (const id of ["1.5", "9007199254740993", "null", "true"])
      child.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    child.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":3'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const refusals = child.answers().filter((answer) => answer.error !== undefined);
    expect(refusals).toHaveLength(4);
    for (const refusal of refusals) {
      expect(refusal).not.toHaveProperty("id");
      expect(refusal.error).toMatchObject({
        code: -32600,
        message: expect.stringContaining('Invalid Request: "id" must be a string or an integer'),
      });
    }
    // Regression: 2^53 + 1 was said to be 2^53, the number JSON.parse read, which the client never sent.
    expect(child.stdout()).not.toContain("9007199254740992");
    expect(refusals.map((refusal) => refusal.error?.message)).toContainEqual(
      expect.stringMatching(/, not a number past 2\^53 - 1 in size\.$/),
    );
  });
});

describe("a stdio client whose last line has no newline", () => {
  // Regression: the SDK drops what follows the last newline when stdin ends, without a word: a script that
  // wrote its last request without one (`printf '…'`) got no answer to it, and no clue why.
  it("has it warned about when stdin ends", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n{"jsonrpc":"2.0","id":2,"method":"ping"}`);
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":1'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const warnings = logLines(child.stderr()).filter(
      (line) => String(line.msg).startsWith("stdio") && Number(line.level) >= 40,
    );
    expect(warnings.map((line) => [line.level, line.msg, line.bytes])).toEqual([
      [
        40,
        "stdio: stdin ended in the middle of a line, which was dropped: end each message with a newline",
        40,
      ],
    ]);
  });
});

describe("a stdio client that ends its lines with a CR alone", () => {
  // Regression: such a client (old Mac OS style, some bridges from Windows) had its messages held until
  // stdin closed, then dropped as an unfinished line: it got no answer, and waited forever.
  it("is answered at each message, as one that ends them with LF", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\r`);
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":1'), { timeout: 10_000 });
    child.write(
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\r{"jsonrpc":"2.0","id":2,"method":"ping"}\r',
    );
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":2'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expect(child.answers().map((answer) => [answer.id, "error" in answer])).toEqual([
      [1, false],
      [2, false],
    ]);
    const warnings = logLines(child.stderr()).filter(
      (line) => String(line.msg).startsWith("stdio") && Number(line.level) >= 40,
    );
    expect(warnings).toEqual([]);
  });

  // Regression: a broken message (its object left open) was no whole JSON, so its CR ended nothing: it and
  // every message after it were held as one line, and the client waited forever for any answer.
  it("is answered a parse error for a broken message, once the next begins, and then that message", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write('{"jsonrpc":"2.0","id":1,"method":"ping"\r{"jsonrpc":"2.0","id":2,"method":"ping"}\r');
    await vi.waitFor(() => expect(child.answers()).toHaveLength(2), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expect(child.answers()).toEqual([
      { jsonrpc: "2.0", error: expect.objectContaining({ code: -32700 }) },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });
});

describe("a stdio client that closes the server's stdout", () => {
  // Regression: with a stage of ours reading stdin for the SDK's transport, the server went on reading a
  // stdin left open after its stdout broke, answering nothing, until the client closed stdin too. And a
  // client going away was logged as an error of the server, with the EPIPE's whole stack.
  it("has the server stop, as when it closes stdin, saying so in one line", async () => {
    const child = spawn(process.execPath, [...MAIN, "--stdio"], {
      cwd: ROOT,
      env: { ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin.on("error", () => {});
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.write(`${JSON.stringify(initialize(1))}\n`);
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.stdout.destroy();
    child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
    try {
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
    const lines = logLines(stderr);
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines.filter((line) => String(line.msg).startsWith("stdio"))).toEqual([
      expect.objectContaining({ level: 30, msg: "stdio: the client closed stdout; stopping" }),
    ]);
    expect(stderr).not.toContain("stack");
  });
});

describe("a stdio client that closes stdin while an answer is being written", () => {
  // Regression: the server exited at once, cutting the answer it was writing in the middle of its line: the
  // client read a last line that was no JSON.
  it("gets that answer whole, and the server exits 0", async () => {
    const child = spawn(process.execPath, [...MAIN, "--stdio"], {
      cwd: ROOT,
      env: { ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "", LOG_LEVEL: "warn" },
    });
    try {
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      child.stdin.write(`${JSON.stringify(initialize(1))}\n`);
      await vi.waitFor(() => expect(stdout).toContain('"id":1'), { timeout: 10_000 });
      // Four answers of some 270 KB each, more than a pipe holds, written while the client does not read.
      child.stdout.pause();
      for (let id = 2; id <= 5; id++) {
        const params = { name: "read_skill", arguments: { skill: "two", file: "big.txt" } };
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params })}\n`);
      }
      await sleep(1000);
      child.stdin.end();
      await sleep(500);
      child.stdout.resume();
      expect(await exited).toBe(0);
      expect(stdout.endsWith("\n")).toBe(true);
      const lines = stdout.split("\n").filter(Boolean);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      child.kill();
    }
  });
});

/**
 * Every line of `stdout` is a message the MCP SDK's client reads. Over stdio a line is the whole answer: one
 * the client's schema refuses (a JSON-RPC error with `"id": null`, which HTTP's refusals carry, is one) is
 * dropped, and its user sees a schema error instead of ours. HTTP's refusals are read by their status.
 */
function expectReadBySdkClient(stdout: string): void {
  for (const line of stdout.split("\n").filter(Boolean))
    expect(() => deserializeMessage(line), line).not.toThrow();
}

describe("a stdio client that sends lines that are no JSON", () => {
  // Regression: the SDK skips such a line without a word, so a client that began with a byte-order mark,
  // framed its messages with Content-Length headers as LSP does, or wrote a message over several lines (as
  // pretty-printed), got no answer and waited out its own timeout, and its user had no clue.
  it("has each answered with a parse error and warned about, and the next line answered", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n`);
    child.write('\uFEFF{"jsonrpc":"2.0","id":2,"method":"ping"}\nContent-Length: 40\r\n\r\n');
    child.write('{"jsonrpc":"2.0","id":3,\n"method":"ping"}\n');
    // Two messages on one line: said as such, as is the byte-order mark above.
    child.write('{"jsonrpc":"2.0","id":5,"method":"ping"} {"jsonrpc":"2.0","id":6,"method":"ping"}\n');
    // JSON, but no message: answered -32600 (see below), not -32700.
    child.write("5\n");
    child.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    // Our answers are written in turn with the server's: the last comes last.
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":4'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    const answers = child.answers();
    expectReadBySdkClient(child.stdout());
    // Without an id, as the answer to a line over the limit. (Answers come in any order.)
    const parseErrors = answers.filter((answer) => !("id" in answer) && answer.error?.code !== -32600);
    const notJson =
      "Parse error: a line was not JSON, so the request on it, if any, gets no other answer. Send each JSON-RPC message as one line of JSON in UTF-8, ended by a newline.";
    expect(parseErrors.map((answer) => answer.error?.message).sort()).toEqual(
      [
        "Parse error: a line began with a byte-order mark (U+FEFF), which stdio does not read (HTTP does), so the request on it, if any, gets no other answer. Send each JSON-RPC message as one line of JSON in UTF-8 without a byte-order mark, ended by a newline.",
        'Parse error: a line held a whole JSON value and more after it, so the request on it, if any, gets no other answer. A line holds one JSON-RPC message: end each message with a newline ("\\n", LF).',
        notJson,
        notJson,
        notJson,
      ].sort(),
    );
    expect(parseErrors.every((answer) => answer.jsonrpc === "2.0" && answer.error?.code === -32700)).toBe(
      true,
    );
    expect(answers.filter((answer) => "id" in answer).map((answer) => answer.id)).toEqual([1, 4]);
    const warnings = logLines(child.stderr()).filter(
      (line) => String(line.msg).startsWith("stdio") && Number(line.level) >= 40,
    );
    expect(warnings.map((line) => [line.level, line.msg, line.skipped])).toEqual([
      ...[1, 2, 3, 4, 5].map((skipped) => [
        40,
        "stdio: a line from the client is not JSON (one JSON-RPC message per line, in UTF-8); skipped",
        skipped,
      ]),
      [40, "stdio: a line from the client is not a JSON-RPC message; skipped", 1],
    ]);
  });
});

describe("a stdio client that sends a line that is not UTF-8", () => {
  // Regression: the SDK decoded such a line with each byte that is not UTF-8 turned to U+FFFD and served
  // it: a list_skills query with 0xC3 0x28 in it searched for "\uFFFD(" and was answered as if fine.
  it("has it answered with a parse error saying where, and the next line answered", async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n`);
    const call = Buffer.from(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_skills", arguments: { query: "caf@xyz" } } })}\n`,
    );
    const at = call.indexOf("@");
    child.write(Buffer.concat([call.subarray(0, at), Buffer.from([0xc3, 0x28]), call.subarray(at + 1)]));
    child.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":3'), { timeout: 10_000 });
    expect(await child.end()).toBe(0);
    expectReadBySdkClient(child.stdout());
    const answers = child.answers();
    // Our answer is written in turn with the server's, whose answer to initialize may come after it.
    expect(answers.filter((answer) => "id" in answer).map((answer) => answer.id)).toEqual([1, 3]);
    const refusals = answers.filter((answer) => !("id" in answer));
    expect(refusals.map((answer) => answer.error?.code)).toEqual([-32700]);
    expect(refusals[0]?.error?.message).toBe(
      `Parse error: a line was not UTF-8 from byte offset ${at} of the line (counting from 0; the bytes there are 0xC3 0x28 0x78 0x79), so the request on it, if any, gets no other answer. MCP messages are UTF-8: send each JSON-RPC message as one line of JSON in UTF-8, ended by a newline.`,
    );
    const warnings = logLines(child.stderr()).filter((line) => String(line.msg).startsWith("stdio: a line"));
    expect(warnings.map((line) => [line.level, line.msg, line.skipped, line.at])).toEqual([
      [40, "stdio: a line from the client is not UTF-8 (MCP messages are UTF-8); skipped", 1, at],
    ]);
  });
});

describe("a stdio client that sends a line over 10 MiB", () => {
  // Regression: the SDK's stdio transport buffered the line up to 10 MiB, then closed the connection and the
  // server exited, every later request unanswered.
  it("gets an error for that line alone, and answers to the next", { timeout: 60_000 }, async () => {
    const child = stdioServerProcess({ ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "" });
    child.write(`${JSON.stringify(initialize(1))}\n`);
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":1'), { timeout: 10_000 });
    const before = residentPeak(child.pid);
    // 128 MiB in one line: what the server holds of it shows in its peak memory.
    const big = Buffer.alloc(128 * MiB, "a");
    big.write('{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"');
    big.write('"}}\n', big.length - 4);
    child.write(big);
    child.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":2'), { timeout: 30_000 });
    const peak = residentPeak(child.pid);
    expect(await child.end()).toBe(0);
    const answers = child.answers();
    expectReadBySdkClient(child.stdout());
    // No id, as MCP has it for a message whose id is unknown (the SDK's client rejects an id of null).
    expect(answers.map((answer) => answer.id)).toEqual([1, undefined, 2]);
    expect(answers[1]?.error).toEqual({
      code: -32600,
      message:
        "Message too large: a line of more than 10485760 bytes (10 MiB) was skipped unread, so the request on it, if any, gets no other answer. Send each JSON-RPC message on one line of at most 10 MiB.",
    });
    const lines = logLines(child.stderr()).filter(
      (line) => String(line.msg).startsWith("stdio") && Number(line.level) >= 40,
    );
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [40, "stdio: a line from the client is over 10 MiB; skipped unread"],
    ]);
    // The line is dropped as it streams in: never held whole (128 MiB), at most the limit's worth of it (a
    // line of 9 MiB, which is read, takes some 45 MiB).
    expect(peak - before).toBeLessThan(80 * MiB);
  });
});

describe("a stdio client that keeps sending requests without reading the answers", () => {
  // Regression: the requests waiting for the answers before theirs to be taken were all read and kept:
  // 200,000 pings (8 MB) took 80 MiB, and a client that kept writing took the server's memory with it.
  it("has the server stop reading until it reads, and gets every answer", { timeout: 120_000 }, async () => {
    // Enough that keeping them all would show (some 60 MiB), few enough to answer on a busy 2-core machine.
    const unread = await growthWhileUnread(150_000, (id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    // What reading the first thousands takes (some 25 MiB, for 2,000 as for 1,000,000), not all of them.
    expect(unread).toBeLessThan(40 * MiB);
  });
});

describe("a stdio client that reads its answers slowly", () => {
  // Regression: over stdio every request was answered at once and every answer queued for stdout, so a
  // client that sent 200 reads of an 8 MiB file and read slowly took the server to 3 GB. Answers that
  // hold files are now made 8 MiB of files at a time, as over HTTP.
  // Answers past what the memory bound allows, as they must be: 34 s of a whole suite on a loaded machine.
  it("has them made one budget of files at a time, and gets them all", { timeout: 120_000 }, async () => {
    const big = await makeTree({ "big/reader/SKILL.md": skillMd("reader", "Reads a big file.") });
    // 0xFF is no UTF-8: sent as base64.
    await writeFile(path.join(big.dir, "big/seven.bin"), Buffer.alloc(7 * 1024 * 1024, 0xff));
    const child = spawn(process.execPath, [...MAIN, "--stdio"], {
      cwd: ROOT,
      env: { ...process.env, SKILLS_DIR: big.dir, NODE_OPTIONS: "", LOG_LEVEL: "warn" },
    });
    try {
      const reads = 60;
      const lines = [
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "slow", version: "1" },
          },
        },
        ...Array.from({ length: reads }, (_, i) => ({
          jsonrpc: "2.0",
          id: i + 1,
          method: "resources/read",
          params: { uri: "skill://big/seven.bin" },
        })),
      ];
      child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
      // Unread for a while: 60 answers of 9 MB of base64 each would be made and queued by then.
      await sleep(3000);
      // Lines counted by their ends: the answers are read, not parsed.
      let ends = 0;
      const done = new Promise<void>((resolve) => {
        child.stdout.on("data", (chunk: Buffer) => {
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) ends++;
          if (ends === reads + 1) resolve();
        });
      });
      await done;
      // At most a few answers of 10 MB at once, on a server of some 100 MiB (it reached 2.3 GiB). Read once
      // all are answered: VmHWM is the most the process has held in its life, so a read at each of the
      // 8,000 chunks of 64 KiB found no more than this one does.
      expect(residentPeak(child.pid)).toBeLessThan(400 * 1024 * 1024);
    } finally {
      child.kill();
      await big.remove();
    }
  });
});

const MiB = 1024 * 1024;

/** A 2025-era initialize request. */
function initialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
}

describe("a stdio client that does not read its answers", () => {
  // Regression: only answers holding files waited for stdout; every other request was answered at once and
  // its answer queued. 20,000 tools/list of 60 bytes each, unread, queued 67 MB of answers: 460 MB resident.
  it("has few answers made ahead of it, and gets them all once it reads", { timeout: 60_000 }, async () => {
    const unread = await growthWhileUnread(10_000, (id) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }),
    );
    // The 10,000 requests themselves, read and waiting: a few MiB (their answers took 120 MiB).
    expect(unread).toBeLessThan(32 * MiB);
  });
});

describe("a stdio client that sends requests of the wrong shape without reading the answers", () => {
  // Regression: the errors answering them bypassed the budget of answers waiting for stdout: 30,000
  // unread took 82 MiB, and a client that kept sending them took the server's memory with it.
  it("has few answers made ahead of it, and gets them all once it reads", { timeout: 60_000 }, async () => {
    const unread = await growthWhileUnread(30_000, (id) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: 5 }),
    );
    // The requests themselves, read and waiting: some 10 MiB.
    expect(unread).toBeLessThan(32 * MiB);
  });
});

/**
 * How much a stdio server's peak memory grows while a client that does not read stdout sends `requests`
 * lines (`line(id)`, ids from 1) and waits 3 s; then the client reads, and every answer must come.
 */
async function growthWhileUnread(requests: number, line: (id: number) => string): Promise<number> {
  const child = spawn(process.execPath, [...MAIN, "--stdio"], {
    cwd: ROOT,
    env: { ...process.env, SKILLS_DIR: tree.skillsDir, NODE_OPTIONS: "", LOG_LEVEL: "warn" },
  });
  try {
    // Measured from the handshake's answer on, so that a slow start (a busy machine) is not counted.
    const initialized = new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        if (!chunk.includes(10)) return;
        child.stdout.off("data", onData);
        child.stdout.pause();
        resolve();
      };
      child.stdout.on("data", onData);
    });
    child.stdin.write(`${JSON.stringify(initialize(0))}\n`);
    await initialized;
    await sleep(500);
    const before = residentPeak(child.pid);
    child.stdin.write(Array.from({ length: requests }, (_, i) => `${line(i + 1)}\n`).join(""));
    // Unread for a while: every answer would be made and queued by then.
    await sleep(3000);
    const unread = residentPeak(child.pid) - before;
    let ends = 0;
    const answered = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) ends++;
        if (ends === requests) resolve();
      });
    });
    child.stdout.resume();
    await answered;
    return unread;
  } finally {
    child.kill();
  }
}

/** The most resident memory `pid` has held (VmHWM), in bytes. */
function residentPeak(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kB = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  // Read as 0, a missing line made every bound on the growth pass.
  if (kB === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kB) * 1024;
}

/** A tools/call over plain HTTP, under the ceiling `?pack=`. */
function postCall(url: string, pack: string, params: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/mcp?pack=${pack}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
  });
}

/** The lines of a server's log that tell its stop after SIGTERM (startup work may log in between). */
function stopLines(output: string): string[] {
  return logLines(output)
    .map((line) => String(line.msg))
    .filter((msg) => /^(shutting down|closing|in-flight|stopped)/.test(msg));
}

/** A stop once the drain ended: no connection left for the grace period's end to close. */
const STOPPED_AFTER_DRAIN = [
  "shutting down: readiness fails, still serving while load balancers drain",
  "closing: no new connections; finishing in-flight requests",
  "stopped",
];

/** The per-request lines of a server's log. */
function requestLines(output: string): Record<string, unknown>[] {
  return logLines(output).filter((line) => line.msg === "request");
}

describe("one-shot commands", () => {
  it("prints the version with --version", async () => {
    const result = await runServer({ SKILLS_DIR: tree.skillsDir }, ["--version"]);
    expect(result.code).toBe(0);
    const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(result.stdout).toBe(`${version}\n`);
  });

  it("prints a steering line for a scope with --steering --pack, its packs described as skills.toml and PACK_DESCRIPTIONS say", async () => {
    const described = await makeTree({
      "descriptions.yaml": "beta: Tools and documentation, by the team's conventions.\n",
    });
    try {
      // sources.json gives alpha no description; PACK_DESCRIPTIONS gives beta one.
      const env = { SKILLS_DIR: tree.skillsDir, PACK_DESCRIPTIONS: `${described.dir}/descriptions.yaml` };
      const result = await runServer(env, ["--steering", "--pack", "alpha,beta"]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.split("\n")).toHaveLength(2);
      expect(result.stdout).toMatch(/^Before you start a task in one of these areas/);
      expect(result.stdout).toContain("beta (Tools and documentation, by the team's conventions.)");
      // alpha's skills fit by name; no other word of theirs is held by a name or two descriptions.
      expect(result.stdout).toContain("Areas: alpha (one, shared-name, two); beta (");
      expect(result.stdout).not.toContain("gamma");
      // Written for the whole pack, the description is not given to a scope of one of its groups.
      const group = await runServer(env, ["--steering", "--pack", "beta/tools"]);
      expect(group.stdout).toMatch(/beta \(tools \(hammer/);
      expect(group.stdout).not.toContain("documentation");
    } finally {
      await described.remove();
    }
  });

  // Without SKILLS_DIR the log said "serving the bundled examples", though --steering serves nothing.
  it("says --steering without SKILLS_DIR prints the bundled examples' line, serving nothing", async () => {
    const empty = await makeTree({ "readme.txt": "no skills folder here" });
    try {
      const result = await runServer({ SKILLS_DIR: "" }, ["--steering"], empty.dir);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("design");
      expect(result.stderr).toContain(
        "no SKILLS_DIR and no ./skills: the steering line is of the bundled examples",
      );
      expect(result.stderr).not.toContain("serving");
    } finally {
      await empty.remove();
    }
  });

  // A --pack that names nothing exited 1, as a failed start does, where every other mistake of the command
  // line exits 2.
  it("refuses a --steering --pack that names nothing as a wrong command line, and a PACK_DESCRIPTIONS that is not a mapping", async () => {
    const wrong = await runServer({ SKILLS_DIR: tree.skillsDir }, ["--steering", "--pack", "nope"]);
    expect(wrong.code).toBe(2);
    // The last line, after the log of loading the catalog.
    expect(wrong.stderr).toMatch(
      /\nskills-mcp: --pack: Unknown pack or group "nope"\. Valid selectors: alpha, beta, [^\n]*\n$/,
    );
    expect(wrong.stdout).toBe("");
    const list = await makeTree({ "list.yaml": "- a\n- b\n" });
    try {
      const bad = await runServer({ SKILLS_DIR: tree.skillsDir, PACK_DESCRIPTIONS: `${list.dir}/list.yaml` });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(
        "is not a YAML or JSON mapping of pack names to descriptions (pack: text)",
      );
    } finally {
      await list.remove();
    }
  });
});

/** The first of `ports` that nothing on 127.0.0.1 listens on, if any. */
async function firstFreePort(ports: readonly number[]): Promise<number | undefined> {
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  return undefined;
}
