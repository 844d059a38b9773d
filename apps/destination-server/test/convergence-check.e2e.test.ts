import { MemoryCluster } from "@destination/k8s-discovery";
import { EndpointView } from "@destination/proto";
import {
  CLUSTER_POD,
  clusterBasics,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { checkConvergence, type ObservedStream } from "@destination/test-support/convergence";
import { connect, get } from "@destination/test-support/streams";
import { afterEach, describe, expect, it } from "vitest";
import {
  createServerLogger,
  type RunningDestinationServer,
  startDestinationServer,
} from "../src/index.js";

const objects = [
  ...clusterBasics(),
  service("cart", {
    namespace: "shop",
    ports: [{ port: 8080, protocol: "TCP" }],
    clusterIP: "10.96.3.10",
  }),
  service("empty", {
    namespace: "shop",
    ports: [{ port: 8080, protocol: "TCP" }],
    clusterIP: "10.96.3.11",
  }),
  replicaSet("cart-6d8f", "cart", { namespace: "shop" }),
  ...["10.244.3.1", "10.244.3.2"].map((ip, i) =>
    pod(`cart-6d8f-${i}`, {
      ...CLUSTER_POD,
      namespace: "shop",
      ip,
      labels: { "pod-template-hash": "6d8f" },
      replicaSet: "cart-6d8f",
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
  ),
  slice(
    "cart-1",
    "cart",
    [
      podEndpoint("cart-6d8f-0", "10.244.3.1", { namespace: "shop" }),
      podEndpoint("cart-6d8f-1", "10.244.3.2", { namespace: "shop" }),
    ],
    { namespace: "shop", ports: [{ port: 8080, protocol: "TCP" }] },
  ),
];
const CART = "cart.shop.svc.cluster.local:8080";
const EMPTY = "empty.shop.svc.cluster.local:8080";

let server: RunningDestinationServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What a server on `objects` tells a Get stream on each path, folded once it has answered. */
async function observed(paths: string[]): Promise<ObservedStream[]> {
  const cluster = new MemoryCluster();
  for (const obj of objects) cluster.apply(obj);
  server = await startDestinationServer({
    cluster,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    logger: createServerLogger({ level: "error" }),
  });
  const client = connect(server.grpcPort);
  const cart = get(client, CART);
  await cart.next();
  const empty = get(client, EMPTY);
  const views = new Map([
    [CART, cart],
    [EMPTY, empty],
  ]);
  const out = paths.map((path) => {
    const view = new EndpointView();
    for (const message of views.get(path)?.received ?? []) view.apply(message);
    return { path, view };
  });
  client.close();
  return out;
}

describe("checkConvergence", () => {
  it("finds nothing amiss in streams that hold what the objects imply", async () => {
    const report = await checkConvergence(await observed([CART, EMPTY]), objects);
    expect(report).toEqual({ streams: 2, missing: [], extra: [], stale: [] });
  });

  it("reports every endpoint a stream has not been told as missing", async () => {
    const report = await checkConvergence(
      [
        { path: CART, view: new EndpointView() },
        { path: EMPTY, view: new EndpointView() },
      ],
      objects,
    );
    expect(report.missing.map((d) => `${d.path} ${d.address}`)).toEqual([
      `${CART} 10.244.3.1:8080`,
      `${CART} 10.244.3.2:8080`,
    ]);
    expect(report.extra).toEqual([]);
  });

  it("reports endpoints the objects no longer imply as extra", async () => {
    const [cart] = await observed([CART]);
    const report = await checkConvergence(
      [{ path: EMPTY, view: (cart as ObservedStream).view }],
      objects,
    );
    expect(report.extra.map((d) => d.address)).toEqual(["10.244.3.1:8080", "10.244.3.2:8080"]);
  });
});
