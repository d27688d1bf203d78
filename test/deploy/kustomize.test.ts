import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Service } from "kubernetes-models/v1/Service";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { SHUTDOWN_GRACE_MS } from "../../src/config/settings.js";
import { loadStartupConfig } from "../../src/startup/index.js";
import { ROOT } from "../helpers/process.js";
import { makeTree, type TempTree, writeTree } from "../helpers/skill-tree.js";

const run = promisify(execFile);

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}

/** The schema-checking model of each kind we ship; anything else in the output is a surprise. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
};

/** The kustomizations one applies: the main deployment (the root) and each overlay beside it. */
const MAIN = ".";
const OVERLAYS = ["deploy/overlays/single-pack"];
const COMPONENTS = [
  "deploy/components/namespace",
  "deploy/components/network-policy",
  "deploy/components/autoscaler",
];

async function render(dir: string): Promise<KubeObject[]> {
  const { stdout } = await run("kubectl", ["kustomize", dir], { cwd: ROOT });
  return parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject);
}

let scratch: TempTree;

/**
 * Renders the kustomization in `dir` with `components` added to it, as docs/deployment.md says to enable them: a
 * copy of its kustomization.yaml in a temp folder, its paths made relative to there.
 */
async function renderWith(dir: string, components: readonly string[]): Promise<KubeObject[]> {
  const copy = path.join(scratch.dir, [dir, ...components].join(" ").replaceAll(/[^\w]+/g, "_"));
  const reach = (entry: string) => path.relative(copy, path.join(ROOT, dir, entry));
  const kustomization = parse(await readFile(path.join(ROOT, dir, "kustomization.yaml"), "utf8")) as {
    resources: string[];
  };
  const withComponents = {
    ...kustomization,
    resources: kustomization.resources.map(reach),
    components: components.map((component) => path.relative(copy, path.join(ROOT, component))),
  };
  await writeTree(copy, { "kustomization.yaml": stringify(withComponents) });
  return render(copy);
}

function validate(objects: readonly KubeObject[]): void {
  for (const object of objects) {
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    expect(Model, `${object.apiVersion}/${object.kind}`).toBeDefined();
    if (Model) expect(() => new Model(object as never).validate()).not.toThrow();
  }
}

const named = (objects: readonly KubeObject[]) =>
  objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
const only = <T>(objects: readonly KubeObject[], kind: string, Model: new (data: never) => T): T => {
  const found = objects.filter((object) => object.kind === kind);
  expect(found, kind).toHaveLength(1);
  return new Model(found[0] as never);
};
const podLabels = (objects: readonly KubeObject[]) =>
  only(objects, "Deployment", Deployment).spec?.template.metadata?.labels ?? {};
/** Whether a matchLabels selector picks pods with these labels. */
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The kubelet's defaults for a container's log: `containerLogMaxFiles` files of `containerLogMaxSize`. */
const KUBELET_LOG_FILES = 5;
const KUBELET_LOG_FILE_MIB = 10;

/** A Kubernetes quantity of bytes (`64Mi`, `1Gi`, `500M`) in MiB. */
function mebibytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(quantity);
  expect(match, quantity).not.toBeNull();
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 };
  return (Number(match?.[1]) * (units[match?.[2] ?? ""] ?? 1)) / 2 ** 20;
}

async function hasKubectl(): Promise<boolean> {
  try {
    await run("kubectl", ["version", "--client"]);
    return true;
  } catch {
    console.warn("\n*** kubectl is not installed: the Kubernetes manifest tests are SKIPPED ***\n");
    return false;
  }
}

const kubectl = await hasKubectl();

beforeAll(async () => {
  scratch = await makeTree({});
});
afterAll(async () => {
  await scratch?.remove();
});

