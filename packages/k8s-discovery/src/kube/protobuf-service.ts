import { isFieldSet } from "@bufbuild/protobuf";
import type { Service, ServicePort } from "@destination/core";
import {
  type ServicePort as ServicePortMessage,
  ServiceSchema,
  type ServiceSpec as ServiceSpecMessage,
  ServiceSpecSchema,
} from "../gen/k8s/core/v1/core_pb.js";
import type { IntOrString } from "../gen/k8s/intstr/intstr_pb.js";
import { decodeMessage } from "./protobuf-decode.js";
import { emptyObjectMeta, hasEntries, projectObjectMeta } from "./protobuf-object-meta.js";

// A core/v1 Service, decoded with the schema of proto/ (the fields the Service's object schema
// names; protobuf-shapes.test.ts holds them equal), as the projection of its JSON gives them. Status, session affinity,
// external IPs and the load-balancer settings are skipped by length when decoding.

type ServiceSpec = NonNullable<Service["spec"]>;

/** One Service of a protobuf list, from its bytes. */
export function readService(bytes: Uint8Array): Service {
  const m = decodeMessage(ServiceSchema, bytes);
  // The spec is a struct in Go: its JSON is there even when empty.
  const svc = {} as Service;
  svc.apiVersion = "v1";
  svc.kind = "Service";
  svc.metadata = m.metadata === undefined ? emptyObjectMeta() : projectObjectMeta(m.metadata);
  svc.spec = m.spec === undefined ? {} : projectServiceSpec(m.spec);
  return svc;
}

function projectServiceSpec(m: ServiceSpecMessage): ServiceSpec {
  // Every field here is `omitempty` in the JSON, and the pointer one (internalTrafficPolicy)
  // is on the wire exactly when it is set.
  const spec: ServiceSpec = {};
  if (m.ports.length > 0) spec.ports = m.ports.map(projectServicePort);
  if (hasEntries(m.selector)) spec.selector = m.selector;
  if (m.clusterIP !== "") spec.clusterIP = m.clusterIP;
  if (m.type !== "") spec.type = m.type;
  if (m.externalName !== "") spec.externalName = m.externalName;
  if (m.clusterIPs.length > 0) spec.clusterIPs = m.clusterIPs;
  if (m.ipFamilies.length > 0) spec.ipFamilies = m.ipFamilies;
  if (isFieldSet(m, ServiceSpecSchema.field.internalTrafficPolicy)) {
    spec.internalTrafficPolicy = m.internalTrafficPolicy;
  }
  return spec;
}

function projectServicePort(m: ServicePortMessage): ServicePort {
  // `port` has no omitempty; `targetPort` is a struct, which omitempty never leaves out, and
  // its zero value is the number 0.
  const port = {} as ServicePort;
  port.port = m.port;
  port.targetPort = m.targetPort === undefined ? 0 : intOrString(m.targetPort);
  if (m.name !== "") port.name = m.name;
  if (m.protocol !== "") port.protocol = m.protocol;
  if (m.nodePort !== 0) port.nodePort = m.nodePort;
  return port;
}

/** An IntOrString as its JSON value: type 1 is a string, anything else a number. */
function intOrString(m: IntOrString): number | string {
  return m.type === 1n ? m.strVal : m.intVal;
}
