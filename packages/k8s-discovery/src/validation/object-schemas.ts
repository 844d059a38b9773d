import type { KubeObject } from "@destination/core";
import * as v from "valibot";
import { latestUpdateOnly } from "../managed-fields.js";
import type { ResourceKind } from "../resource-kind.js";
import { RESOURCE_KINDS } from "../resource-kind.js";
import { keptAs, keptWhole, projectBySchema } from "./schema-projection.js";

// The one declaration of the Kubernetes fields the destination service reads. The schemas
// check only those fields, and only their types: unknown fields pass, and an optional field may
// be absent or `null`, as the API server writes it. What valibot outputs is not used. They
// also say what the cache keeps (`projectObject` below, by schema-projection.ts): of Pods and
// Services exactly the fields named here, of other kinds the whole object (`keptWhole`), and
// of `managedFields` the latest `Update` time. core's types are proven equal to them
// (object-types.test.ts), and so is what the protobuf readers give (kube/protobuf-shapes.test.ts).

// The valibot schemas the object schemas are built from. They only test types: what they
// output is never used, the objects are kept as they came.

/** A field that may be absent or `null`, as the API server writes an unset field. */
export const optionalString = v.nullish(v.string());
export const optionalBoolean = v.nullish(v.boolean());
export const optionalNumber = v.nullish(v.number());

/** `metadata.name`: a string, and not an empty one. */
export const nonEmptyString = v.pipe(v.string(), v.nonEmpty());

/** Ports, and any other whole number; NaN and Infinity are not one. */
export const port = v.pipe(v.number(), v.integer());
export const optionalPort = v.nullish(port);
/** A port by number or by name (`targetPort`, a Server's `port`). */
export const optionalPortOrName = v.nullish(v.union([port, v.string()]));

/**
 * Labels, annotations and selectors: an object of strings. They are read by key, so an array is
 * refused, which valibot's record takes; keys that are not the object's own, and `__proto__`,
 * `prototype` and `constructor`, are not looked at.
 */
export const stringMap = v.pipe(
  v.custom<unknown>((value) => !Array.isArray(value), "expected Object, got Array"),
  v.record(v.string(), v.string()),
);
export const optionalStringMap = v.nullish(stringMap);

/** An array of `item`s, or absent, or `null`. */
export function optionalList<T extends v.GenericSchema>(item: T) {
  return v.nullish(v.array(item));
}

/**
 * An object (arrays included) whose listed fields pass their schemas, in the order given, read
 * through the prototype chain; other fields pass unread. valibot's `object` accepts exactly
 * what `looseObject` does and leaves unknown fields out of its output instead of copying them,
 * which is all the difference here since the output is dropped.
 */
const fields = v.object;

/** A field that is an object of `entries`, or absent, or `null`. */
const optionalFields = <T extends v.ObjectEntries>(entries: T) => v.nullish(fields(entries));

export type ObjectSchema = v.GenericSchema;

// Metadata is kept as it came (owner references whole), but for `managedFields`.
const metadata = keptWhole(
  fields({
    name: nonEmptyString,
    // Unlike the fields below, these three may be absent but not `null`.
    namespace: v.optional(v.string()),
    uid: v.optional(v.string()),
    resourceVersion: v.optional(v.string()),
    // The external workload controller compares slices' generations.
    generation: optionalNumber,
    creationTimestamp: optionalString,
    deletionTimestamp: optionalString,
    labels: optionalStringMap,
    annotations: optionalStringMap,
    ownerReferences: optionalList(
      fields({
        apiVersion: optionalString,
        kind: v.string(),
        name: v.string(),
        uid: optionalString,
        controller: optionalBoolean,
      }),
    ),
    // Informer lag reads the latest `Update` time; nothing else of it is kept.
    managedFields: keptAs(
      optionalList(fields({ operation: optionalString, time: optionalString })),
      latestUpdateOnly,
    ),
  }),
);

/** An object of a kind whose cache keeps exactly the fields named (and its whole metadata). */
const object = <T extends v.ObjectEntries>(entries: T) =>
  fields({ apiVersion: optionalString, kind: optionalString, metadata, ...entries });

/** An object of a kind whose cache keeps it whole: what is named is checked. */
const wholeObject = <T extends v.ObjectEntries>(entries: T) => keptWhole(object(entries));

const objectReference = optionalFields({
  kind: optionalString,
  namespace: optionalString,
  name: optionalString,
  uid: optionalString,
  resourceVersion: optionalString,
});

const labelSelector = optionalFields({
  matchLabels: optionalStringMap,
  matchExpressions: optionalList(
    fields({ key: v.string(), operator: v.string(), values: optionalList(v.string()) }),
  ),
});

const service = object({
  spec: optionalFields({
    type: optionalString,
    clusterIP: optionalString,
    clusterIPs: optionalList(v.string()),
    ports: optionalList(
      fields({
        name: optionalString,
        protocol: optionalString,
        port,
        targetPort: optionalPortOrName,
        nodePort: optionalPort,
      }),
    ),
    selector: optionalStringMap,
    externalName: optionalString,
    internalTrafficPolicy: optionalString,
    ipFamilies: optionalList(v.string()),
  }),
});

const container = fields({
  name: optionalString,
  ports: optionalList(
    fields({
      name: optionalString,
      containerPort: port,
      hostPort: optionalPort,
      hostIP: optionalString,
      protocol: optionalString,
    }),
  ),
  env: optionalList(fields({ name: v.string(), value: optionalString })),
});

