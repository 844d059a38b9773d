import type { Container, ContainerPort, Pod } from "@destination/core";
import { emptyObjectMeta, readObjectMeta } from "./protobuf-object-meta.js";
import { append, type ProtobufReader, readFirstString, setNonEmpty } from "./protobuf-reader.js";

// A core/v1 Pod read from protobuf straight into its projection: the fields of the `Pod` type,
// which are all any watcher reads (see object-projection.ts), as the JSON of the same pod gives
// them. The rest (volumes, probes, resources, conditions, container statuses: most of a real pod's
// bytes) is skipped by length, never decoded. Field tags are (number << 3) | wire type, from
// k8s.io/api's core/v1 generated.proto. Objects start as `{}`, filled field by field: see `append`
// in protobuf-reader.ts for why.

type PodSpec = NonNullable<Pod["spec"]>;
type PodStatus = NonNullable<Pod["status"]>;

export function readPod(r: ProtobufReader): Pod {
  // Spec and status are structs in Go: their JSON is there even when empty.
  const pod = {} as Pod;
  pod.apiVersion = "v1";
  pod.kind = "Pod";
  pod.metadata = emptyObjectMeta();
  pod.spec = {};
  pod.status = {};
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) pod.metadata = readObjectMeta(r.message());
    else if (tag === 18) pod.spec = readPodSpec(r.message());
    else if (tag === 26) pod.status = readPodStatus(r.message());
    else r.skip(tag);
  }
  return pod;
}

function readPodSpec(r: ProtobufReader): PodSpec {
  const spec: PodSpec = {};
  let containers: Container[] | null = null;
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 18: // 2 containers
        containers = append(containers, readContainer(r.message()));
        break;
      case 66: // 8 serviceAccountName
        setNonEmpty(spec, "serviceAccountName", r.string());
        break;
      case 82: // 10 nodeName
        setNonEmpty(spec, "nodeName", r.string());
        break;
      case 88: // 11 hostNetwork
        if (r.bool()) spec.hostNetwork = true;
        break;
      case 130: // 16 hostname
        setNonEmpty(spec, "hostname", r.string());
        break;
      case 138: // 17 subdomain
        setNonEmpty(spec, "subdomain", r.string());
        break;
      case 162: // 20 initContainers
        spec.initContainers = append(spec.initContainers, readContainer(r.message()));
        break;
      default:
        r.skip(tag);
    }
  }
  // `containers` has no omitempty: an empty list is written as null.
  spec.containers = containers;
  return spec;
}

function readContainer(r: ProtobufReader): Container {
  // `name` has no omitempty; ports and env do.
  const container = {} as Container;
  container.name = "";
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) container.name = r.string();
    else if (tag === 50) container.ports = append(container.ports, readContainerPort(r.message()));
    else if (tag === 58) container.env = append(container.env, readEnvVar(r.message()));
    else r.skip(tag);
  }
  return container;
}

function readContainerPort(r: ProtobufReader): ContainerPort {
  const port = {} as ContainerPort;
  port.containerPort = 0;
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 name
        setNonEmpty(port, "name", r.string());
        break;
      case 16: {
        // 2 hostPort
        const hostPort = r.int32();
        if (hostPort !== 0) port.hostPort = hostPort;
        break;
      }
      case 24: // 3 containerPort
        port.containerPort = r.int32();
        break;
      case 34: // 4 protocol
        setNonEmpty(port, "protocol", r.string());
        break;
      case 42: // 5 hostIP
        setNonEmpty(port, "hostIP", r.string());
        break;
      default:
        r.skip(tag);
    }
  }
  return port;
}

/** Only literal values are read (the proxy's listen addresses); `valueFrom` is skipped. */
function readEnvVar(r: ProtobufReader): { name: string; value?: string } {
  const env = {} as { name: string; value?: string };
  env.name = "";
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) env.name = r.string();
    else if (tag === 18) setNonEmpty(env, "value", r.string());
    else r.skip(tag);
  }
  return env;
}

function readPodStatus(r: ProtobufReader): PodStatus {
  const status: PodStatus = {};
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 phase
        setNonEmpty(status, "phase", r.string());
        break;
      case 42: // 5 hostIP
        setNonEmpty(status, "hostIP", r.string());
        break;
      case 50: // 6 podIP
        setNonEmpty(status, "podIP", r.string());
        break;
      case 98: // 12 podIPs
        status.podIPs = append(status.podIPs, ipOf(readFirstString(r.message())));
        break;
      case 130: // 16 hostIPs
        status.hostIPs = append(status.hostIPs, ipOf(readFirstString(r.message())));
        break;
      default:
        r.skip(tag);
    }
  }
  return status;
}

function ipOf(ip: string): { ip: string } {
  const entry = {} as { ip: string };
  entry.ip = ip;
  return entry;
}
