import { create, tcpAddressFromString, type Update, UpdateSchema } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { GetSubscriptions, witnessedSink } from "./held-subscriptions.js";

const WEB = {
  service: { namespace: "shop", name: "web" },
  port: 8080,
  key: { hostname: "", nodeName: "node-a", enableEndpointFiltering: true },
  zone: "",
  authority: "web.shop.svc.cluster.local:8080",
};

const add = (address: string): Update =>
  create(UpdateSchema, {
    update: {
      case: "add",
      value: { addrs: [{ addr: tcpAddressFromString(address), weight: 10_000 }] },
    },
  });

describe("GetSubscriptions", () => {
  it("makes the first stream of a subscription its witness, and only that one", () => {
    const subscriptions = new GetSubscriptions();
    const first = subscriptions.hold(WEB);
    const second = subscriptions.hold(WEB);
    expect(first.witness).toBeDefined();
    expect(second.witness).toBeUndefined();
    expect(subscriptions.witnessOf(WEB)).toBe(first.witness);
    // Another node is another subscription, with a witness of its own.
    const elsewhere = subscriptions.hold({ ...WEB, key: { ...WEB.key, nodeName: "node-b" } });
    expect(elsewhere.witness).toBeDefined();
    expect(subscriptions.list().map((s) => s.streams)).toEqual([2, 1]);
  });

  it("has no witness once it leaves, until a stream joins", () => {
    const subscriptions = new GetSubscriptions();
    const first = subscriptions.hold(WEB);
    const second = subscriptions.hold(WEB);
    first.release();
    first.release();
    // The stream still open did not fold its first messages: it cannot witness.
    expect(subscriptions.witnessOf(WEB)).toBeUndefined();
    expect(subscriptions.list().map((s) => s.streams)).toEqual([1]);
    const third = subscriptions.hold(WEB);
    expect(third.witness).toBeDefined();
    second.release();
    expect(subscriptions.witnessOf(WEB)).toBe(third.witness);
    third.release();
    expect(subscriptions.has(WEB)).toBe(false);
  });
});

describe("witnessedSink", () => {
  it("folds what the stream's queue accepted, not what it refused", () => {
    const subscriptions = new GetSubscriptions();
    const { witness } = subscriptions.hold(WEB);
    if (witness === undefined) throw new Error("the first stream witnesses");
    let accepting = true;
    const sent: Update[] = [];
    const sink = witnessedSink(
      {
        send: (u) => {
          if (accepting) sent.push(u);
          return accepting;
        },
      },
      witness,
    );
    expect(sink.send(add("10.0.0.1:8080"))).toBe(true);
    accepting = false;
    expect(sink.send(add("10.0.0.2:8080"))).toBe(false);
    expect(sent).toHaveLength(1);
    expect(witness.addresses()).toEqual(["10.0.0.1:8080"]);
  });
});
