import { readFileSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { KubeObject, Service } from "@destination/core";
import { describe, expect, it } from "vitest";
import { PodSchema } from "../gen/k8s/core/v1/core_pb.js";
import { EncodedListSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { RESOURCE_KINDS, toObjectMetadata } from "../resource-kind.js";
import { projectObject } from "../validation/object-schemas.js";
import { ProtobufError } from "./protobuf-decode.js";
import { readEndpointSlice } from "./protobuf-endpoint-slice.js";
import { type ItemReader, metadataItemReader, ProtobufListItems } from "./protobuf-list-items.js";
import { readPod } from "./protobuf-pod.js";
import { readService } from "./protobuf-service.js";

// The same pods, listed from a real kube-apiserver (v1.37) once as protobuf and once as JSON:
// see testdata/README.md.
const testdata = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url));
const podsPb = testdata("pods.pb");
const podsJson = JSON.parse(testdata("pods.json").toString("utf8")) as {
  metadata: { resourceVersion: string };
  items: KubeObject[];
};
const projectedFromJson = podsJson.items.map((item) =>
  projectObject({ ...item, apiVersion: "v1", kind: "Pod" }),
);

function readAll(body: Buffer, chunkSizes: () => number, readItem: ItemReader = readPod) {
  const reader = new ProtobufListItems(readItem);
  const items: unknown[] = [];
  for (let at = 0; at < body.length; ) {
    const size = Math.max(1, chunkSizes());
    items.push(...reader.push(body.subarray(at, at + size)));
    at += size;
  }
  return { items, envelope: reader.end() };
}

