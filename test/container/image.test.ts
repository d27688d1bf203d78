/**
 * Builds the image from the Dockerfile with a test manifest whose sources are local git repositories
 * (served by `git daemon` on 127.0.0.1, which the build reaches through host networking), then runs it
 * and checks it through its real endpoint. Skipped, loudly, when no Docker-compatible engine answers.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from "testcontainers";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { freePort } from "../../scripts/free-port.js";
import { ROOT } from "../helpers/process.js";
import { type ConnectedClient, call, connectClient } from "../helpers/remote.js";
import { THE_FOUR_TOOLS } from "../helpers/server.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

const git = promisify(execFile);

/**
 * Docker's classic builder rejects `RUN --mount`, so Docker must build with BuildKit; Podman's builder
 * (Buildah) handles it on the classic endpoint and has no BuildKit endpoint at all.
 */
async function engineNeedsBuildkit(): Promise<boolean> {
  const version = await (await getContainerRuntimeClient()).container.dockerode.version();
  return !version.Components?.some((component) => component.Name === "Podman Engine");
}

async function engineAnswers(): Promise<boolean> {
  try {
    const client = await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), 10_000)),
    ]);
    return client.info.containerRuntime.host !== undefined;
  } catch (error) {
    console.warn(
      `\n*** No Docker-compatible engine answers (${(error as Error).message}): the container tests are SKIPPED. ***\n` +
        "*** Point DOCKER_HOST at a Docker-compatible engine (Docker, or Podman's socket) to run them. ***\n",
    );
    return false;
  }
}

/** A container with a read-only root filesystem, which testcontainers has no builder method for. */
class ReadOnlyContainer extends GenericContainer {
  constructor(image: string) {
    super(image);
    this.hostConfig.ReadonlyRootfs = true;
  }
}

async function commitRepo(dir: string): Promise<string> {
  const run = (...args: string[]) => git("git", ["-C", dir, ...args]);
  await run("init", "-q", "-b", "main");
  await run("add", "-A");
  await run("-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-qm", "skills");
  return (await run("rev-parse", "HEAD")).stdout.trim();
}

const engine = await engineAnswers();

/** A cold build installs every dependency and fetches the test sources: minutes, not seconds. */
const BUILD_TIMEOUT_MS = 600_000;

