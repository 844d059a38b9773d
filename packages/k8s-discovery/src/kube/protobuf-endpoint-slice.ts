import { isFieldSet } from "@bufbuild/protobuf";
import type { Endpoint, EndpointSlice, EndpointSlicePort } from "@destination/core";
import type { ObjectReference } from "../gen/k8s/core/v1/core_pb.js";
import {
  type EndpointConditions,
  EndpointConditionsSchema,
  type EndpointHints,
  type Endpoint as EndpointMessage,
  type EndpointPort as EndpointPortMessage,
  EndpointPortSchema,
  EndpointSchema,
  EndpointSliceSchema,
} from "../gen/k8s/discovery/v1/discovery_pb.js";
import { decodeMessage } from "./protobuf-decode.js";
import { emptyObjectMeta, hasEntries, projectObjectMeta } from "./protobuf-object-meta.js";

// A discovery/v1 EndpointSlice, decoded whole with the schema of proto/, as its JSON gives it
// once projected (only `managedFields` is cut, see object-schemas.ts). Go's JSON writes a nil
// list with no omitempty (`endpoints`, `ports`, `addresses`) as null, the struct `conditions`
// always, and a pointer field exactly when it is set (protobuf presence says which).

/** One EndpointSlice of a protobuf list, from its bytes. */
export function readEndpointSlice(bytes: Uint8Array): EndpointSlice {
  const m = decodeMessage(EndpointSliceSchema, bytes);
  const slice = {} as EndpointSlice;
  slice.apiVersion = "discovery.k8s.io/v1";
  slice.kind = "EndpointSlice";
  slice.metadata = m.metadata === undefined ? emptyObjectMeta() : projectObjectMeta(m.metadata);
  slice.addressType = m.addressType;
  slice.endpoints = m.endpoints.length > 0 ? m.endpoints.map(projectEndpoint) : null;
  slice.ports = m.ports.length > 0 ? m.ports.map(projectPort) : null;
  return slice;
}

function projectEndpoint(m: EndpointMessage): Endpoint {
  const endpoint = {} as Endpoint & Record<string, unknown>;
  endpoint.addresses = (m.addresses.length > 0 ? m.addresses : null) as string[];
  endpoint.conditions = m.conditions === undefined ? {} : projectConditions(m.conditions);
  if (isFieldSet(m, EndpointSchema.field.hostname)) endpoint.hostname = m.hostname;
  if (m.targetRef !== undefined) endpoint.targetRef = projectObjectReference(m.targetRef);
  if (hasEntries(m.deprecatedTopology)) endpoint.deprecatedTopology = m.deprecatedTopology;
  if (isFieldSet(m, EndpointSchema.field.nodeName)) endpoint.nodeName = m.nodeName;
  if (isFieldSet(m, EndpointSchema.field.zone)) endpoint.zone = m.zone;
  if (m.hints !== undefined) endpoint.hints = projectHints(m.hints);
  return endpoint;
}

function projectConditions(m: EndpointConditions): NonNullable<Endpoint["conditions"]> {
  const conditions: NonNullable<Endpoint["conditions"]> = {};
  const { field } = EndpointConditionsSchema;
  if (isFieldSet(m, field.ready)) conditions.ready = m.ready;
  if (isFieldSet(m, field.serving)) conditions.serving = m.serving;
  if (isFieldSet(m, field.terminating)) conditions.terminating = m.terminating;
  return conditions;
}

/** core/v1 ObjectReference: every field is omitempty. */
function projectObjectReference(m: ObjectReference): NonNullable<Endpoint["targetRef"]> {
  const ref: Record<string, string> = {};
  if (m.kind !== "") ref.kind = m.kind;
  if (m.namespace !== "") ref.namespace = m.namespace;
  if (m.name !== "") ref.name = m.name;
  if (m.uid !== "") ref.uid = m.uid;
  if (m.apiVersion !== "") ref.apiVersion = m.apiVersion;
  if (m.resourceVersion !== "") ref.resourceVersion = m.resourceVersion;
  if (m.fieldPath !== "") ref.fieldPath = m.fieldPath;
  return ref;
}

function projectHints(m: EndpointHints): NonNullable<Endpoint["hints"]> {
  const hints: { forZones?: { name: string }[]; forNodes?: { name: string }[] } = {};
  if (m.forZones.length > 0) hints.forZones = m.forZones.map((zone) => named(zone.name));
  if (m.forNodes.length > 0) hints.forNodes = m.forNodes.map((node) => named(node.name));
  return hints;
}

function projectPort(m: EndpointPortMessage): EndpointSlicePort {
  const port: EndpointSlicePort = {};
  const { field } = EndpointPortSchema;
  if (isFieldSet(m, field.name)) port.name = m.name;
  if (isFieldSet(m, field.protocol)) port.protocol = m.protocol;
  if (isFieldSet(m, field.port)) port.port = m.port;
  if (isFieldSet(m, field.appProtocol)) port.appProtocol = m.appProtocol;
  return port;
}

function named(name: string): { name: string } {
  const hint = {} as { name: string };
  hint.name = name;
  return hint;
}
