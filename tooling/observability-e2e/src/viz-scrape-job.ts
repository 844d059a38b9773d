// The relabelling of the `linkerd-controller` job of Linkerd-viz's Prometheus, the scrape that
// already reads the control plane's admin ports. Copied from upstream's
// viz/charts/linkerd-viz/templates/prometheus.yaml (linkerd/linkerd2 at b24cd405, 2026-08-21);
// its kubernetes_sd_configs select pods of role `pod` in the linkerd and linkerd-viz namespaces.
import type { RelabelConfig } from "./relabel.js";

export const VIZ_CONTROLLER_JOB = "linkerd-controller";

export const VIZ_CONTROLLER_RELABEL: readonly RelabelConfig[] = [
  {
    source_labels: ["__meta_kubernetes_pod_container_port_name"],
    action: "keep",
    regex: ".*admin$",
  },
  {
    source_labels: ["__meta_kubernetes_pod_container_port_name"],
    action: "drop",
    regex: "linkerd-admin",
  },
  {
    source_labels: ["__meta_kubernetes_pod_container_name"],
    action: "replace",
    target_label: "component",
  },
];
