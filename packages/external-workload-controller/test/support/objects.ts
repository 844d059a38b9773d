// Objects for the unit tests, shaped as the API server returns them.
import type {
  Endpoint,
  EndpointSlice,
  ExternalWorkload,
  Service,
  ServicePort,
} from "@destination/core";
import { sliceLabels } from "../../src/slice-labels.js";
import type { SlicePlan } from "../../src/slice-plan.js";
import { MANAGED_BY } from "../../src/upstream-constants.js";
import { workloadEndpoint } from "../../src/workload-endpoint.js";

export const HTTP_UNNAMED: ServicePort = { port: 8080, targetPort: 8080, protocol: "TCP" };
export const HTTP_NAMED: ServicePort = { port: 80, targetPort: "http", protocol: "TCP" };

export function service(
  name: string,
  options: {
    families?: string[];
    selector?: Record<string, string> | null;
    ports?: ServicePort[];
    clusterIP?: string;
    labels?: Record<string, string>;
    namespace?: string;
    type?: string;
  } = {},
): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name,
      namespace: options.namespace ?? "ns",
      uid: `uid-${name}`,
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: {
      ...(options.type ? { type: options.type } : {}),
      clusterIP: options.clusterIP ?? "10.96.0.10",
      ipFamilies: options.families ?? ["IPv4"],
      ports: options.ports ?? [HTTP_UNNAMED],
      ...(options.selector === null ? {} : { selector: options.selector ?? { app: "test" } }),
    },
  };
}

export function workload(
  name: string,
  options: {
    ips?: string[];
    ports?: { port: number; name?: string; protocol?: string }[];
    labels?: Record<string, string>;
    ready?: boolean;
    namespace?: string;
    resourceVersion?: string;
  } = {},
): ExternalWorkload {
  return {
    apiVersion: "workload.linkerd.io/v1beta1",
    kind: "ExternalWorkload",
    metadata: {
      name,
      namespace: options.namespace ?? "ns",
      uid: `uid-${name}`,
      resourceVersion: options.resourceVersion ?? "1",
      labels: options.labels ?? { app: "test" },
    },
    spec: {
      meshTLS: { identity: "some-identity", serverName: "some-sni" },
      ports: (options.ports ?? [{ port: 8080 }]).map((p) => ({ protocol: "TCP", ...p })),
      workloadIPs: (options.ips ?? ["192.0.2.1"]).map((ip) => ({ ip })),
    },
    status: {
      conditions: [{ type: "Ready", status: (options.ready ?? true) ? "True" : "False" }],
    },
  };
}

let sliceCounter = 0;

/** A slice this controller wrote earlier for the Service, as the cache holds it. */
export function existingSlice(
  svc: Service,
  addressType: "IPv4" | "IPv6",
  endpoints: Endpoint[],
  ports: EndpointSlice["ports"] = [{ port: 8080, protocol: "TCP" }],
): EndpointSlice {
  sliceCounter += 1;
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `linkerd-external-${svc.metadata.name}-${sliceCounter}`,
      namespace: svc.metadata.namespace ?? "ns",
      uid: `slice-uid-${sliceCounter}`,
      generation: 1,
      resourceVersion: String(sliceCounter),
      labels: sliceLabels(undefined, svc, MANAGED_BY).labels,
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Service",
          name: svc.metadata.name,
          uid: svc.metadata.uid ?? "",
          controller: true,
        },
      ],
    },
    addressType,
    endpoints,
    ports,
  };
}

/** The endpoints of these workloads as the controller writes them. */
export function endpointsOf(
  svc: Service,
  workloads: ExternalWorkload[],
  addressType: "IPv4" | "IPv6" = "IPv4",
): Endpoint[] {
  return workloads.map((w) => workloadEndpoint(addressType, w, svc));
}

/** 250 (or `count`) workloads, one in three not ready, with a handful of shared IPs. */
export function manyWorkloads(
  count: number,
  portOf: (i: number) => { port: number; name?: string } = () => ({ port: 8080 }),
): ExternalWorkload[] {
  return Array.from({ length: count }, (_, i) =>
    workload(`wlkd-${i}`, {
      ips: [`192.${i % 5}.${i % 3}.${i % 2}`],
      ports: [portOf(i)],
      ready: i % 3 !== 0,
    }),
  );
}

let createdCounter = 0;

/**
 * The slices stored after a plan is written, as the API server would store them: a created
 * slice gets a name from its `generateName` and a uid, an update bumps the generation, a delete
 * removes it. The order is existing slices first, then created ones.
 */
export function applyPlan(existing: readonly EndpointSlice[], plan: SlicePlan): EndpointSlice[] {
  const stored = new Map(existing.map((s) => [s.metadata.name, s]));
  for (const slice of plan.delete) stored.delete(slice.metadata.name);
  for (const slice of plan.update) {
    const before = stored.get(slice.metadata.name);
    if (before === undefined) throw new Error(`update of a missing slice ${slice.metadata.name}`);
    if (before.addressType !== slice.addressType) throw new Error("addressType is immutable");
    stored.set(slice.metadata.name, {
      ...structuredClone(slice),
      metadata: {
        ...structuredClone(slice.metadata),
        uid: before.metadata.uid ?? "",
        generation: (before.metadata.generation ?? 1) + 1,
      },
    });
  }
  for (const slice of plan.create) {
    createdCounter += 1;
    const { generateName, ...metadata } = structuredClone(slice.metadata);
    const name = `${generateName}c${createdCounter}`;
    stored.set(name, {
      ...structuredClone(slice),
      metadata: { ...metadata, name, uid: `created-uid-${createdCounter}`, generation: 1 },
    });
  }
  return [...stored.values()];
}