describe.skipIf(!kubectl)("kubectl kustomize .", () => {
  let objects: KubeObject[];
  let deployment: Deployment;
  beforeAll(async () => {
    objects = await render(MAIN);
    deployment = new Deployment(objects.find((object) => object.kind === "Deployment") as never);
  });

  const find = (kind: string) => objects.find((object) => object.kind === kind);

  // Issue 26: the base created Namespace flow, so `kubectl delete -k .` deleted n8n's namespace with it.
  it("renders a Deployment, Service and PodDisruptionBudget that pass the Kubernetes schemas, and no Namespace", () => {
    expect(named(objects)).toEqual([
      "Deployment/skills-mcp",
      "PodDisruptionBudget/skills-mcp",
      "Service/skills-mcp",
    ]);
    validate(objects);
  });

  it("puts everything in namespace flow", () => {
    for (const object of objects) expect(object.metadata.namespace, object.kind).toBe("flow");
  });

  it("exposes port 8000 named http on a Service that selects the pods", () => {
    const service = new Service(find("Service") as never);
    expect(service.spec?.ports).toEqual([{ name: "http", port: 8000, targetPort: "http", protocol: "TCP" }]);
    expect(selects(service.spec?.selector, podLabels(objects))).toBe(true);
    expect(deployment.spec?.template.spec?.containers[0]?.ports).toEqual([
      { name: "http", containerPort: 8000, protocol: "TCP" },
    ]);
  });

  it("pins the image and never pulls latest", () => {
    const container = deployment.spec?.template.spec?.containers[0];
    expect(container?.image).toMatch(/^ghcr\.io\/[^/]+\/skills-mcp(:[\w.-]+|@sha256:[0-9a-f]{64})$/);
    expect(container?.image).not.toMatch(/:latest$/);
    expect(container?.imagePullPolicy).toBe("IfNotPresent");
  });

  // Regression: minAvailable 1 let drains evict all but one of 10 autoscaled replicas at once.
  it("runs 2 replicas with a PodDisruptionBudget letting one go at a time, at any scale", () => {
    expect(deployment.spec?.replicas).toBe(2);
    const budget = new PodDisruptionBudget(find("PodDisruptionBudget") as never);
    expect(budget.spec?.maxUnavailable).toBe(1);
    expect(budget.spec?.minAvailable).toBeUndefined();
    expect(selects(budget.spec?.selector?.matchLabels, podLabels(objects))).toBe(true);
  });

  // docs/deployment.md promises rollouts that never drop below the replicas serving: one new pod is added,
  // and an old one goes only once that one is available. Kubernetes' default (25% each way) lets a rollout
  // of 4 replicas or more, as the autoscaler runs, take old ones down first.
  it("replaces pods one at a time in a rollout, never serving with fewer than its replicas", () => {
    expect(deployment.spec?.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
  });

  // Both replicas crash-looping (a bad SKILL_PACKS, say) left the budget unmet, and the default policy then
  // refused to evict them: every node drain of the cluster hung on them.
  it("lets a node drain evict pods that are not ready, so a crash loop never blocks it", () => {
    const budget = new PodDisruptionBudget(find("PodDisruptionBudget") as never);
    expect(budget.spec?.unhealthyPodEvictionPolicy).toBe("AlwaysAllow");
  });

  it("probes /health for startup, readiness and liveness", () => {
    const container = deployment.spec?.template.spec?.containers[0];
    for (const probe of [container?.startupProbe, container?.readinessProbe, container?.livenessProbe]) {
      expect(probe?.httpGet).toEqual({ path: "/health", port: "http" });
    }
  });

  // Regression: a new pod counted as available the moment it was first ready, so a revision that turned
  // unready seconds later (its memory limit met on the first requests) had replaced every old pod already.
  it("counts a new pod as available only once it has stayed ready through two readiness periods", () => {
    const probe = deployment.spec?.template.spec?.containers[0]?.readinessProbe;
    const leavesAfterSeconds = (probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3);
    expect(deployment.spec?.minReadySeconds ?? 0).toBeGreaterThanOrEqual(leavesAfterSeconds);
  });

  // 50k skills without a saved index are ready after 42 s on two cores (docs/performance.md, Scale: the
  // 2026-12-03 bench), and the startup probe allowed 30 s: such a pod was restarted before it could serve,
  // over and over. The budget leaves room for a node some 2.5 times slower.
  it("gives a start on a large catalog without a saved index time to listen, with room for a slower node", () => {
    const probe = deployment.spec?.template.spec?.containers[0]?.startupProbe;
    const budgetSeconds = (probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3);
    expect(budgetSeconds).toBeGreaterThanOrEqual(2.5 * 42);
  });

  // Regression: the image's HEALTHCHECK allowed 10 s and three retries (some 40 s), so a container started on
  // a large catalog without a saved index was called unhealthy (Compose, Swarm) while Kubernetes waited.
  it("gives the image's HEALTHCHECK as long a start as the startupProbe", async () => {
    const probe = deployment.spec?.template.spec?.containers[0]?.startupProbe;
    const budgetSeconds = (probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3);
    const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
    const startPeriod = /^HEALTHCHECK .*--start-period=(\d+)s/m.exec(dockerfile)?.[1];
    expect(Number(startPeriod)).toBeGreaterThanOrEqual(budgetSeconds);
  });

  // With Kubernetes' default 1 s, a pod answering slowly while the server still serves (it sheds /mcp only
  // past SHED_EVENT_LOOP_DELAY_MS of lag) failed liveness and was restarted.
  it("gives liveness more time to answer than the event-loop lag the server serves through", () => {
    const probe = deployment.spec?.template.spec?.containers[0]?.livenessProbe;
    const { shedEventLoopDelayMs } = loadStartupConfig({}, []).http;
    expect((probe?.timeoutSeconds ?? 1) * 1000).toBeGreaterThanOrEqual(2 * shedEventLoopDelayMs);
  });

  // Regression: no preStop, so SIGTERM came as the pod left the endpoints, and only the server's 2 s drain
  // covered the proxies' catching up; the pod's grace is also what the preStop's wait spends.
  it("waits before SIGTERM while the endpoints drain, and gives the whole stop time inside the grace", () => {
    const pod = deployment.spec?.template.spec;
    const command = pod?.containers[0]?.lifecycle?.preStop?.exec?.command ?? [];
    expect(command[0]).toBe("sleep");
    const preStopSeconds = Number(command[1]);
    expect(preStopSeconds).toBeGreaterThanOrEqual(5);
    const { shutdownDrainMs } = loadStartupConfig({}, []);
    const stopSeconds = preStopSeconds + (shutdownDrainMs + SHUTDOWN_GRACE_MS) / 1000;
    expect(pod?.terminationGracePeriodSeconds ?? 30).toBeGreaterThanOrEqual(2 * stopSeconds);
  });

  // Regression: one constraint, on nodes only, counting the old revision's pods: a rolling update could put
  // every new replica in one zone, and a zone lost took them all.
  it("spreads the replicas of one revision over nodes and zones, without refusing to schedule them", () => {
    const constraints = deployment.spec?.template.spec?.topologySpreadConstraints ?? [];
    expect(constraints.map((constraint) => constraint.topologyKey).sort()).toEqual([
      "kubernetes.io/hostname",
      "topology.kubernetes.io/zone",
    ]);
    for (const constraint of constraints) {
      expect(constraint.whenUnsatisfiable).toBe("ScheduleAnyway");
      expect(constraint.matchLabelKeys).toEqual(["pod-template-hash"]);
      expect(constraint.labelSelector?.matchLabels).toEqual(podLabels(objects));
    }
  });

  it("annotates the pods for Prometheus to scrape /metrics on port 8000", () => {
    expect(deployment.spec?.template.metadata?.annotations).toEqual({
      "prometheus.io/scrape": "true",
      "prometheus.io/port": "8000",
      "prometheus.io/path": "/metrics",
    });
  });

  it("sets memory requests and limits", () => {
    const resources = deployment.spec?.template.spec?.containers[0]?.resources;
    expect(resources?.requests).toMatchObject({
      memory: expect.stringMatching(/Mi$/),
      cpu: expect.any(String),
    });
    expect(resources?.limits).toMatchObject({ memory: expect.stringMatching(/Mi$/) });
  });

  // Regression: no ephemeral-storage request, so a node's disk was not counted for the pod's log, and no
  // limit, so nothing bounded it. The server writes no file (read-only root, no writable volume): the log the
  // kubelet keeps is all it takes, by default 5 files of 10 MiB.
  it("requests the disk its log takes as the kubelet keeps it, and limits it well above that", () => {
    const container = deployment.spec?.template.spec?.containers[0];
    const keptLog = KUBELET_LOG_FILES * KUBELET_LOG_FILE_MIB;
    const requested = mebibytes(String(container?.resources?.requests?.["ephemeral-storage"] ?? "0"));
    const limit = mebibytes(String(container?.resources?.limits?.["ephemeral-storage"] ?? "0"));
    expect(requested).toBeGreaterThanOrEqual(keptLog);
    expect(limit).toBeGreaterThanOrEqual(2 * requested);
    expect(container?.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(container?.volumeMounts?.filter((mount) => mount.readOnly !== true) ?? []).toEqual([]);
  });

  it("runs as uid 1000, non-root, read-only, without privilege escalation or capabilities", () => {
    const pod = deployment.spec?.template.spec;
    expect(pod?.automountServiceAccountToken).toBe(false);
    // Regression: every Service of namespace flow came into the container's environment as variables.
    expect(pod?.enableServiceLinks).toBe(false);
    expect(pod?.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod?.containers[0]?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
  });
});

describe.skipIf(!kubectl)("kubectl kustomize deploy/base", () => {
  it("holds no Namespace and names none: the kustomization using it says where it goes", async () => {
    const objects = await render("deploy/base");
    expect(named(objects)).toEqual([
      "Deployment/skills-mcp",
      "PodDisruptionBudget/skills-mcp",
      "Service/skills-mcp",
    ]);
    for (const object of objects) expect(object.metadata.namespace, object.kind).toBeUndefined();
  });
});

describe.skipIf(!kubectl).each(OVERLAYS)("kubectl kustomize %s", (overlay) => {
  let main: KubeObject[];
  let objects: KubeObject[];
  beforeAll(async () => {
    [main, objects] = await Promise.all([render(MAIN), render(overlay)]);
  });

  it("passes the Kubernetes schemas and serves one pack through SKILL_PACKS", () => {
    validate(objects);
    expect(only(objects, "Deployment", Deployment).spec?.template.spec?.containers[0]?.env).toContainEqual({
      name: "SKILL_PACKS",
      value: "n8n",
    });
  });

  // Issue 26: the overlay had the main deployment's names, so applying it replaced the main deployment.
  it("runs beside the main deployment: its own names, in the same namespace", () => {
    const mainNames = new Set(named(main));
    expect(named(objects).filter((name) => mainNames.has(name))).toEqual([]);
    expect(named(objects)).toHaveLength(main.length);
    for (const object of objects) expect(object.metadata.namespace, object.kind).toBe("flow");
  });

  it("selects its own pods only, and the main deployment's selectors skip them", () => {
    const own = podLabels(objects);
    const theirs = podLabels(main);
    for (const [mine, other, pods] of [
      [objects, main, own],
      [main, objects, theirs],
    ] as const) {
      const service = only(mine, "Service", Service).spec?.selector;
      const budget = only(mine, "PodDisruptionBudget", PodDisruptionBudget).spec?.selector?.matchLabels;
      const deployment = only(mine, "Deployment", Deployment).spec?.selector.matchLabels;
      for (const selector of [service, budget, deployment]) {
        expect(selects(selector, pods)).toBe(true);
        expect(selects(selector, podLabels(other))).toBe(false);
      }
    }
  });
});

describe.skipIf(!kubectl).each([MAIN, ...OVERLAYS])("the optional components, added to %s", (dir) => {
  let plain: KubeObject[];
  beforeAll(async () => {
    plain = await render(dir);
  });

  it("each renders only what it adds, and everything passes the Kubernetes schemas", async () => {
    const added: Record<string, string[]> = {};
    for (const component of COMPONENTS) {
      const objects = await renderWith(dir, [component]);
      validate(objects);
      const before = new Set(named(plain));
      added[path.basename(component)] = named(objects).filter((name) => !before.has(name));
    }
    const name = only(plain, "Deployment", Deployment).metadata?.name;
    expect(added).toEqual({
      namespace: ["Namespace/flow"],
      "network-policy": [`NetworkPolicy/${name}`],
      autoscaler: [`HorizontalPodAutoscaler/${name}`],
    });
  });

  // Regression: the HPA and NetworkPolicy carried no labels, so `kubectl get -l app.kubernetes.io/name=…`
  // left them out.
  it("labels what each adds as the deployment's own objects are labelled", async () => {
    const labels = only(plain, "Deployment", Deployment).metadata?.labels;
    for (const component of ["deploy/components/network-policy", "deploy/components/autoscaler"]) {
      const objects = await renderWith(dir, [component]);
      const added = objects.filter(
        (object) => !["Deployment", "Service", "PodDisruptionBudget"].includes(object.kind),
      );
      expect(added).toHaveLength(1);
      expect(added[0]?.metadata.labels).toEqual(labels);
    }
  });

  it("admits only the client namespaces and Prometheus, to these pods, on port http", async () => {
    const objects = await renderWith(dir, ["deploy/components/network-policy"]);
    const policy = only(objects, "NetworkPolicy", NetworkPolicy);
    expect(policy.metadata?.namespace).toBe("flow");
    expect(selects(policy.spec?.podSelector.matchLabels, podLabels(objects))).toBe(true);
    expect(policy.spec?.policyTypes).toEqual(["Ingress"]);
    const namespaceIn = (values: string[]) => ({
      matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values }],
    });
    const port = [{ port: "http", protocol: "TCP" }];
    expect(policy.spec?.ingress).toEqual([
      { from: [{ namespaceSelector: namespaceIn(["flow"]) }], ports: port },
      {
        from: [
          {
            namespaceSelector: namespaceIn(["monitoring"]),
            podSelector: {
              matchExpressions: [{ key: "app.kubernetes.io/name", operator: "In", values: ["prometheus"] }],
            },
          },
        ],
        ports: port,
      },
    ]);
  });

  it("scales the Deployment on CPU, never so low that a disruption its budget allows leaves none", async () => {
    const objects = await renderWith(dir, ["deploy/components/autoscaler"]);
    const autoscaler = only(objects, "HorizontalPodAutoscaler", HorizontalPodAutoscaler);
    const deployment = only(objects, "Deployment", Deployment);
    const budget = only(objects, "PodDisruptionBudget", PodDisruptionBudget);
    expect(autoscaler.spec?.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata?.name,
    });
    expect(autoscaler.spec?.metrics?.map((metric) => metric.resource?.name)).toEqual(["cpu"]);
    const maxUnavailable = budget.spec?.maxUnavailable;
    expect(typeof maxUnavailable).toBe("number");
    expect(autoscaler.spec?.minReplicas).toBeGreaterThanOrEqual(Number(maxUnavailable) + 1);
    expect(autoscaler.spec?.maxReplicas).toBeGreaterThan(autoscaler.spec?.minReplicas ?? Infinity);
    // A fixed count would be reset by every `kubectl apply`, undoing the autoscaler's choice.
    expect(deployment.spec?.replicas).toBeUndefined();
  });

  // Regression: no behavior, so Kubernetes' default scale-down (100% every 15 s, after 5 minutes) took every
  // replica a burst added away at once, and a load that had only paused met 2 pods.
  it("scales down slowly after a burst: a stabilization window, then one replica a minute at most", async () => {
    const objects = await renderWith(dir, ["deploy/components/autoscaler"]);
    const scaleDown = only(objects, "HorizontalPodAutoscaler", HorizontalPodAutoscaler).spec?.behavior
      ?.scaleDown;
    expect(scaleDown?.stabilizationWindowSeconds).toBeGreaterThanOrEqual(60);
    expect(scaleDown?.selectPolicy).not.toBe("Disabled");
    expect(scaleDown?.policies?.length).toBeGreaterThan(0);
    for (const policy of scaleDown?.policies ?? []) {
      expect(policy.type).toBe("Pods");
      expect(policy.value).toBe(1);
      expect(policy.periodSeconds).toBeGreaterThanOrEqual(60);
    }
  });

  it("creates the namespace it deploys to, when asked", async () => {
    const objects = await renderWith(dir, ["deploy/components/namespace"]);
    expect(only(objects, "Namespace", Namespace).metadata?.name).toBe("flow");
  });
});

