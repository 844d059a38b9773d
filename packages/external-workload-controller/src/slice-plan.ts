import type {
  Endpoint,
  EndpointSlice,
  EndpointSlicePort,
  ExternalWorkload,
  ObjectMeta,
  OwnerReference,
  Service,
  ServicePort,
} from "@destination/core";
import { type SliceAddressType, supportedAddressTypes } from "./address-types.js";
import { endpointKey, endpointsEqualBeyondKey } from "./endpoint-identity.js";
import { endpointPortsOf, portSetKey } from "./endpoint-ports.js";
import { sliceLabels } from "./slice-labels.js";
import { MANAGED_BY, MAX_ENDPOINTS_PER_SLICE } from "./upstream-constants.js";
import { workloadEndpoint } from "./workload-endpoint.js";

/** A slice to create: the API server names it from `generateName`. */
export interface NewEndpointSlice extends Omit<EndpointSlice, "metadata"> {
  metadata: Omit<ObjectMeta, "name" | "ownerReferences"> & {
    generateName: string;
    ownerReferences: ControllerReference[];
  };
}

/** The Service as the controlling owner of its slices (garbage-collected with it). */
export interface ControllerReference extends OwnerReference {
  apiVersion: "v1";
  kind: "Service";
  uid: string;
  controller: true;
  blockOwnerDeletion: true;
}

/** The writes that bring a Service's slices to what its workloads make them. */
export interface SlicePlan {
  readonly create: NewEndpointSlice[];
  /** Whole slices to write over the stored ones (a slice reused for new ports has no version). */
  readonly update: EndpointSlice[];
  readonly delete: EndpointSlice[];
  /** Service ports a selected workload does not declare (upstream logs each as an error). */
  readonly undeclaredPorts: readonly { workload: string; port: ServicePort }[];
}

export interface SlicePlanOptions {
  /** The managed-by label value; upstream's by default. */
  readonly managedBy?: string;
  /** Endpoints per slice; upstream's 100 by default. */
  readonly maxEndpointsPerSlice?: number;
}

/**
 * The slices a Service must have given the ExternalWorkloads its selector matches and the slices
 * this controller wrote for it before (`existing`, those pending deletion left out), as upstream
 * reconciles them: per address type the Service supports, workloads are grouped by the ports
 * they map the Service's ports to; existing slices keep the endpoints still wanted (refreshed
 * when changed), endpoints that are new go first into slices written anyway, then into the
 * unchanged slice that they fill closest to full, then into new slices of at most
 * `maxEndpointsPerSlice`. Slices left empty, of ports no workload has now, of an address type
 * the Service no longer has, or not owned by this Service are deleted, and a slice to create
 * takes over the name of one to delete when both have one address type. Pure: nothing given
 * is changed.
 */
export function planEndpointSlices(
  service: Service,
  workloads: readonly ExternalWorkload[],
  existing: readonly EndpointSlice[],
  options: SlicePlanOptions = {},
): SlicePlan {
  const settings = {
    managedBy: options.managedBy ?? MANAGED_BY,
    max: options.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE,
  };
  const supported = supportedAddressTypes(service);
  const plan: SlicePlan = { create: [], update: [], delete: [], undeclaredPorts: [] };
  const undeclared = plan.undeclaredPorts as { workload: string; port: ServicePort }[];
  for (const workload of workloads) {
    if ((workload.spec?.workloadIPs ?? []).length === 0) continue;
    for (const port of endpointPortsOf(service, workload).skipped) {
      undeclared.push({ workload: workloadName(workload), port });
    }
  }
  for (const addressType of supported) {
    const ofType = existing.filter((s) => s.addressType === addressType);
    const part = planAddressType(service, workloads, ofType, addressType, settings);
    plan.create.push(...part.create);
    plan.update.push(...part.update);
    plan.delete.push(...part.delete);
  }
  const kept = new Set<string>(supported);
  plan.delete.push(...existing.filter((s) => !kept.has(s.addressType)));
  return plan;
}

