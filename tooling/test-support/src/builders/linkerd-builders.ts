// Linkerd's objects (Servers, ExternalWorkloads, ServiceProfiles), as plain JSON the way an API
// server lists them.

import type { ExternalWorkload, LabelSelector, Server, ServiceProfile } from "@destination/core";
import { type Manifest, NS } from "./pod-builders.js";

export interface ServerOptions {
  /** A port number or a container port name. */
  port: number | string;
  /** Default `opaque`. */
  proxyProtocol?: string;
  /** The `matchLabels` of the pod selector. */
  podSelector?: Record<string, string>;
  /** A whole pod selector (with `matchExpressions`, or `null`); wins over `podSelector`. */
  podLabelSelector?: LabelSelector | null;
  /** The `matchLabels` of the external workload selector. */
  externalWorkloadSelector?: Record<string, string>;
  namespace?: string;
}

/** A policy.linkerd.io Server. */
export function server(name: string, options: ServerOptions): Manifest<Server> {
  const podSelector =
    options.podLabelSelector !== undefined
      ? options.podLabelSelector
      : options.podSelector
        ? { matchLabels: options.podSelector }
        : undefined;
  return {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name, namespace: options.namespace ?? NS },
    spec: {
      port: options.port,
      proxyProtocol: options.proxyProtocol ?? "opaque",
      ...(podSelector === undefined ? {} : { podSelector }),
      ...(options.externalWorkloadSelector
        ? { externalWorkloadSelector: { matchLabels: options.externalWorkloadSelector } }
        : {}),
    },
  } as Manifest<Server>;
}

export interface ExternalWorkloadOptions {
  namespace?: string;
  /** Default 192.168.1.10. */
  ip?: string;
  /** Default 8080. */
  ports?: { port: number; name?: string }[];
  /** Default `{ app: "vm" }`. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  owner?: { kind: string; name: string };
  /** Default `spiffe://vm`, server name `vm`. */
  meshTLS?: { identity: string; serverName: string };
}

export function externalWorkload(
  name: string,
  options: ExternalWorkloadOptions = {},
): Manifest<ExternalWorkload> {
  return {
    apiVersion: "workload.linkerd.io/v1beta1",
    kind: "ExternalWorkload",
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      labels: options.labels ?? { app: "vm" },
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.owner ? { ownerReferences: [{ apiVersion: "v1", ...options.owner }] } : {}),
    },
    spec: {
      meshTLS: options.meshTLS ?? { identity: "spiffe://vm", serverName: "vm" },
      ports: options.ports ?? [{ port: 8080 }],
      workloadIPs: [{ ip: options.ip ?? "192.168.1.10" }],
    },
  } as Manifest<ExternalWorkload>;
}

export function serviceProfile(
  name: string,
  spec: ServiceProfile["spec"],
  options: { namespace?: string } = {},
): Manifest<ServiceProfile> {
  return {
    apiVersion: "linkerd.io/v1alpha2",
    kind: "ServiceProfile",
    metadata: { name, namespace: options.namespace ?? NS },
    spec,
  } as Manifest<ServiceProfile>;
}