const podIps = optionalList(fields({ ip: v.string() }));

const pod = object({
  spec: optionalFields({
    nodeName: optionalString,
    hostNetwork: optionalBoolean,
    hostname: optionalString,
    subdomain: optionalString,
    serviceAccountName: optionalString,
    containers: optionalList(container),
    initContainers: optionalList(container),
  }),
  status: optionalFields({
    phase: optionalString,
    podIP: optionalString,
    podIPs: podIps,
    hostIP: optionalString,
    hostIPs: podIps,
  }),
});

const endpointAddress = fields({
  ip: v.string(),
  hostname: optionalString,
  nodeName: optionalString,
  targetRef: objectReference,
});

const endpoints = wholeObject({
  subsets: optionalList(
    fields({
      addresses: optionalList(endpointAddress),
      notReadyAddresses: optionalList(endpointAddress),
      ports: optionalList(fields({ name: optionalString, port, protocol: optionalString })),
    }),
  ),
});

const endpointSlice = wholeObject({
  addressType: v.string(),
  endpoints: optionalList(
    fields({
      addresses: v.array(v.string()),
      conditions: optionalFields({
        ready: optionalBoolean,
        serving: optionalBoolean,
        terminating: optionalBoolean,
      }),
      hostname: optionalString,
      targetRef: objectReference,
      nodeName: optionalString,
      zone: optionalString,
      hints: optionalFields({ forZones: optionalList(fields({ name: v.string() })) }),
    }),
  ),
  ports: optionalList(
    fields({
      name: optionalString,
      port: optionalPort,
      protocol: optionalString,
      appProtocol: optionalString,
    }),
  ),
});

// Routes, retry budgets and overrides are read field by field by the profile translator, which
// rejects a wrongly typed field the way upstream's decoding does; only their containers are
// checked here.
const serviceProfile = wholeObject({
  spec: optionalFields({
    routes: optionalList(v.unknown()),
    retryBudget: optionalFields({}),
    dstOverrides: optionalList(v.unknown()),
    opaquePorts: optionalList(v.string()),
  }),
});

const server = wholeObject({
  spec: optionalFields({
    podSelector: labelSelector,
    externalWorkloadSelector: labelSelector,
    port: optionalPortOrName,
    proxyProtocol: optionalString,
    accessPolicy: optionalString,
  }),
});

const externalWorkload = wholeObject({
  spec: optionalFields({
    meshTLS: optionalFields({ identity: v.string(), serverName: v.string() }),
    ports: optionalList(fields({ name: optionalString, port, protocol: optionalString })),
    workloadIPs: optionalList(fields({ ip: v.string() })),
  }),
  status: optionalFields({
    conditions: optionalList(fields({ type: v.string(), status: v.string() })),
  }),
});

const metadataOnly = wholeObject({});

// What protobuf cannot rule out in an object read by the readers in `kube/`: they give every
// field its schema's type by construction, but the wire allows an empty string and an absent
// list where the JSON schemas above want a name and an endpoint's addresses.
const typedMetadata = fields({ name: nonEmptyString });
const typedObject = fields({ metadata: typedMetadata });
const typedEndpointSlice = fields({
  metadata: typedMetadata,
  endpoints: optionalList(fields({ addresses: v.array(v.string()) })),
});

/**
 * What an object read from protobuf must still pass: the checks of `OBJECT_SCHEMAS` its reader
 * does not make true by construction. Kinds that are never read from protobuf are absent.
 */
export const TYPED_OBJECT_SCHEMAS: Readonly<Partial<Record<ResourceKind, ObjectSchema>>> = {
  Service: typedObject,
  EndpointSlice: typedEndpointSlice,
  Pod: typedObject,
  // Metadata-only lists.
  Node: typedObject,
  ReplicaSet: typedObject,
  Job: typedObject,
};

/** What a `kind` must look like for the watchers to read it, and what its cache keeps. */
export const OBJECT_SCHEMAS = {
  Service: service,
  EndpointSlice: endpointSlice,
  Endpoints: endpoints,
  Pod: pod,
  ServiceProfile: serviceProfile,
  Server: server,
  ExternalWorkload: externalWorkload,
  Node: metadataOnly,
  ReplicaSet: metadataOnly,
  Job: metadataOnly,
} as const satisfies Readonly<Record<ResourceKind, ObjectSchema>>;

/** What the cache keeps of an object of a kind it does not check (a Secret): all but `managedFields`. */
export const ANY_OBJECT_SCHEMA: ObjectSchema = metadataOnly;

/**
 * What the cache keeps of an object from the API server, as its kind's schema above says: of `managedFields` (about a third of a pod's JSON) only the
 * latest `Update` time, which informer lag is measured from; of a Pod or a Service only the
 * fields its schema names, which are all that any watcher reads (a real pod's spec and status
 * also carry volumes, probes, resources, conditions and container statuses); other objects as
 * they came.
 */
export function projectObject<T extends KubeObject>(obj: T): T {
  const kind = obj.kind;
  const schema =
    kind !== undefined && Object.hasOwn(RESOURCE_KINDS, kind)
      ? OBJECT_SCHEMAS[kind as ResourceKind]
      : ANY_OBJECT_SCHEMA;
  return projectBySchema(schema, obj) as T;
}