interface Settings {
  readonly managedBy: string;
  readonly max: number;
}

interface Group {
  readonly ports: EndpointSlicePort[];
  readonly endpoints: Map<string, Endpoint>;
}

function planAddressType(
  service: Service,
  workloads: readonly ExternalWorkload[],
  existing: readonly EndpointSlice[],
  addressType: SliceAddressType,
  settings: Settings,
): { create: NewEndpointSlice[]; update: EndpointSlice[]; delete: EndpointSlice[] } {
  const create: NewEndpointSlice[] = [];
  const update: EndpointSlice[] = [];
  const remove: EndpointSlice[] = [];

  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const slice of existing) {
    if (!ownedBy(slice, service)) {
      remove.push(slice);
      continue;
    }
    const key = portSetKey(slice.ports);
    existingByPorts.set(key, [...(existingByPorts.get(key) ?? []), slice]);
  }

  const desired = new Map<string, Group>();
  for (const workload of workloads) {
    if ((workload.spec?.workloadIPs ?? []).length === 0) continue;
    const { ports } = endpointPortsOf(service, workload);
    const key = portSetKey(ports);
    let group = desired.get(key);
    if (group === undefined) {
      group = { ports, endpoints: new Map() };
      desired.set(key, group);
    }
    const endpoint = workloadEndpoint(addressType, workload, service);
    if (endpoint.addresses.length > 0) group.endpoints.set(endpointKey(endpoint), endpoint);
  }

  for (const [key, group] of desired) {
    const part = planPortGroup(
      service,
      existingByPorts.get(key) ?? [],
      group,
      addressType,
      settings,
    );
    create.push(...part.create);
    update.push(...part.update);
    remove.push(...part.delete);
  }
  for (const [key, slices] of existingByPorts) {
    if (!desired.has(key)) remove.push(...slices);
  }

  // A slice to create reuses the name of one to delete: one update instead of two writes. Only
  // a slice of this Service and of the same (immutable) address type is taken over.
  for (let i = 0; i < remove.length && create.length > 0; ) {
    const old = remove[i] as EndpointSlice;
    const fresh = create[create.length - 1] as NewEndpointSlice;
    if (old.addressType === fresh.addressType && ownedBy(old, service)) {
      create.pop();
      const { generateName: _unused, ...metadata } = fresh.metadata;
      update.push({ ...fresh, metadata: { ...metadata, name: old.metadata.name } });
      remove.splice(i, 1);
    } else i++;
  }
  return { create, update, delete: remove };
}

