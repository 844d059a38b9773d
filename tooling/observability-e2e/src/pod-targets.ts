// The targets Prometheus' Kubernetes service discovery (role: pod) makes of one pod: one per
// declared container port, with the `__meta_kubernetes_*` labels a scrape job relabels.
import type { Labels } from "./relabel.js";

export interface PodTemplate {
  readonly metadata?: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly containers: readonly Container[];
    readonly initContainers?: readonly Container[];
  };
}

interface Container {
  readonly name: string;
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
}

/** Prometheus' label-name sanitizing: anything but `[a-zA-Z0-9_]` becomes `_`. */
const sanitize = (name: string): string => name.replace(/[^a-zA-Z0-9_]/g, "_");

export function podTargets(
  pod: PodTemplate,
  where: { namespace: string; name: string; ip: string },
): Labels[] {
  const podLabels: Record<string, string> = {
    __meta_kubernetes_namespace: where.namespace,
    __meta_kubernetes_pod_name: where.name,
    __meta_kubernetes_pod_ip: where.ip,
    __meta_kubernetes_pod_phase: "Running",
  };
  for (const [key, value] of Object.entries(pod.metadata?.labels ?? {})) {
    podLabels[`__meta_kubernetes_pod_label_${sanitize(key)}`] = value;
    podLabels[`__meta_kubernetes_pod_labelpresent_${sanitize(key)}`] = "true";
  }
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {})) {
    podLabels[`__meta_kubernetes_pod_annotation_${sanitize(key)}`] = value;
    podLabels[`__meta_kubernetes_pod_annotationpresent_${sanitize(key)}`] = "true";
  }
  const containers = [
    ...pod.spec.containers.map((c) => ({ c, init: "false" })),
    ...(pod.spec.initContainers ?? []).map((c) => ({ c, init: "true" })),
  ];
  return containers.flatMap(({ c, init }) => {
    const container = {
      ...podLabels,
      __meta_kubernetes_pod_container_name: c.name,
      __meta_kubernetes_pod_container_init: init,
    };
    // A container without ports is one target on the pod's address.
    if (!c.ports?.length) return [{ ...container, __address__: where.ip }];
    return c.ports.map((p) => ({
      ...container,
      __address__: `${where.ip}:${p.containerPort}`,
      __meta_kubernetes_pod_container_port_name: p.name ?? "",
      __meta_kubernetes_pod_container_port_number: String(p.containerPort),
    }));
  });
}
