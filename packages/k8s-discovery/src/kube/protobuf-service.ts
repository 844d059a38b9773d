import type { Service, ServicePort } from "@destination/core";
import { emptyObjectMeta, readMapEntry, readObjectMeta } from "./protobuf-object-meta.js";
import { append, type ProtobufReader, setNonEmpty } from "./protobuf-reader.js";

// A core/v1 Service read from protobuf straight into its projection: the fields of the `Service`
// type (see object-projection.ts), as the JSON of the same Service gives them. Status, session
// affinity, external IPs and the load-balancer settings are skipped by length. Field tags are
// (number << 3) | wire type, from k8s.io/api's core/v1 generated.proto. Objects start as `{}`,
// filled field by field: see `append` in protobuf-reader.ts for why.

type ServiceSpec = NonNullable<Service["spec"]>;

export function readService(r: ProtobufReader): Service {
  // The spec is a struct in Go: its JSON is there even when empty.
  const svc = {} as Service;
  svc.apiVersion = "v1";
  svc.kind = "Service";
  svc.metadata = emptyObjectMeta();
  svc.spec = {};
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) svc.metadata = readObjectMeta(r.message());
    else if (tag === 18) svc.spec = readServiceSpec(r.message());
    else r.skip(tag);
  }
  return svc;
}

function readServiceSpec(r: ProtobufReader): ServiceSpec {
  // Every field here is `omitempty` in the JSON, and the pointer one (internalTrafficPolicy)
  // is on the wire exactly when it is set.
  const spec: ServiceSpec = {};
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 ports
        spec.ports = append(spec.ports, readServicePort(r.message()));
        break;
      case 18: // 2 selector
        spec.selector = readMapEntry(r.message(), spec.selector);
        break;
      case 26: // 3 clusterIP
        setNonEmpty(spec, "clusterIP", r.string());
        break;
      case 34: // 4 type
        setNonEmpty(spec, "type", r.string());
        break;
      case 82: // 10 externalName
        setNonEmpty(spec, "externalName", r.string());
        break;
      case 146: // 18 clusterIPs
        spec.clusterIPs = append(spec.clusterIPs, r.string());
        break;
      case 154: // 19 ipFamilies
        spec.ipFamilies = append(spec.ipFamilies, r.string());
        break;
      case 178: // 22 internalTrafficPolicy
        spec.internalTrafficPolicy = r.string();
        break;
      default:
        r.skip(tag);
    }
  }
  return spec;
}

function readServicePort(r: ProtobufReader): ServicePort {
  // `port` has no omitempty; `targetPort` is a struct, which omitempty never leaves out, and
  // its zero value is the number 0.
  const port = {} as ServicePort;
  port.port = 0;
  port.targetPort = 0;
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 name
        setNonEmpty(port, "name", r.string());
        break;
      case 18: // 2 protocol
        setNonEmpty(port, "protocol", r.string());
        break;
      case 24: // 3 port
        port.port = r.int32();
        break;
      case 34: // 4 targetPort
        port.targetPort = readIntOrString(r.message());
        break;
      case 40: {
        // 5 nodePort
        const nodePort = r.int32();
        if (nodePort !== 0) port.nodePort = nodePort;
        break;
      }
      default:
        r.skip(tag);
    }
  }
  return port;
}

/** An IntOrString (type 1: 0 a number, 1 a string; intVal 2; strVal 3) as its JSON value. */
function readIntOrString(r: ProtobufReader): number | string {
  let isString = false;
  let intVal = 0;
  let strVal = "";
  while (!r.done) {
    const tag = r.varint();
    if (tag === 8) isString = r.varint() === 1;
    else if (tag === 16) intVal = r.int32();
    else if (tag === 26) strVal = r.string();
    else r.skip(tag);
  }
  return isString ? strVal : intVal;
}
