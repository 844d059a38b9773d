// Kubernetes objects for tests as a cluster holds them, in the words of the server's tests:
// namespace first, pods meshed by default and running on node-a, ports as `[name, port]`. Shared
// by apps/destination-server/test, which applies them to in-memory clusters, and
// tooling/integration, whose `ApiWriter.apply` adds what a real API server requires and the
// destination service never reads (images, owner uids, specs of ReplicaSets and Jobs). The objects
// themselves are built by ./builders.ts; the return types promise what those
// builders always set (apiVersion, kind, no null metadata fields), so the objects also fit the
// integration tests' untyped `KubeObject`.
import type { KubeObject, ServiceProfile } from "@destination/core";
import * as build from "./builders.js";

export { PROXY_ENV } from "./builders.js";

/** An object as the builders make it: kind and apiVersion set, metadata fields never null. */
export type Manifest<T extends KubeObject> = T & {
  [key: string]: unknown;
  apiVersion: string;
  kind: string;
  metadata: {
    [key: string]: unknown;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string }[];
  };
};

const manifest = <T extends KubeObject>(object: T) => object as Manifest<T>;

const tcp = <P extends object>(ports: P[]) => ports.map((p) => ({ protocol: "TCP", ...p }));

export function namespace(name: string) {
  return manifest(build.namespace(name));
}

/** A Node; its zone is the `topology.kubernetes.io/zone` label. */
export function node(name: string, labels: Record<string, string> = {}) {
  return manifest(build.node(name, { labels }));
}

export function service(
  ns: string,
  name: string,
  ports: { name?: string; port: number; targetPort?: number | string }[],
  extra: { clusterIP?: string; annotations?: Record<string, string>; type?: string } = {},
) {
  return manifest(build.service(name, { namespace: ns, ports: tcp(ports), ...extra }));
}

export function replicaSet(ns: string, name: string, deployment: string) {
  return manifest(build.replicaSet(name, deployment, { namespace: ns }));
}

export function job(ns: string, name: string, labels: Record<string, string> = {}) {
  return { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: ns, labels } };
}

export interface PodSpec {
  namespace: string;
  name: string;
  /** Pod IP; none for a pod the kubelet has not started. */
  ip?: string;
  /** Container ports: `[name, containerPort, hostPort?]`. */
  ports?: [string, number, number?][];
  meshed?: boolean;
  node?: string;
  hostIp?: string;
  replicaSet?: string;
  serviceAccount?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  phase?: string;
}

export function pod(spec: PodSpec) {
  const hash = spec.replicaSet?.split("-").pop();
  return manifest(
    build.pod(spec.name, {
      namespace: spec.namespace,
      ip: spec.ip ?? "",
      meshed: spec.meshed ?? true,
      labels: { ...(hash ? { "pod-template-hash": hash } : {}), ...spec.labels },
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
      ...(spec.replicaSet ? { replicaSet: spec.replicaSet } : {}),
      nodeName: spec.node ?? "node-a",
      serviceAccountName: spec.serviceAccount ?? "default",
      ports: (spec.ports ?? []).map(([name, containerPort, hostPort]) => ({
        name,
        containerPort,
        protocol: "TCP",
        ...(hostPort ? { hostPort } : {}),
      })),
      phase: spec.phase ?? "Running",
      hostIp: spec.hostIp ?? "172.18.0.2",
    }),
  );
}

export interface SliceEndpoint {
  ip: string;
  pod?: string;
  hostname?: string;
  zone?: string;
  forZones?: string[];
  ready?: boolean;
}

export function slice(
  ns: string,
  name: string,
  serviceName: string,
  ports: { name?: string; port: number }[],
  endpoints: SliceEndpoint[],
) {
  return manifest(
    build.slice(
      name,
      serviceName,
      endpoints.map((e) =>
        build.endpoint(e.ip, {
          namespace: ns,
          ready: e.ready ?? true,
          ...(e.pod ? { pod: e.pod } : {}),
          ...(e.hostname ? { hostname: e.hostname } : {}),
          ...(e.zone !== undefined ? { zone: e.zone } : {}),
          ...(e.forZones ? { forZones: e.forZones } : {}),
        }),
      ),
      { namespace: ns, ports: tcp(ports) },
    ),
  );
}

export function serviceProfile(ns: string, name: string, spec: ServiceProfile["spec"]) {
  return manifest(build.serviceProfile(name, spec, { namespace: ns }));
}

/** A policy Server; opaque unless `proxyProtocol` says otherwise. */
export function server(
  ns: string,
  name: string,
  matchLabels: Record<string, string>,
  port: number | string,
  proxyProtocol = "opaque",
) {
  return manifest(
    build.server(name, { namespace: ns, podSelector: matchLabels, port, proxyProtocol }),
  );
}

export function externalWorkload(ns: string, name: string, ip: string, port: number) {
  return manifest(
    build.externalWorkload(name, {
      namespace: ns,
      ip,
      ports: [{ port }],
      labels: { app: name },
      meshTLS: { identity: `spiffe://${name}`, serverName: name },
    }),
  );
}

/**
 * What every real cluster has besides the tests' own objects: the Node the pods run on, and a
 * CronJob's Job. The metadata-only caches (Nodes, ReplicaSets, Jobs) then list something; an
 * empty metadata-only list is the subject of tooling/integration's `cluster-sync.int.test.ts`.
 */
export function clusterBasics() {
  return [
    node("node-a"),
    {
      ...job("batch", "nightly-29000000"),
      metadata: {
        name: "nightly-29000000",
        namespace: "batch",
        ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "nightly" }],
      },
    },
  ];
}
