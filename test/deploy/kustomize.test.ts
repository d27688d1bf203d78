import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Service } from "kubernetes-models/v1/Service";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { ROOT } from "../helpers/process.js";

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
};

async function render(dir: string): Promise<KubeObject[]> {
  const { stdout } = await run("kubectl", ["kustomize", dir], { cwd: ROOT });
  return parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject);
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

describe.skipIf(!kubectl)("kubectl kustomize .", () => {
  let objects: KubeObject[];
  let deployment: Deployment;
  beforeAll(async () => {
    objects = await render(".");
    deployment = new Deployment(objects.find((object) => object.kind === "Deployment") as never);
  });

  const find = (kind: string) => objects.find((object) => object.kind === kind);

  it("renders a Namespace, Deployment, Service and PodDisruptionBudget that pass the Kubernetes schemas", () => {
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      "Deployment/skills-mcp",
      "Namespace/flow",
      "PodDisruptionBudget/skills-mcp",
      "Service/skills-mcp",
    ]);
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `${object.apiVersion}/${object.kind}`).toBeDefined();
      if (Model) expect(() => new Model(object as never).validate()).not.toThrow();
    }
  });

  it("puts everything in namespace flow", () => {
    for (const object of objects.filter((candidate) => candidate.kind !== "Namespace")) {
      expect(object.metadata.namespace, object.kind).toBe("flow");
    }
  });

  it("exposes port 8000 named http on a Service that selects the pods", () => {
    const service = new Service(find("Service") as never);
    expect(service.spec?.ports).toEqual([{ name: "http", port: 8000, targetPort: "http", protocol: "TCP" }]);
    const podLabels = deployment.spec?.template.metadata?.labels ?? {};
    expect(Object.keys(service.spec?.selector ?? {}).length).toBeGreaterThan(0);
    expect(podLabels).toMatchObject(service.spec?.selector ?? { missing: "selector" });
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

  it("runs 2 replicas with a PodDisruptionBudget keeping one", () => {
    expect(deployment.spec?.replicas).toBe(2);
    const budget = new PodDisruptionBudget(find("PodDisruptionBudget") as never);
    expect(budget.spec?.minAvailable).toBe(1);
    expect(deployment.spec?.template.metadata?.labels).toMatchObject(
      budget.spec?.selector?.matchLabels ?? { no: "selector" },
    );
  });

  it("probes /health for startup, readiness and liveness", () => {
    const container = deployment.spec?.template.spec?.containers[0];
    for (const probe of [container?.startupProbe, container?.readinessProbe, container?.livenessProbe]) {
      expect(probe?.httpGet).toEqual({ path: "/health", port: "http" });
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

  it("runs as uid 1000, non-root, read-only, without privilege escalation or capabilities", () => {
    const pod = deployment.spec?.template.spec;
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

describe.skipIf(!kubectl)("kubectl kustomize deploy/overlays/single-pack", () => {
  it("is the same deployment serving one pack through SKILL_PACKS", async () => {
    const objects = await render("deploy/overlays/single-pack");
    const deployment = new Deployment(objects.find((object) => object.kind === "Deployment") as never);
    deployment.validate();
    expect(deployment.metadata?.namespace).toBe("flow");
    expect(deployment.spec?.template.spec?.containers[0]?.env).toContainEqual({
      name: "SKILL_PACKS",
      value: "n8n",
    });
  });
});