function planPortGroup(
  service: Service,
  existing: readonly EndpointSlice[],
  group: Group,
  addressType: SliceAddressType,
  settings: Settings,
): { create: NewEndpointSlice[]; update: EndpointSlice[]; delete: EndpointSlice[] } {
  const wanted = new Map(group.endpoints);
  const byName = new Map<string, EndpointSlice>();
  const unchanged = new Set<string>();
  const toUpdate = new Set<string>();
  const toDelete = new Set<string>();

  // 1. Each existing slice keeps the endpoints still wanted, in their current form.
  for (const slice of existing) {
    const name = slice.metadata.name;
    byName.set(name, slice);
    const current = slice.endpoints ?? [];
    const keep: Endpoint[] = [];
    let endpointChanged = false;
    for (const endpoint of current) {
      const key = endpointKey(endpoint);
      const found = wanted.get(key);
      if (found === undefined) continue;
      keep.push(found);
      if (!endpointsEqualBeyondKey(found, endpoint)) endpointChanged = true;
      wanted.delete(key);
    }
    const { labels, changed: labelsChanged } = sliceLabels(slice, service, settings.managedBy);
    if (endpointChanged || current.length !== keep.length) {
      if (keep.length === 0) toDelete.add(name);
      else {
        byName.set(name, withChanges(slice, { labels, endpoints: keep }));
        toUpdate.add(name);
      }
    } else if (labelsChanged) {
      byName.set(name, withChanges(slice, { labels }));
      toUpdate.add(name);
    } else unchanged.add(name);
  }

  // 2. New endpoints go first into the slices written anyway, fullest first.
  const take = (slice: { endpoints?: Endpoint[] | null }) => {
    const endpoints = slice.endpoints ?? [];
    slice.endpoints = endpoints;
    for (const [key, endpoint] of wanted) {
      if (endpoints.length >= settings.max) break;
      endpoints.push(endpoint);
      wanted.delete(key);
    }
  };
  if (wanted.size > 0 && toUpdate.size > 0) {
    const slices = [...toUpdate].map((name) => byName.get(name) as EndpointSlice);
    slices.sort((a, b) => (b.endpoints ?? []).length - (a.endpoints ?? []).length);
    for (const slice of slices) take(slice);
  }

  // 3. Then into the unchanged slice they fill closest to full, else into new slices.
  const create: NewEndpointSlice[] = [];
  while (wanted.size > 0) {
    let fill: EndpointSlice | undefined;
    if (wanted.size < settings.max && unchanged.size > 0) {
      const candidates = [...unchanged].map((name) => byName.get(name) as EndpointSlice);
      fill = sliceToFill(candidates, wanted.size, settings.max);
    }
    if (fill === undefined) {
      const fresh = newSlice(service, group.ports, addressType, settings.managedBy);
      take(fresh);
      create.push(fresh);
      continue;
    }
    const copy = withChanges(fill, {});
    take(copy);
    byName.set(copy.metadata.name, copy);
    toUpdate.add(copy.metadata.name);
    unchanged.delete(copy.metadata.name);
  }

  const named = (names: Set<string>) => [...names].map((name) => byName.get(name) as EndpointSlice);
  return { create, update: named(toUpdate), delete: named(toDelete) };
}

/** The slice closest to full once `count` endpoints are added, if any has room for all. */
function sliceToFill(
  slices: readonly EndpointSlice[],
  count: number,
  max: number,
): EndpointSlice | undefined {
  let closestDiff = max;
  let closest: EndpointSlice | undefined;
  for (const slice of slices) {
    const diff = max - (count + (slice.endpoints ?? []).length);
    if (diff >= 0 && diff < closestDiff) {
      closestDiff = diff;
      closest = slice;
      if (diff === 0) break;
    }
  }
  return closest;
}

/** A copy of a cached slice with new labels and endpoints; the cached object stays as it was. */
function withChanges(
  slice: EndpointSlice,
  changes: { labels?: Record<string, string>; endpoints?: Endpoint[] },
): EndpointSlice {
  const copy = structuredClone(slice);
  if (changes.labels !== undefined) copy.metadata.labels = changes.labels;
  if (changes.endpoints !== undefined) copy.endpoints = changes.endpoints;
  return copy;
}

function newSlice(
  service: Service,
  ports: EndpointSlicePort[],
  addressType: SliceAddressType,
  managedBy: string,
): NewEndpointSlice {
  const { name, namespace, uid = "" } = service.metadata;
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      generateName: `linkerd-external-${name}-`,
      ...(namespace === undefined ? {} : { namespace }),
      labels: sliceLabels(undefined, service, managedBy).labels,
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Service",
          name,
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType,
    endpoints: [],
    ports: structuredClone(ports),
  };
}

/** The slice names this Service (by uid) as its owner, as upstream checks it. */
export function ownedBy(slice: Pick<EndpointSlice, "metadata">, service: Service): boolean {
  return (slice.metadata.ownerReferences ?? []).some(
    (o) => o.uid === service.metadata.uid && o.kind === "Service" && o.apiVersion === "v1",
  );
}

function workloadName(workload: ExternalWorkload): string {
  return `${workload.metadata.namespace ?? ""}/${workload.metadata.name}`;
}
