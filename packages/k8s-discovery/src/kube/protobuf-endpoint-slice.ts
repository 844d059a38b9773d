import type { Endpoint, EndpointSlice, EndpointSlicePort } from "@destination/core";
import { emptyObjectMeta, readMapEntry, readObjectMeta } from "./protobuf-object-meta.js";
import { append, type ProtobufReader, readFirstString } from "./protobuf-reader.js";

// A discovery/v1 EndpointSlice read from protobuf whole, as its JSON gives it once projected (only
// `managedFields` is cut, see object-projection.ts). Go's JSON writes a nil list with no omitempty
// (`endpoints`, `ports`, `addresses`) as null, the struct `conditions` always, and a pointer field
// exactly when it is set. Field tags are (number << 3) | wire type, from k8s.io/api's discovery/v1
// and core/v1 generated.proto. Objects start as `{}`, filled field by field: see `append` in
// protobuf-reader.ts for why.

export function readEndpointSlice(r: ProtobufReader): EndpointSlice {
  const slice = {} as EndpointSlice;
  slice.apiVersion = "discovery.k8s.io/v1";
  slice.kind = "EndpointSlice";
  slice.metadata = emptyObjectMeta();
  slice.addressType = "";
  slice.endpoints = null;
  slice.ports = null;
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 metadata
        slice.metadata = readObjectMeta(r.message());
        break;
      case 18: // 2 endpoints
        slice.endpoints = append(slice.endpoints, readEndpoint(r.message()));
        break;
      case 26: // 3 ports
        slice.ports = append(slice.ports, readPort(r.message()));
        break;
      case 34: // 4 addressType
        slice.addressType = r.string();
        break;
      default:
        r.skip(tag);
    }
  }
  return slice;
}

function readEndpoint(r: ProtobufReader): Endpoint {
  const endpoint = {} as Endpoint & Record<string, unknown>;
  endpoint.addresses = null as unknown as string[];
  endpoint.conditions = {};
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 addresses
        endpoint.addresses = append(endpoint.addresses, r.string());
        break;
      case 18: // 2 conditions
        endpoint.conditions = readConditions(r.message());
        break;
      case 26: // 3 hostname
        endpoint.hostname = r.string();
        break;
      case 34: // 4 targetRef
        endpoint.targetRef = readObjectReference(r.message());
        break;
      case 42: // 5 deprecatedTopology
        endpoint.deprecatedTopology = readMapEntry(
          r.message(),
          endpoint.deprecatedTopology as Record<string, string> | undefined,
        );
        break;
      case 50: // 6 nodeName
        endpoint.nodeName = r.string();
        break;
      case 58: // 7 zone
        endpoint.zone = r.string();
        break;
      case 66: // 8 hints
        endpoint.hints = readHints(r.message());
        break;
      default:
        r.skip(tag);
    }
  }
  return endpoint;
}

function readConditions(r: ProtobufReader): NonNullable<Endpoint["conditions"]> {
  const conditions: NonNullable<Endpoint["conditions"]> = {};
  while (!r.done) {
    const tag = r.varint();
    if (tag === 8) conditions.ready = r.bool();
    else if (tag === 16) conditions.serving = r.bool();
    else if (tag === 24) conditions.terminating = r.bool();
    else r.skip(tag);
  }
  return conditions;
}

/** core/v1 ObjectReference: every field is omitempty. */
function readObjectReference(r: ProtobufReader): NonNullable<Endpoint["targetRef"]> {
  const ref: Record<string, string> = {};
  while (!r.done) {
    const tag = r.varint();
    const key = OBJECT_REFERENCE_FIELDS[tag];
    if (key === undefined) r.skip(tag);
    else {
      const value = r.string();
      if (value !== "") ref[key] = value;
    }
  }
  return ref;
}

const OBJECT_REFERENCE_FIELDS: Readonly<Record<number, string>> = {
  10: "kind",
  18: "namespace",
  26: "name",
  34: "uid",
  42: "apiVersion",
  50: "resourceVersion",
  58: "fieldPath",
};

function readHints(r: ProtobufReader): NonNullable<Endpoint["hints"]> {
  const hints: { forZones?: { name: string }[]; forNodes?: { name: string }[] } = {};
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) hints.forZones = append(hints.forZones, named(readFirstString(r.message())));
    else if (tag === 18)
      hints.forNodes = append(hints.forNodes, named(readFirstString(r.message())));
    else r.skip(tag);
  }
  return hints;
}

function readPort(r: ProtobufReader): EndpointSlicePort {
  const port: EndpointSlicePort = {};
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) port.name = r.string();
    else if (tag === 18) port.protocol = r.string();
    else if (tag === 24) port.port = r.int32();
    else if (tag === 34) port.appProtocol = r.string();
    else r.skip(tag);
  }
  return port;
}

function named(name: string): { name: string } {
  const hint = {} as { name: string };
  hint.name = name;
  return hint;
}
