import type { ResourceKind } from "../resource-kind.js";
import {
  boolean,
  type Check,
  integer,
  list,
  looseObject,
  nonEmptyString,
  nullish,
  optional,
  string,
  stringMap,
  union,
  unknown,
} from "./checks.js";

// The schemas check only the fields some watcher or index reads, and only their types: unknown
// fields pass, and an optional field may be absent or `null`, as the API server writes it.
// The objects are kept as they came; the checks never transform them.

const optionalString = nullish(string);
const optionalBoolean = nullish(boolean);
const port = integer;
const optionalPort = nullish(port);
const portOrName = nullish(union([port, string]));
// Labels and selectors are read by key, so a map is never an array.
const optionalStringMap = nullish(stringMap);
const optionalList = (item: Check) => nullish(list(item));

const metadata = looseObject({
  name: nonEmptyString,
  // Unlike the fields below, these three may be absent but not `null`.
  namespace: optional(string),
  uid: optional(string),
  resourceVersion: optional(string),
  creationTimestamp: optionalString,
  deletionTimestamp: optionalString,
  labels: optionalStringMap,
  annotations: optionalStringMap,
  ownerReferences: optionalList(
    looseObject({ kind: string, name: string, controller: optionalBoolean }),
  ),
  managedFields: optionalList(looseObject({ time: optionalString })),
});

const object = (fields: Record<string, Check>) =>
  looseObject({ apiVersion: optionalString, kind: optionalString, metadata, ...fields });

const objectReference = nullish(
  looseObject({
    kind: optionalString,
    namespace: optionalString,
    name: optionalString,
    uid: optionalString,
    resourceVersion: optionalString,
  }),
);

const labelSelector = nullish(
  looseObject({
    matchLabels: optionalStringMap,
    matchExpressions: optionalList(
      looseObject({ key: string, operator: string, values: optionalList(string) }),
    ),
  }),
);

const service = object({
  spec: nullish(
    looseObject({
      type: optionalString,
      clusterIP: optionalString,
      clusterIPs: optionalList(string),
      ports: optionalList(
        looseObject({
          name: optionalString,
          protocol: optionalString,
          port,
          targetPort: portOrName,
          nodePort: optionalPort,
        }),
      ),
      selector: optionalStringMap,
      externalName: optionalString,
      internalTrafficPolicy: optionalString,
      ipFamilies: optionalList(string),
    }),
  ),
});

const container = looseObject({
  name: optionalString,
  ports: optionalList(
    looseObject({
      name: optionalString,
      containerPort: port,
      hostPort: optionalPort,
      hostIP: optionalString,
      protocol: optionalString,
    }),
  ),
  env: optionalList(looseObject({ name: string, value: optionalString })),
});

const podIps = optionalList(looseObject({ ip: string }));

const pod = object({
  spec: nullish(
    looseObject({
      nodeName: optionalString,
      hostNetwork: optionalBoolean,
      hostname: optionalString,
      subdomain: optionalString,
      serviceAccountName: optionalString,
      containers: optionalList(container),
      initContainers: optionalList(container),
    }),
  ),
  status: nullish(
    looseObject({
      phase: optionalString,
      podIP: optionalString,
      podIPs: podIps,
      hostIP: optionalString,
      hostIPs: podIps,
    }),
  ),
});

const endpointAddress = looseObject({
  ip: string,
  hostname: optionalString,
  nodeName: optionalString,
  targetRef: objectReference,
});

const endpoints = object({
  subsets: optionalList(
    looseObject({
      addresses: optionalList(endpointAddress),
      notReadyAddresses: optionalList(endpointAddress),
      ports: optionalList(looseObject({ name: optionalString, port, protocol: optionalString })),
    }),
  ),
});

const endpointSlice = object({
  addressType: string,
  endpoints: optionalList(
    looseObject({
      addresses: list(string),
      conditions: nullish(
        looseObject({
          ready: optionalBoolean,
          serving: optionalBoolean,
          terminating: optionalBoolean,
        }),
      ),
      hostname: optionalString,
      targetRef: objectReference,
      nodeName: optionalString,
      zone: optionalString,
      hints: nullish(looseObject({ forZones: optionalList(looseObject({ name: string })) })),
    }),
  ),
  ports: optionalList(
    looseObject({
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
const serviceProfile = object({
  spec: nullish(
    looseObject({
      routes: optionalList(unknown),
      retryBudget: nullish(looseObject({})),
      dstOverrides: optionalList(unknown),
      opaquePorts: optionalList(string),
    }),
  ),
});

const server = object({
  spec: nullish(
    looseObject({
      podSelector: labelSelector,
      externalWorkloadSelector: labelSelector,
      port: portOrName,
      proxyProtocol: optionalString,
      accessPolicy: optionalString,
    }),
  ),
});

const externalWorkload = object({
  spec: nullish(
    looseObject({
      meshTLS: nullish(looseObject({ identity: string, serverName: string })),
      ports: optionalList(looseObject({ name: optionalString, port, protocol: optionalString })),
      workloadIPs: optionalList(looseObject({ ip: string })),
    }),
  ),
  status: nullish(
    looseObject({
      conditions: optionalList(looseObject({ type: string, status: string })),
    }),
  ),
});

const metadataOnly = object({});

// What protobuf cannot rule out in an object read by the readers in `kube/`: they give every
// field its schema's type by construction, but the wire allows an empty string and an absent
// list where the JSON checks above want a name and an endpoint's addresses.
const typedMetadata = looseObject({ name: nonEmptyString });
const typedObject = looseObject({ metadata: typedMetadata });
const typedEndpointSlice = looseObject({
  metadata: typedMetadata,
  endpoints: optionalList(looseObject({ addresses: list(string) })),
});

/**
 * What an object read from protobuf must still pass: the checks of `OBJECT_SCHEMAS` its reader
 * does not make true by construction. Kinds that are never read from protobuf are absent.
 */
export const TYPED_OBJECT_SCHEMAS: Readonly<Partial<Record<ResourceKind, Check>>> = {
  Service: typedObject,
  EndpointSlice: typedEndpointSlice,
  Pod: typedObject,
  // Metadata-only lists.
  Node: typedObject,
  ReplicaSet: typedObject,
  Job: typedObject,
};

/** What a `kind` must look like for the watchers to read it. */
export const OBJECT_SCHEMAS: Readonly<Record<ResourceKind, Check>> = {
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
};