describe.skipIf(!engine)("the container image", { timeout: 60_000 }, () => {
  let work: Awaited<ReturnType<typeof makeTree>>;
  let daemon: ChildProcess;
  let image: string;
  /** The build context and the port of the git daemon serving the test repositories. */
  let context: string;
  let gitPort: number;
  const containers: StartedTestContainer[] = [];

  async function start(
    env: Record<string, string> = {},
  ): Promise<{ container: StartedTestContainer; url: string }> {
    const port = await freePort();
    const container = await new ReadOnlyContainer(image)
      .withNetworkMode("host")
      .withEnvironment({ PORT: String(port), HOST: "127.0.0.1", ...env })
      .withWaitStrategy(Wait.forLogMessage(/Server listening/))
      .withStartupTimeout(30_000)
      .start();
    containers.push(container);
    return { container, url: `http://127.0.0.1:${port}` };
  }

  beforeAll(async () => {
    work = await makeTree({
      "repos/alpha/skills/tools/hammer/SKILL.md": skillMd("hammer", "Drive nails with a hammer."),
      "repos/alpha/skills/tools/hammer/references/grip.md": "# Grip\nHold it at the end.\n",
      "repos/alpha/skills/saw/SKILL.md": skillMd("saw", "Cut planks with a saw."),
      "repos/alpha/README.md": "not served: outside path",
      "repos/beta/drill/SKILL.md": skillMd("drill", "Drill holes in walls."),
      "repos/hostile/trick/SKILL.md": skillMd(
        "trick",
        "Looks harmless.",
        'if role != "user\u202E \u2066# admin\u2069 \u2066":\n',
      ),
    });
    const alphaRef = await commitRepo(path.join(work.dir, "repos/alpha"));
    const betaRef = await commitRepo(path.join(work.dir, "repos/beta"));

    gitPort = await freePort();
    daemon = spawn("git", [
      "daemon",
      "--reuseaddr",
      "--export-all",
      "--listen=127.0.0.1",
      `--port=${gitPort}`,
      `--base-path=${path.join(work.dir, "repos")}`,
      path.join(work.dir, "repos"),
    ]);
    await git("git", ["ls-remote", `git://127.0.0.1:${gitPort}/alpha`]).catch(async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await git("git", ["ls-remote", `git://127.0.0.1:${gitPort}/alpha`]);
    });

    // The build context: what .dockerignore lets through, plus the test manifest.
    context = path.join(work.dir, "context");
    for (const entry of [
      "Dockerfile",
      ".dockerignore",
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "src",
      "scripts",
    ]) {
      await cp(path.join(ROOT, entry), path.join(context, entry), { recursive: true });
    }
    await writeFile(
      path.join(context, "skills.test.toml"),
      [
        "[[source]]",
        'name = "alpha"',
        `repo = "git://127.0.0.1:${gitPort}/alpha"`,
        `ref = "${alphaRef}"`,
        'path = "skills"',
        "",
        "[[source]]",
        'name = "beta"',
        `repo = "git://127.0.0.1:${gitPort}/beta"`,
        `ref = "${betaRef}"`,
        "",
      ].join("\n"),
    );
    image = `skills-mcp-test:${Date.now()}`;
    const builder = GenericContainer.fromDockerfile(context).withBuildArgs({
      SKILLS_MANIFEST: "skills.test.toml",
    });
    if (await engineNeedsBuildkit()) builder.withBuildkit();
    await builder.build(image, { deleteOnExit: true });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(containers.map((container) => container.stop().catch(() => undefined)));
    // deleteOnExit needs testcontainers' reaper, which engines without it (Podman here) do not run.
    if (image !== undefined) {
      const { dockerode } = (await getContainerRuntimeClient()).container;
      await dockerode
        .getImage(image)
        .remove({ force: true })
        .catch(() => undefined);
    }
    daemon?.kill();
    await work?.remove();
  });

  let server: { container: StartedTestContainer; url: string };
  let client: ConnectedClient;
  beforeAll(async () => {
    server = await start();
    client = await connectClient(server.url);
  }, 60_000);
  afterAll(() => client?.close());

  it("reports the fetched packs and their commits on /health", async () => {
    const health = (await (await fetch(`${server.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: "ok", packs: ["alpha", "beta"], skills: 3 });
    expect(health.sources).toEqual([
      { name: "alpha", ref: expect.stringMatching(/^[0-9a-f]{40}$/) },
      { name: "beta", ref: expect.stringMatching(/^[0-9a-f]{40}$/) },
    ]);
  });

  it("lists the four tools and reads a skill and its file", async () => {
    const { tools } = await client.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(THE_FOUR_TOOLS);
    expect((await call(client.client, "read_skill", { skill: "hammer" })).text).toContain("Drive nails");
    expect(
      (await call(client.client, "read_skill", { skill: "hammer", file: "references/grip.md" })).text,
    ).toBe("# Grip\nHold it at the end.\n");
  });

  it("holds a client to its X-Skill-Pack ceiling", async () => {
    const scoped = await connectClient(server.url, { "X-Skill-Pack": "beta" });
    try {
      expect((await call(scoped.client, "list_skills")).text).toMatch(/^drill: .*\nNext/);
      expect((await call(scoped.client, "read_skill", { skill: "hammer" })).isError).toBe(true);
    } finally {
      await scoped.close();
    }
  });

  // The image ships the bundle alone: `sync` and `--stdio`, each a path of its own, run from it as well.
  it("runs sync and stdio from the bundle, with no node_modules in the image", async () => {
    const { container, url } = server;
    expect((await container.exec(["test", "-e", "/app/node_modules"])).exitCode).not.toBe(0);
    const planned = await container.exec([
      "node",
      "dist/main.js",
      "sync",
      `${url}/mcp`,
      "--to",
      "/tmp/out",
      "--dry-run",
    ]);
    expect(planned.exitCode).toBe(0);
    for (const skill of ["drill", "hammer", "saw"]) expect(planned.stdout).toContain(skill);
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sh", version: "1" } },
    });
    // stdin stays open a moment after the request: unanswered requests are dropped when it closes.
    const served = await container.exec([
      "sh",
      "-c",
      `(echo '${initialize}'; sleep 2) | node dist/main.js --stdio`,
    ]);
    expect(served.exitCode).toBe(0);
    expect(JSON.parse(served.stdout.trim())).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "skills-mcp" } },
    });
  });

  it("starts on the search index saved when the image was built", async () => {
    const logs = await (await getContainerRuntimeClient()).container
      .getById(server.container.getId())
      .logs({ stdout: true, stderr: true, follow: false });
    const ready = String(logs).match(/\{[^\n]*"msg":"ready"[^\n]*\}/)?.[0];
    expect(JSON.parse(ready ?? "{}")).toMatchObject({ index: "loaded" });
    expect((await call(client.client, "list_skills", { query: "drive nails" })).text).toMatch(/^hammer: /);
  });

  it("loads only SKILL_PACKS when it is set on the container", async () => {
    const narrow = await start({ SKILL_PACKS: "alpha/tools" });
    const health = (await (await fetch(`${narrow.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ packs: ["alpha"], skills: 1 });
  });

  it(
    "refuses to build from skills with a high audit finding, unless ALLOW_UNSAFE_SKILLS=1",
    async () => {
      const hostileRef = await commitRepo(path.join(work.dir, "repos/hostile"));
      await writeFile(
        path.join(context, "skills.hostile.toml"),
        `[[source]]\nname = "hostile"\nrepo = "git://127.0.0.1:${gitPort}/hostile"\nref = "${hostileRef}"\n`,
      );
      const build = async (args: Record<string, string>) => {
        const tag = `skills-mcp-test:hostile-${Date.now()}`;
        const builder = GenericContainer.fromDockerfile(context).withBuildArgs({
          SKILLS_MANIFEST: "skills.hostile.toml",
          ...args,
        });
        if (await engineNeedsBuildkit()) builder.withBuildkit();
        await builder.build(tag, { deleteOnExit: true });
        return tag;
      };
      await expect(build({})).rejects.toThrow();
      const allowed = await build({ ALLOW_UNSAFE_SKILLS: "1" });
      const { dockerode } = (await getContainerRuntimeClient()).container;
      await dockerode.getImage(allowed).remove({ force: true });
    },
    2 * BUILD_TIMEOUT_MS,
  );

  it("runs as uid 1000 on a read-only root filesystem", async () => {
    const status = await server.container.exec(["cat", "/proc/1/status"]);
    expect(status.output).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
    const write = await server.container.exec(["touch", "/app/written"]);
    expect(write.exitCode).not.toBe(0);
    expect(write.output).toContain("Read-only file system");
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  // The Deployment's memory request was set from what the server holds once ready (docs/deployment.md, What
  // the image weighs): a server that outgrew it would be scheduled where its memory is not there.
  it("holds less memory once ready than the Deployment's memory request", async () => {
    const manifest = parse(await readFile(path.join(ROOT, "deploy/base/deployment.yaml"), "utf8")) as {
      spec: { template: { spec: { containers: { resources?: { requests?: { memory?: string } } }[] } } };
    };
    const request = manifest.spec.template.spec.containers[0]?.resources?.requests?.memory ?? "";
    const requestMiB = Number(/^(\d+)Mi$/.exec(request)?.[1]);
    expect(requestMiB).toBeGreaterThan(0);
    // The server's node process, not tini (PID 1): its VmRSS line, in kB.
    const status = await server.container.exec([
      "sh",
      "-c",
      'for p in /proc/[0-9]*; do [ "$(tr "\\0" " " < "$p/cmdline")" = "node dist/main.js " ] && grep VmRSS "$p/status"; done',
    ]);
    const residentKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status.stdout)?.[1]);
    expect(residentKiB).toBeGreaterThan(0);
    expect(residentKiB / 1024).toBeLessThan(requestMiB);
  });

  // The Deployment's preStop runs a command of the image: one the image lacks fails the hook, and Kubernetes
  // then signals the server at once, with no wait for the endpoints to drain.
  it("runs the Deployment's preStop command, as uid 1000 on a read-only root filesystem", async () => {
    const manifest = parse(await readFile(path.join(ROOT, "deploy/base/deployment.yaml"), "utf8")) as {
      spec: {
        template: { spec: { containers: { lifecycle?: { preStop?: { exec?: { command: string[] } } } }[] } };
      };
    };
    const command = manifest.spec.template.spec.containers[0]?.lifecycle?.preStop?.exec?.command ?? [];
    expect(command).not.toEqual([]);
    const hook = await server.container.exec(command);
    expect(hook.exitCode).toBe(0);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it("ships Node's compile cache of the server, which a start as uid 1000 reads", async () => {
    const run = await server.container.exec([
      "sh",
      "-c",
      "NODE_DEBUG_NATIVE=COMPILE_CACHE node dist/main.js --version",
    ]);
    expect(run.exitCode).toBe(0);
    expect(run.output).toMatch(/cache for (ESM )?file:\/\/\/app\/dist\/main\.js was accepted/);
    expect(run.output).toMatch(/cache for (ESM )?file:\/\/\/app\/dist\/chunks\/cli-\w+\.js was accepted/);
    // On stdout alone: the cache's debug lines go to stderr, and in the two streams merged the version
    // could land inside one of them.
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+$/m);
    // Node keeps a cache per user: root's, which --build-index wrote, was 1.5 MB that no start read.
    const caches = await server.container.exec(["ls", "/app/.node-compile-cache"]);
    expect(caches.stdout.trim().split("\n")).toEqual([expect.stringMatching(/-1000$/)]);
  });

  // Exit status 0 says that node (PID 1) handled SIGTERM and exited by itself: one killed at the end of
  // the grace exits 137, however busy the machine. How fast it drains is tested in test/main.test.ts.
  it("stops by itself on docker stop, cleanly", async () => {
    const stopping = await start();
    await stopping.container.stop({ timeout: 30_000, remove: false });
    const inspected = await (await getContainerRuntimeClient()).container
      .getById(stopping.container.getId())
      .inspect();
    expect(inspected.State.ExitCode).toBe(0);
    await (await getContainerRuntimeClient()).container.getById(stopping.container.getId()).remove();
  });

  // node as the container's PID 1 lost a SIGTERM sent within its own first tens of ms (the kernel spares a
  // PID 1 a signal's default action, and node had no handler yet): the server served on, and a pod deleted
  // then waited its whole grace for SIGKILL. Such a container never exits, and the test times out.
  it("stops on a SIGTERM sent as soon as it starts", async () => {
    const { dockerode } = (await getContainerRuntimeClient()).container;
    const container = await dockerode.createContainer({
      Image: image,
      Env: [`PORT=${await freePort()}`, "HOST=127.0.0.1"],
      HostConfig: { NetworkMode: "host" },
    });
    onTestFinished(() => container.remove({ force: true }));
    await container.start();
    await container.kill({ signal: "SIGTERM" });
    const ended: { StatusCode: number } = await container.wait();
    // 143 when the signal ended node before it handled SIGTERM, 0 when the server drained and exited.
    expect([0, 143]).toContain(ended.StatusCode);
  });
});