/** The `patches:` block that the Kubernetes section of docs/deployment.md gives for moving the port. */
function documentedPortPatches(doc: string): string {
  const section = doc.split(/^## /m).find((part) => part.startsWith("Kubernetes\n")) ?? "";
  const port = section.slice(section.indexOf("**The port.**"));
  return /```yaml\n(patches:[\s\S]*?)```/.exec(port)?.[1] ?? "";
}

// PORT set alone moved the server off the port the probes ask (8000): the pod was restarted again and again
// without serving, and nothing in the README said what else to change.
const DEPLOYMENT_DOC = path.join(ROOT, "docs", "deployment.md");

it("gives the overlay's patches for moving the port in docs/deployment.md, where the README points", async () => {
  expect(documentedPortPatches(await readFile(DEPLOYMENT_DOC, "utf8"))).toContain("containerPort");
  expect(await readFile(path.join(ROOT, "README.md"), "utf8")).toContain("](docs/deployment.md#kubernetes)");
});

describe.skipIf(!kubectl)("an overlay moving the port, as docs/deployment.md says", () => {
  it("moves the server, the port the probes, Service and Prometheus use, together", async () => {
    const patches = documentedPortPatches(await readFile(DEPLOYMENT_DOC, "utf8"));
    expect(patches).not.toBe("");
    const overlay = path.join(scratch.dir, "port-overlay");
    const base = path.relative(overlay, path.join(ROOT, "deploy/base"));
    await writeTree(overlay, {
      "kustomization.yaml": `${stringify({ namespace: "flow", resources: [base] })}${patches}`,
    });
    const objects = await render(overlay);
    validate(objects);
    const deployment = only(objects, "Deployment", Deployment);
    const container = deployment.spec?.template.spec?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map(({ name, value }) => [name, value ?? ""]));
    // What the server listens on: the image's PORT (8000) unless the container's env sets another.
    const listens = loadStartupConfig({ PORT: "8000", ...env }, []).port;
    expect(listens).not.toBe(8000);
    expect(container?.ports).toEqual([{ name: "http", containerPort: listens, protocol: "TCP" }]);
    for (const probe of [container?.startupProbe, container?.readinessProbe, container?.livenessProbe]) {
      expect(probe?.httpGet?.port).toBe("http");
    }
    expect(deployment.spec?.template.metadata?.annotations?.["prometheus.io/port"]).toBe(String(listens));
    expect(only(objects, "Service", Service).spec?.ports?.[0]?.targetPort).toBe("http");
  });
});

