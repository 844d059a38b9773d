// The rendered linkerd-control-plane chart, read as a cluster would read it: the objects of the
// `linkerd` namespace, and each container's args and environment, so the suite starts every
// process exactly as the chart says (and notices when a new release says something else).
import { readFileSync } from "node:fs";
import type { KubeObject } from "@destination/proxy-e2e/cluster-objects";
import { parseAllDocuments } from "yaml";

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly fieldRef?: { readonly fieldPath: string };
    readonly configMapKeyRef?: { readonly name: string; readonly key: string };
  };
}

export interface Container {
  readonly name: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
}

interface Deployment extends KubeObject {
  spec: {
    replicas?: number;
    template: { spec: { containers: Container[]; initContainers?: Container[] } };
  };
}

/** The kinds the suite applies to the API server (nothing runs them: there is no kubelet). */
const APPLIED_KINDS = new Set(["Deployment", "Service", "ServiceAccount", "Secret", "ConfigMap"]);

export class RenderedChart {
  private constructor(readonly objects: readonly KubeObject[]) {}

  static read(path: string): RenderedChart {
    const objects = parseAllDocuments(readFileSync(path, "utf8"))
      .map((d) => d.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => o !== null && typeof o === "object" && "kind" in o);
    return new RenderedChart(objects);
  }

  find(kind: string, name: string): KubeObject {
    const found = this.objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (found === undefined) throw new Error(`the rendered chart has no ${kind} ${name}`);
    return found;
  }

  deployment(name: string): Deployment {
    return this.find("Deployment", name) as Deployment;
  }

  /** A container by name; the injected proxy is a native sidecar (an init container). */
  container(deployment: string, container: string): Container {
    const { containers, initContainers = [] } = this.deployment(deployment).spec.template.spec;
    const found = [...containers, ...initContainers].find((c) => c.name === container);
    if (found === undefined) throw new Error(`${deployment} has no container ${container}`);
    return found;
  }

  /** The args of a container, in order (the leading subcommand included). */
  args(deployment: string, container: string): string[] {
    return [...(this.container(deployment, container).args ?? [])];
  }

  /** A Secret's or ConfigMap's value by key (a Secret's decoded). */
  data(kind: "Secret" | "ConfigMap", name: string, key: string): string {
    const o = this.find(kind, name) as KubeObject & { data?: Record<string, string> };
    const value = o.data?.[key];
    if (value === undefined) throw new Error(`${kind} ${name} has no ${key}`);
    return kind === "Secret" ? Buffer.from(value, "base64").toString("utf8") : value;
  }

  /** The `linkerd` namespace's Deployments, Services, ServiceAccounts, Secrets, ConfigMaps. */
  namespaceObjects(namespace = "linkerd"): KubeObject[] {
    return this.objects.filter(
      (o) => APPLIED_KINDS.has(o.kind) && o.metadata.namespace === namespace,
    );
  }
}
