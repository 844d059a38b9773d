// Random inputs for the bad-input property tests and `pnpm fuzz`: authorities, context tokens
// and manifest files. Each is mostly garbage, with near misses of the valid shapes mixed in.
import fc from "fast-check";

/** Authorities: anything at all, and near misses of the valid shapes. */
const label = fc.oneof(
  fc.constantFrom("web", "ns", "svc", "web-0", "", "WEB", "cluster", "local"),
  fc.string(),
);
const host = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.array(label, { maxLength: 7 }).map((labels) => labels.join(".")),
  fc.constantFrom(
    "web.ns.svc.cluster.local",
    "web-0.web.ns.svc.cluster.local",
    "[::1]",
    "[fe80::1%eth0]",
  ),
);
const port = fc.oneof(
  fc.integer({ min: -10, max: 70000 }).map(String),
  fc.constantFrom("", "+80", "0080", "http", "99999999999999999999", "8_0"),
  fc.string(),
);
export const authority = fc.oneof(
  fc.string(),
  fc.tuple(host, port).map(([h, p]) => `${h}:${p}`),
  host,
);

export const token = fc.oneof(
  fc.constant(""),
  fc.string(),
  fc.json(),
  fc
    .record({ ns: fc.string(), nodeName: fc.string(), pod: fc.string() })
    .map((t) => JSON.stringify(t)),
  fc.string().map((ns) => `ns:${ns}`),
);

/** The namespace the known objects live in; random objects never land there. */
export const KNOWN_NAMESPACE = "ns";

const CACHED_TYPES: readonly [string, string][] = [
  ["v1", "Service"],
  ["v1", "Pod"],
  ["v1", "Endpoints"],
  ["v1", "Node"],
  ["discovery.k8s.io/v1", "EndpointSlice"],
  ["apps/v1", "ReplicaSet"],
  ["batch/v1", "Job"],
  ["linkerd.io/v1alpha2", "ServiceProfile"],
  ["policy.linkerd.io/v1beta3", "Server"],
  ["workload.linkerd.io/v1beta1", "ExternalWorkload"],
  ["apps/v1", "Deployment"],
];

/**
 * A value of any type, sometimes a huge string or a deeply nested list (kept to a few hundred
 * levels: YAML parsing time grows with the square of the depth).
 */
const wild = fc.oneof(
  { weight: 40, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }).map((n) => "x".repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 300 }).map((depth) => {
      let value: unknown = [];
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    }),
  },
);

/** A field of the shape the watchers read, or something else in its place. */
const field = (valid: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: valid }, wild);
const ip = fc.oneof(fc.ipV4(), fc.ipV6(), fc.string());
const portNumber = field(fc.integer({ min: -1, max: 70_000 }));
const labels = field(fc.dictionary(fc.string(), field(fc.string())));

const metadata = fc.record(
  {
    name: field(fc.constantFrom("web", "db", "web-0", "web-1", "x")),
    namespace: field(fc.constantFrom("fuzz", "default", "", "other")),
    labels,
    annotations: labels,
    ownerReferences: field(fc.array(fc.record({ kind: field(fc.string()), name: wild }))),
  },
  { requiredKeys: [] },
);

const spec = fc.record(
  {
    ports: field(
      fc.array(
        fc.record(
          { port: portNumber, targetPort: field(fc.oneof(portNumber, fc.string())), name: wild },
          { requiredKeys: [] },
        ),
      ),
    ),
    clusterIP: field(ip),
    selector: labels,
    containers: field(fc.array(fc.record({ name: wild, ports: wild }, { requiredKeys: [] }))),
    podSelector: field(fc.record({ matchLabels: labels }, { requiredKeys: [] })),
    port: field(fc.oneof(portNumber, fc.string())),
    routes: wild,
    opaquePorts: wild,
    workloadIPs: field(fc.array(fc.record({ ip }))),
  },
  { requiredKeys: [] },
);

/** An object of a cached kind (or close to one), with random and wrongly typed fields. */
const object = fc
  .record(
    {
      type: fc.constantFrom(...CACHED_TYPES),
      apiVersion: wild,
      kind: wild,
      metadata: field(metadata),
      spec: field(spec),
      status: field(fc.record({ podIP: ip, phase: wild }, { requiredKeys: [] })),
      addressType: field(fc.constantFrom("IPv4", "IPv6", "FQDN")),
      endpoints: field(fc.array(fc.record({ addresses: field(fc.array(ip)) }))),
      subsets: wild,
    },
    { requiredKeys: ["type", "metadata"] },
  )
  .map(({ type: [apiVersion, kind], ...rest }) => {
    const obj: Record<string, unknown> = { apiVersion, kind, ...rest };
    if (rest.apiVersion === undefined) obj.apiVersion = apiVersion;
    if (rest.kind === undefined) obj.kind = kind;
    // Random objects stay out of the known objects' namespace, so the known Service's answer
    // must not change whatever they are.
    const meta = obj.metadata;
    if (typeof meta === "object" && meta !== null && !Array.isArray(meta)) {
      const { namespace } = meta as Record<string, unknown>;
      if (namespace === KNOWN_NAMESPACE || namespace === undefined || namespace === "") {
        (meta as Record<string, unknown>).namespace = "fuzz";
      }
    }
    return obj;
  });

/** One document: an object, a List of them, or any value at all. */
const document = fc.oneof(
  { weight: 6, arbitrary: object },
  {
    weight: 1,
    arbitrary: fc
      .array(object, { maxLength: 4 })
      .map((items) => ({ apiVersion: "v1", kind: "List", items })),
  },
  { weight: 1, arbitrary: wild },
);

/**
 * The bytes of one manifest file and its extension: YAML documents, one JSON value, or text and
 * bytes that are neither (including invalid UTF-8).
 */
export const manifestFile: fc.Arbitrary<{
  ext: "yaml" | "json";
  bytes: Buffer;
  documents: number;
}> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(document, { minLength: 1, maxLength: 8 }).map((docs) => ({
      ext: "yaml" as const,
      bytes: Buffer.from(docs.map((d) => safeJson(d)).join("\n---\n")),
      documents: docs.length,
    })),
  },
  {
    weight: 1,
    arbitrary: document.map((d) => ({
      ext: "json" as const,
      bytes: Buffer.from(safeJson(d)),
      documents: 1,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.string(), fc.string({ unit: "binary" }))
      .map((text) => ({ ext: "yaml" as const, bytes: Buffer.from(text), documents: 1 })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => ({
      ext: "yaml" as const,
      bytes: Buffer.from(bytes),
      documents: 1,
    })),
  },
);

/** JSON text of any value; what JSON cannot hold (undefined, a bigint) becomes null or text. */
function safeJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v)) ?? "null"
  );
}
