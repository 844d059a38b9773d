import * as v from "valibot";
import type { ResourceKind } from "./resource-kind.js";

// The schemas check only the fields some watcher or index reads, and only their types: unknown
// fields pass, and an optional field may be absent or `null`, as the API server writes it.
// The objects are kept as they came; the schemas never transform them.

const optionalString = v.nullish(v.string());
const optionalBoolean = v.nullish(v.boolean());
const port = v.pipe(v.number(), v.integer());
// valibot takes an array for a record; labels and selectors are read by key, so refuse it.
const stringMap = v.nullish(
  v.pipe(
    v.custom<unknown>((value) => !Array.isArray(value), "expected Object, got Array"),
    v.record(v.string(), v.string()),
  ),
);
const list = <T extends v.GenericSchema>(item: T) => v.nullish(v.array(item));

const metadata = v.looseObject({
  name: v.pipe(v.string(), v.nonEmpty()),
  namespace: v.optional(v.string()),
  uid: v.optional(v.string()),
  resourceVersion: v.optional(v.string()),
  creationTimestamp: optionalString,
  deletionTimestamp: optionalString,
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: list(
    v.looseObject({ kind: v.string(), name: v.string(), controller: optionalBoolean }),
  ),
  managedFields: list(v.looseObject({ time: optionalString })),
});

const object = <T extends v.ObjectEntries>(entries: T) =>
  v.looseObject({ apiVersion: optionalString, kind: optionalString, metadata, ...entries });

const objectReference = v.nullish(
  v.looseObject({
    kind: optionalString,
    namespace: optionalString,
    name: optionalString,
    uid: optionalString,
    resourceVersion: optionalString,
  }),
);

const labelSelector = v.nullish(
  v.looseObject({
    matchLabels: stringMap,
    matchExpressions: list(
      v.looseObject({ key: v.string(), operator: v.string(), values: list(v.string()) }),
    ),
  }),
);

const service = object({
  spec: v.nullish(
    v.looseObject({
      type: optionalString,
      clusterIP: optionalString,
      clusterIPs: list(v.string()),
      ports: list(
        v.looseObject({
          name: optionalString,
          protocol: optionalString,
          port,
          targetPort: v.nullish(v.union([port, v.string()])),
          nodePort: v.nullish(port),
        }),
      ),
      selector: stringMap,
      externalName: optionalString,
      internalTrafficPolicy: optionalString,
      ipFamilies: list(v.string()),
    }),
  ),
});

const container = v.looseObject({
  name: optionalString,
  ports: list(
    v.looseObject({
      name: optionalString,
      containerPort: port,
      hostPort: v.nullish(port),
      hostIP: optionalString,
      protocol: optionalString,
    }),
  ),
  env: list(v.looseObject({ name: v.string(), value: optionalString })),
});

const podIps = list(v.looseObject({ ip: v.string() }));

const pod = object({
  spec: v.nullish(
    v.looseObject({
      nodeName: optionalString,
      hostNetwork: optionalBoolean,
      hostname: optionalString,
      subdomain: optionalString,
      serviceAccountName: optionalString,
      containers: list(container),
      initContainers: list(container),
    }),
  ),
  status: v.nullish(
    v.looseObject({
      phase: optionalString,
      podIP: optionalString,
      podIPs: podIps,
      hostIP: optionalString,
      hostIPs: podIps,
    }),
  ),
});

const endpointAddress = v.looseObject({
  ip: v.string(),
  hostname: optionalString,
  nodeName: optionalString,
  targetRef: objectReference,
});

const endpoints = object({
  subsets: list(
    v.looseObject({
      addresses: list(endpointAddress),
      notReadyAddresses: list(endpointAddress),
      ports: list(v.looseObject({ name: optionalString, port, protocol: optionalString })),
    }),
  ),
});

const endpointSlice = object({
  addressType: v.string(),
  endpoints: list(
    v.looseObject({
      addresses: v.array(v.string()),
      conditions: v.nullish(
        v.looseObject({
          ready: optionalBoolean,
          serving: optionalBoolean,
          terminating: optionalBoolean,
        }),
      ),
      hostname: optionalString,
      targetRef: objectReference,
      nodeName: optionalString,
      zone: optionalString,
      hints: v.nullish(v.looseObject({ forZones: list(v.looseObject({ name: v.string() })) })),
    }),
  ),
  ports: list(
    v.looseObject({
      name: optionalString,
      port: v.nullish(port),
      protocol: optionalString,
      appProtocol: optionalString,
    }),
  ),
});

// Routes, retry budgets and overrides are read field by field by the profile translator, which
// rejects a wrongly typed field the way upstream's decoding does; only their containers are
// checked here.
const serviceProfile = object({
  spec: v.nullish(
    v.looseObject({
      routes: list(v.unknown()),
      retryBudget: v.nullish(v.looseObject({})),
      dstOverrides: list(v.unknown()),
      opaquePorts: list(v.string()),
    }),
  ),
});

const server = object({
  spec: v.nullish(
    v.looseObject({
      podSelector: labelSelector,
      externalWorkloadSelector: labelSelector,
      port: v.nullish(v.union([port, v.string()])),
      proxyProtocol: optionalString,
      accessPolicy: optionalString,
    }),
  ),
});

const externalWorkload = object({
  spec: v.nullish(
    v.looseObject({
      meshTLS: v.nullish(v.looseObject({ identity: v.string(), serverName: v.string() })),
      ports: list(v.looseObject({ name: optionalString, port, protocol: optionalString })),
      workloadIPs: list(v.looseObject({ ip: v.string() })),
    }),
  ),
  status: v.nullish(
    v.looseObject({
      conditions: list(v.looseObject({ type: v.string(), status: v.string() })),
    }),
  ),
});

const metadataOnly = object({});

const SCHEMAS: Record<ResourceKind, v.GenericSchema> = {
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

/**
 * The first problem that keeps `value` from being a `kind` the watchers can read, as
 * `path: message` (`spec.ports[0].port: expected number, got "80"`), or undefined when it is one.
 */
export function objectProblem(kind: ResourceKind, value: unknown): string | undefined {
  const result = v.safeParse(SCHEMAS[kind], value, { abortEarly: true });
  if (result.success) return undefined;
  const issue = result.issues[0];
  return `${issuePath(issue.path)}: ${issueMessage(issue)}`;
}

/** `namespace/name` (or `name`) of something that may not even have metadata. */
export function describeObject(value: unknown): string {
  const meta = (value as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  const name = typeof meta?.name === "string" ? meta.name : "<no name>";
  return typeof meta?.namespace === "string" && meta.namespace !== ""
    ? `${meta.namespace}/${name}`
    : name;
}

function issuePath(path: readonly { key: unknown }[] | undefined): string {
  let out = "";
  for (const { key } of path ?? []) {
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "the object" : out;
}

function issueMessage(issue: v.BaseIssue<unknown>): string {
  const text =
    issue.kind !== "schema" || issue.type === "custom"
      ? issue.message
      : issue.received === "undefined"
        ? "missing"
        : `expected ${issue.expected}, got ${issue.received}`;
  // A received value is quoted whole; a huge one would drown the log line.
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

const MAX_MESSAGE = 160;