describe("protobuf pod lists", () => {
  it("give each pod as the projection of its JSON gives it", () => {
    const { items, envelope } = readAll(podsPb, () => podsPb.length);
    expect(items).toHaveLength(6);
    expect(items).toStrictEqual(projectedFromJson);
    expect(envelope.metadata.resourceVersion).toBe(podsJson.metadata.resourceVersion);
    expect(envelope.metadata.continue).toBeUndefined();
  });

  it("covers the fields that differ between pods", () => {
    // The fixture is only worth its bytes if it exercises what the reader must get right.
    const byName = new Map(
      (readAll(podsPb, () => podsPb.length).items as KubeObject[]).map((p) => [p.metadata.name, p]),
    );
    expect(byName.get("meshed-web")).toMatchObject({
      metadata: {
        labels: { app: "web" },
        annotations: { note: 'line one\nline "two" é ☃ 😀' },
        ownerReferences: [
          { kind: "ReplicaSet", controller: true, blockOwnerDeletion: true },
          { kind: "ConfigMap", name: "other" },
        ],
      },
      spec: {
        serviceAccountName: "web",
        initContainers: [{ name: "linkerd-init", ports: [{ containerPort: 9999 }] }],
      },
      status: { podIPs: [{ ip: "10.1.0.5" }, { ip: "fd00::5" }] },
    });
    expect(byName.get("host-net")).toMatchObject({
      spec: { hostNetwork: true, containers: [{ ports: [{ hostPort: 7000 }] }] },
    });
    expect(byName.get("going")?.metadata).toMatchObject({
      deletionGracePeriodSeconds: 30,
      finalizers: ["example.com/keep"],
      managedFields: [{ operation: "Update" }],
    });
    expect(byName.get("pending")).toMatchObject({
      metadata: { generateName: "pending-" },
      spec: { hostname: "db-0", subdomain: "db" },
      status: { phase: "Pending" },
    });
  });

  it("reads the same pods whatever the chunks the body arrives in", () => {
    expect(readAll(podsPb, () => 1).items).toStrictEqual(projectedFromJson);
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 700;
    };
    for (let round = 0; round < 20; round++) {
      expect(readAll(podsPb, random).items).toStrictEqual(projectedFromJson);
    }
  });

  it("reads a list many times the size of its buffer, in any chunks, as the same pods", () => {
    // 80 copies of the six pods (~600 KB) and one pod with a 200 KB annotation: the pending
    // bytes are moved to the front many times, and grow for the big pod.
    const big = projectedFromJson[0] as KubeObject;
    const note = "n".repeat(200_000);
    const bigItem = itemBytes({ ...big, metadata: { ...big.metadata, annotations: { note } } });
    const items = [...Array.from({ length: 80 }, () => listItems(podsPb)).flat(), bigItem];
    const body = listBody(podsPb, items);
    const expected = [
      ...Array.from({ length: 80 }, () => projectedFromJson).flat(),
      expect.objectContaining({ metadata: expect.objectContaining({ annotations: { note } }) }),
    ];
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 5000;
    };
    expect(readAll(body, random).items).toStrictEqual(expected);
    expect(readAll(body, () => body.length).items).toStrictEqual(expected);
  });

  it("hands out the continue token of a page", () => {
    const page = testdata("pods-page.pb");
    const { items, envelope } = readAll(page, () => 1000);
    expect((items as KubeObject[]).map((p) => p.metadata.name)).toEqual(["going", "host-net"]);
    expect(envelope.metadata.continue).toMatch(/^eyJ/);
    expect(envelope.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it("refuses a body cut short, or one that is not protobuf", () => {
    const cut = new ProtobufListItems(readPod);
    cut.push(podsPb.subarray(0, podsPb.length - 100));
    expect(() => cut.end()).toThrow(/ended early/);
    expect(() => new ProtobufListItems(readPod).push(Buffer.from('{"items":[]}'))).toThrow(/magic/);
  });

  it("refuses a corrupt item rather than reading a wrong pod from it", () => {
    // The first item's metadata length made wrong: its fields no longer line up.
    const corrupt = Buffer.from(podsPb);
    corrupt[findFirstItem(corrupt).metadataLengthAt] = 0x7f;
    expect(() => new ProtobufListItems(readPod).push(corrupt)).toThrow(ProtobufError);
  });
});

/** A list fixture in both forms, read as protobuf, against its JSON as the backend keeps it. */
function bothForms(name: string, readItem: ItemReader, keep: (item: KubeObject) => unknown) {
  const pb = testdata(`${name}.pb`);
  const json = JSON.parse(testdata(`${name}.json`).toString("utf8")) as { items: KubeObject[] };
  return { read: () => readAll(pb, () => 97, readItem).items, expected: json.items.map(keep) };
}

describe("protobuf EndpointSlice lists", () => {
  const slices = bothForms("slices", readEndpointSlice, (item) =>
    projectObject({ ...item, apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" }),
  );

  it("give each slice whole, as the projection of its JSON gives it", () => {
    expect(slices.expected).toHaveLength(4);
    expect(slices.read()).toStrictEqual(slices.expected);
  });

  it("cover set and unset conditions, hints, target references and ports without a number", () => {
    const byName = new Map((slices.read() as KubeObject[]).map((s) => [s.metadata.name, s]));
    expect(byName.get("web-v4")).toMatchObject({
      endpoints: [
        {
          conditions: { ready: true, serving: true, terminating: false },
          hints: {
            forZones: [{ name: "zone-a" }, { name: "zone-b" }],
            forNodes: [{ name: "node-a" }],
          },
          targetRef: { fieldPath: "spec.containers{web}" },
        },
        { conditions: { ready: false, terminating: true } },
        { conditions: {}, targetRef: { kind: "Pod", name: "x" } },
        { conditions: {}, hints: {} },
      ],
      ports: [{ appProtocol: "kubernetes.io/h2c" }, { name: "", port: 53 }, { name: "noport" }],
    });
    // Empty lists with no omitempty come as null, as in the JSON.
    expect(byName.get("web-v6")).toHaveProperty("ports", null);
    expect(byName.get("empty")).toHaveProperty("endpoints", null);
  });
});

describe("protobuf Service lists", () => {
  const services = bothForms("services", readService, (item) =>
    projectObject({ ...item, apiVersion: "v1", kind: "Service" }),
  );

  it("give each Service as the projection of its JSON gives it", () => {
    expect(services.expected).toHaveLength(6);
    expect(services.read()).toStrictEqual(services.expected);
  });

  it("cover named and numbered target ports, node ports, families and the kinds of Service", () => {
    const byName = new Map((services.read() as KubeObject[]).map((s) => [s.metadata.name, s]));
    expect(byName.get("web")).toMatchObject({
      metadata: { annotations: { note: 'line "two"\n é ☃ 😀' } },
      spec: {
        internalTrafficPolicy: "Local",
        ports: [
          { name: "http", protocol: "TCP", port: 80, targetPort: "http" },
          { name: "dns", protocol: "UDP", port: 53, targetPort: 5353 },
        ],
      },
    });
    expect(byName.get("nodeport")).toMatchObject({
      spec: { type: "NodePort", ports: [{ port: 443, targetPort: 8443, nodePort: 30443 }] },
    });
    expect(byName.get("headless")).toMatchObject({
      spec: { clusterIP: "None", ipFamilies: ["IPv4", "IPv6"] },
    });
    // No ports, no cluster IP, no selector: absent, as the JSON leaves them out.
    expect(byName.get("external")).toStrictEqual({
      apiVersion: "v1",
      kind: "Service",
      metadata: expect.objectContaining({ name: "external" }),
      spec: { type: "ExternalName", externalName: "db.example.com" },
    });
    // What no watcher reads is not kept: status, affinity, external IPs, load-balancer settings.
    expect(byName.get("lb")).not.toHaveProperty("status");
    expect(Object.keys((byName.get("lb") as Service).spec ?? {}).sort()).toEqual([
      "clusterIP",
      "clusterIPs",
      "internalTrafficPolicy",
      "ipFamilies",
      "ports",
      "selector",
      "type",
    ]);
  });
});

describe("protobuf metadata-only lists", () => {
  it("give each object's metadata, as the metadata-only cache keeps it from JSON", () => {
    const info = RESOURCE_KINDS.ReplicaSet;
    const replicaSets = bothForms("replicasets-meta", metadataItemReader(info), (item) =>
      toObjectMetadata(item, info),
    );
    expect(replicaSets.expected).toHaveLength(2);
    expect(replicaSets.read()).toStrictEqual(replicaSets.expected);
  });
});

/** Where the first byte of the first item's metadata length is in a body. */
function findFirstItem(body: Buffer): { metadataLengthAt: number } {
  // k8s\0, the envelope's typeMeta (0x0a len …), then raw (0x12 varint) holding the list.
  let at = 4;
  at += 2 + (body[at + 1] as number);
  at += 1;
  while ((body[at] as number) & 0x80) at++;
  at++;
  // The list: metadata (0x0a len …), then the first item (0x12 varint), whose first field is
  // its metadata (0x0a varint).
  at += 2 + (body[at + 1] as number);
  at += 1;
  while ((body[at] as number) & 0x80) at++;
  at++;
  if (body[at] !== 0x0a) throw new Error("unexpected fixture layout");
  return { metadataLengthAt: at + 1 };
}

/** The envelope of a list body and the list it holds. */
function envelopeParts(body: Buffer) {
  const envelope = fromBinary(UnknownSchema, body.subarray(4));
  return { envelope, list: fromBinary(EncodedListSchema, envelope.raw) };
}

/** The encoded items of a list body. */
function listItems(body: Buffer): Uint8Array[] {
  return envelopeParts(body).list.items;
}

/** The body of `template` with its list's items replaced by `items`. */
function listBody(template: Buffer, items: Uint8Array[]): Buffer {
  const { envelope, list } = envelopeParts(template);
  list.items = items;
  envelope.raw = toBinary(EncodedListSchema, list);
  return Buffer.concat([template.subarray(0, 4), toBinary(UnknownSchema, envelope)]);
}

/** A pod as a list item, written as the API server would: only a few of its fields. */
function itemBytes(pod: KubeObject): Uint8Array {
  const meta = pod.metadata;
  // Spec and status are written even when empty, as Go does for structs.
  return toBinary(
    PodSchema,
    create(PodSchema, {
      metadata: {
        name: meta.name,
        namespace: meta.namespace ?? "",
        annotations: meta.annotations ?? {},
      },
      spec: {},
      status: {},
    }),
  );
}
