import type { Container, ContainerPort, Pod } from "@destination/core";
import {
  type Container as ContainerMessage,
  type ContainerPort as ContainerPortMessage,
  type EnvVar,
  PodSchema,
  type PodSpec as PodSpecMessage,
  type PodStatus as PodStatusMessage,
} from "../gen/k8s/core/v1/core_pb.js";
import { decodeMessage } from "./protobuf-decode.js";
import { emptyObjectMeta, projectObjectMeta, shared } from "./protobuf-object-meta.js";

// A core/v1 Pod, decoded with the schema of proto/ (which declares only the fields the Pod's
// object schema names, all any watcher reads; protobuf-shapes.test.ts holds them equal), as the
// projection of the same pod's JSON gives them. The rest (volumes, probes, resources, conditions, container statuses: most of a real
// pod's bytes) is skipped by length when decoding. Objects start as `{}`, filled field by field.

type PodSpec = NonNullable<Pod["spec"]>;
type PodStatus = NonNullable<Pod["status"]>;

/** One Pod of a protobuf list, from its bytes. */
export function readPod(bytes: Uint8Array): Pod {
  const m = decodeMessage(PodSchema, bytes);
  // Spec and status are structs in Go: their JSON is there even when empty.
  const pod = {} as Pod;
  pod.apiVersion = "v1";
  pod.kind = "Pod";
  pod.metadata = m.metadata === undefined ? emptyObjectMeta() : projectObjectMeta(m.metadata);
  pod.spec = m.spec === undefined ? {} : projectPodSpec(m.spec);
  pod.status = m.status === undefined ? {} : projectPodStatus(m.status);
  return pod;
}

function projectPodSpec(m: PodSpecMessage): PodSpec {
  const spec: PodSpec = {};
  if (m.serviceAccountName !== "") spec.serviceAccountName = shared(m.serviceAccountName);
  if (m.nodeName !== "") spec.nodeName = shared(m.nodeName);
  if (m.hostNetwork) spec.hostNetwork = true;
  if (m.hostname !== "") spec.hostname = m.hostname;
  if (m.subdomain !== "") spec.subdomain = m.subdomain;
  if (m.initContainers.length > 0) spec.initContainers = m.initContainers.map(projectContainer);
  // `containers` has no omitempty: an empty list is written as null.
  spec.containers = m.containers.length > 0 ? m.containers.map(projectContainer) : null;
  return spec;
}

function projectContainer(m: ContainerMessage): Container {
  // `name` has no omitempty; ports and env do.
  const container = {} as Container;
  container.name = shared(m.name);
  if (m.ports.length > 0) container.ports = m.ports.map(projectContainerPort);
  if (m.env.length > 0) container.env = m.env.map(projectEnvVar);
  return container;
}

function projectContainerPort(m: ContainerPortMessage): ContainerPort {
  const port = {} as ContainerPort;
  port.containerPort = m.containerPort;
  if (m.name !== "") port.name = shared(m.name);
  if (m.hostPort !== 0) port.hostPort = m.hostPort;
  if (m.protocol !== "") port.protocol = shared(m.protocol);
  if (m.hostIP !== "") port.hostIP = m.hostIP;
  return port;
}

/** Only literal values are declared (the proxy's listen addresses); `valueFrom` is skipped. */
function projectEnvVar(m: EnvVar): { name: string; value?: string } {
  const env = {} as { name: string; value?: string };
  env.name = shared(m.name);
  if (m.value !== "") env.value = shared(m.value);
  return env;
}

function projectPodStatus(m: PodStatusMessage): PodStatus {
  const status: PodStatus = {};
  if (m.phase !== "") status.phase = shared(m.phase);
  if (m.hostIP !== "") status.hostIP = shared(m.hostIP);
  if (m.podIP !== "") status.podIP = m.podIP;
  if (m.podIPs.length > 0) status.podIPs = m.podIPs.map((entry) => ipOf(entry.ip));
  if (m.hostIPs.length > 0) status.hostIPs = m.hostIPs.map((entry) => ipOf(shared(entry.ip)));
  return status;
}

function ipOf(ip: string): { ip: string } {
  const entry = {} as { ip: string };
  entry.ip = ip;
  return entry;
}
