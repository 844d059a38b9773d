// Who scrapes the destination container: our PodMonitor, and Linkerd-viz's Prometheus, whose
// `linkerd-controller` job reads every control-plane admin port. Both checked against Linkerd's
// rendered chart, before and after our drop-in.
import { describe, expect, it } from "vitest";
import { KIT_FILES, readYaml } from "../src/kit.js";
import {
  destinationPodTemplate,
  NO_RELEASE,
  renderedControlPlane,
  withDropIn,
} from "../src/linkerd-render.js";
import { type PodTemplate, podTargets } from "../src/pod-targets.js";
import { type Labels, type RelabelConfig, relabel } from "../src/relabel.js";
import { VIZ_CONTROLLER_JOB, VIZ_CONTROLLER_RELABEL } from "../src/viz-scrape-job.js";

/** What every alert and the dashboard's job variable select the server's series by. */
const ALERT_SELECTOR = {
  job: /^(?:linkerd-destination|linkerd-controller)$/,
  component: /^destination$/,
};
const selectedByAlerts = (labels: Labels) =>
  ALERT_SELECTOR.job.test(labels.job ?? "") &&
  ALERT_SELECTOR.component.test(labels.component ?? "");

interface PodMonitor {
  metadata: { namespace: string };
  spec: {
    namespaceSelector: { matchNames: string[] };
    selector: { matchLabels: Record<string, string> };
    podMetricsEndpoints: {
      port: string;
      path: string;
      relabelings: {
        action: string;
        sourceLabels?: string[];
        targetLabel: string;
        replacement?: string;
      }[];
    }[];
  };
}
const podMonitor = readYaml<PodMonitor>(KIT_FILES.podMonitor);
const endpoint = podMonitor.spec.podMetricsEndpoints[0];

/** The targets the PodMonitor's endpoint scrapes, with the labels it gives them. */
function podMonitorTargets(targets: readonly Labels[]): Labels[] {
  if (!endpoint) return [];
  const relabelings: RelabelConfig[] = endpoint.relabelings.map((r) => ({
    action: r.action as RelabelConfig["action"],
    ...(r.sourceLabels ? { source_labels: r.sourceLabels } : {}),
    target_label: r.targetLabel,
    ...(r.replacement !== undefined ? { replacement: r.replacement } : {}),
  }));
  return targets
    .filter((t) =>
      Object.entries(podMonitor.spec.selector.matchLabels).every(
        ([k, v]) => t[`__meta_kubernetes_pod_label_${k.replace(/[^a-zA-Z0-9_]/g, "_")}`] === v,
      ),
    )
    .filter((t) =>
      podMonitor.spec.namespaceSelector.matchNames.includes(t.__meta_kubernetes_namespace ?? ""),
    )
    .filter((t) => t.__meta_kubernetes_pod_container_port_name === endpoint.port)
    .map((t) => relabel(t, relabelings))
    .filter((t): t is Labels => t !== undefined);
}

const EMPTY_POD: PodTemplate = { spec: { containers: [] } };
const WHERE = { namespace: "linkerd", name: "linkerd-destination-5d8f7c-abcde", ip: "10.244.0.7" };

describe("the PodMonitor", () => {
  it("labels what it scrapes as the alerts select it", () => {
    expect(endpoint?.path).toBe("/metrics");
    const target = { __meta_kubernetes_pod_container_name: "destination" };
    const labels = relabel(target, [
      { action: "replace", target_label: "job", replacement: "linkerd-destination" },
      {
        action: "replace",
        source_labels: ["__meta_kubernetes_pod_container_name"],
        target_label: "component",
      },
    ]);
    expect(labels && selectedByAlerts(labels)).toBe(true);
  });
});

const rendered = renderedControlPlane();
describe.skipIf(rendered === undefined)(
  `Linkerd's rendered chart${rendered === undefined ? ` (${NO_RELEASE})` : ""}`,
  () => {
    // Read only when the release is there: describe's body runs even when it is skipped.
    const manifests = rendered ?? "";
    const before = rendered === undefined ? EMPTY_POD : destinationPodTemplate(manifests);
    const after =
      rendered === undefined ? EMPTY_POD : destinationPodTemplate(withDropIn(manifests));

    it("keeps the pod's labels, annotations and every container's ports through the drop-in", () => {
      expect(after.metadata).toEqual(before.metadata);
      const ports = (t: typeof before) =>
        t.spec.containers.map((c) => ({ name: c.name, ports: c.ports }));
      expect(ports(after)).toEqual(ports(before));
      // The drop-in did change the container (else this proves nothing).
      const image = (t: typeof before) =>
        t.spec.containers.find((c) => c.name === "destination") as { image?: string };
      expect(image(after).image).toBe("destination-server:observability-e2e");
      expect(image(before).image).not.toBe(image(after).image);
    });

    for (const [when, template] of [
      ["before", before],
      ["after", after],
    ] as const) {
      it(`is scraped by Linkerd-viz's ${VIZ_CONTROLLER_JOB} job on port 9996, component destination (${when} the drop-in)`, () => {
        const kept = podTargets(template, WHERE)
          .map((t) => relabel(t, VIZ_CONTROLLER_RELABEL))
          .filter((t): t is Labels => t !== undefined);
        const destination = kept.filter((t) => t.component === "destination");
        expect(destination.map((t) => t.__address__)).toEqual([`${WHERE.ip}:9996`]);
        // The job's name becomes the `job` label: the alerts select that too.
        expect(selectedByAlerts({ ...destination[0], job: VIZ_CONTROLLER_JOB })).toBe(true);
        // The proxy's admin port is the linkerd-proxy job's, not this one's.
        expect(kept.map((t) => t.component)).not.toContain("linkerd-proxy");
      });

      it(`is scraped by the PodMonitor on the destination container's admin port (${when} the drop-in)`, () => {
        const scraped = podMonitorTargets(podTargets(template, WHERE));
        expect(scraped.map((t) => t.__address__)).toEqual([`${WHERE.ip}:9996`]);
        expect(scraped.every(selectedByAlerts)).toBe(true);
      });
    }
  },
);