/** A `### title` section of docs/deployment.md, up to the next heading. */
function deploymentSection(doc: string, title: string): string {
  return doc.split(/^#{2,3} /m).find((part) => part.startsWith(`${title}\n`)) ?? "";
}

// An operator asked to "mount a Secret and set API_KEYS_FILE" had to write the volume, the mount and the
// path by hand, and a path that missed the Secret's key stopped every pod at startup.
describe.skipIf(!kubectl)("the API keys Secret, mounted as docs/deployment.md says", () => {
  it("sets API_KEYS_FILE to the file the documented Secret's key becomes, on a read-only mount", async () => {
    const section = deploymentSection(await readFile(DEPLOYMENT_DOC, "utf8"), "API keys");
    const created = /create secret generic (\S+) --from-literal=(\w+)=/.exec(section);
    const patches = /```yaml\n(patches:[\s\S]*?)```/.exec(section)?.[1] ?? "";
    expect(created).not.toBeNull();
    expect(patches).not.toBe("");
    const overlay = path.join(scratch.dir, "api-keys-overlay");
    const base = path.relative(overlay, path.join(ROOT, "deploy/base"));
    await writeTree(overlay, {
      "kustomization.yaml": `${stringify({ namespace: "flow", resources: [base] })}${patches}`,
    });
    const objects = await render(overlay);
    validate(objects);
    const pod = only(objects, "Deployment", Deployment).spec?.template.spec;
    const container = pod?.containers[0];
    const volume = pod?.volumes?.find((candidate) => candidate.secret?.secretName === created?.[1]);
    const mount = container?.volumeMounts?.find((candidate) => candidate.name === volume?.name);
    expect(mount?.readOnly).toBe(true);
    const keysFile = container?.env?.find(({ name }) => name === "API_KEYS_FILE")?.value;
    expect(keysFile).toBe(`${mount?.mountPath}/${created?.[2]}`);
    expect(container?.securityContext?.readOnlyRootFilesystem).toBe(true);
  });
});

/**
 * The Kubernetes release from which each field, API version or well-known label the manifests may use is
 * there and on by default. On an older cluster, `kubectl apply` refuses a field the API server does not know
 * (strict field validation), and the server drops one it knows behind a feature gate that is off.
 */
const SINCE: Readonly<Record<string, string>> = {
  matchLabelKeys: "1.27",
  unhealthyPodEvictionPolicy: "1.27",
  "ephemeral-storage": "1.25",
  "autoscaling/v2": "1.23",
  "kubernetes.io/metadata.name": "1.22",
  "policy/v1": "1.21",
  startupProbe: "1.20",
  seccompProfile: "1.19",
  topologySpreadConstraints: "1.19",
};

/** Every key and string value in `value`, at any depth. */
function namesIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof value === "string") found.add(value);
  else if (Array.isArray(value)) for (const item of value) namesIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) namesIn(item, found.add(key));
  }
  return found;
}

const minor = (version: string) => Number(version.split(".")[1]);

// The manifests named no Kubernetes version: on 1.25 and 1.26 the spread's matchLabelKeys and the budget's
// unhealthyPodEvictionPolicy were silently dropped, and before that `kubectl apply` refused them.
describe.skipIf(!kubectl)("the Kubernetes version docs/deployment.md names", () => {
  it("is at least the newest that a field of the manifests, with every component, needs", async () => {
    const named = /\*\*Kubernetes version\.\*\*[^*]*?Kubernetes (1\.\d+) or later/.exec(
      await readFile(DEPLOYMENT_DOC, "utf8"),
    )?.[1];
    expect(named).toBeDefined();
    const used = new Set<string>();
    for (const dir of [MAIN, ...OVERLAYS]) namesIn(await renderWith(dir, COMPONENTS), used);
    const needs = Object.entries(SINCE).filter(([name]) => used.has(name));
    expect(needs.map(([name]) => name)).toContain("matchLabelKeys");
    for (const [name, since] of needs)
      expect(minor(named ?? "1.0"), name).toBeGreaterThanOrEqual(minor(since));
  });
});
