import {
  clone,
  create,
  tcpAddressFromString,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addUpdate,
  meshedPod,
  opaquePod,
  removeUpdate,
} from "../../test/support/sample-messages.js";
import { EndpointSet, type EndpointSetView, endpointKey } from "./endpoint-set.js";

const at = (text: string, pod = text): WeightedAddr =>
  create(WeightedAddrSchema, {
    addr: tcpAddressFromString(text),
    weight: 10000,
    metricLabels: { pod },
  });

const summary = (view: EndpointSetView) =>
  view.rows.map((row) => `${row.mark} ${endpointKey(row.endpoint.addr)}`);

describe("EndpointSet", () => {
  it("adds, then shows a removed row once before dropping it", () => {
    const set = new EndpointSet();
    const first = set.apply(addUpdate([meshedPod, opaquePod]));
    expect(summary(first)).toEqual(["added 10.244.0.9:3306", "added 10.244.0.12:8080"]);
    expect(first.setLabels).toEqual({ namespace: "emojivoto", service: "web-svc" });

    const second = set.apply(removeUpdate(opaquePod));
    expect(summary(second)).toEqual(["removed 10.244.0.9:3306", "unchanged 10.244.0.12:8080"]);
    expect(second.rows[0]?.endpoint).toBe(opaquePod); // the full row, labels and all
    expect([second.size, second.added, second.changed, second.removed]).toEqual([1, 0, 0, 1]);

    expect(summary(set.view())).toEqual(summary(second)); // viewing again changes nothing
    expect(summary(set.apply(addUpdate([at("10.0.0.1:80")])))).toEqual([
      "added 10.0.0.1:80",
      "unchanged 10.244.0.12:8080",
    ]);
  });

  it("treats an add of a known address as an in-place update, marked changed only if it differs", () => {
    const set = new EndpointSet();
    set.apply(addUpdate([meshedPod]));
    expect(summary(set.apply(addUpdate([clone(WeightedAddrSchema, meshedPod)])))).toEqual([
      "unchanged 10.244.0.12:8080",
    ]);
    const opaqueNow = clone(WeightedAddrSchema, meshedPod);
    opaqueNow.protocolHint = {
      ...opaqueNow.protocolHint,
      protocol: { case: "opaque", value: {} },
    } as never;
    const view = set.apply(addUpdate([opaqueNow]));
    expect(summary(view)).toEqual(["changed 10.244.0.12:8080"]);
    expect(view.rows[0]?.endpoint).toBe(opaqueNow);
  });

  it("shows a remove of an address it never had, as a proxy would receive it", () => {
    const set = new EndpointSet();
    const view = set.apply(removeUpdate(at("10.0.0.1:80")));
    expect(summary(view)).toEqual(["removed 10.0.0.1:80"]);
    expect(view.size).toBe(0);
  });

  it("clears everything on no_endpoints", () => {
    const set = new EndpointSet();
    set.apply(addUpdate([at("10.0.0.1:80"), at("10.0.0.2:80")]));
    const view = set.apply(
      create(UpdateSchema, { update: { case: "noEndpoints", value: { exists: true } } }),
    );
    expect(summary(view)).toEqual(["removed 10.0.0.1:80", "removed 10.0.0.2:80"]);
    expect(view.size).toBe(0);
  });

  it("orders rows numerically: IPv4 before IPv6, then address, then port", () => {
    const set = new EndpointSet();
    const view = set.apply(
      addUpdate([
        at("[2001:db8::1]:80"),
        at("10.0.0.10:80"),
        at("10.0.0.2:9090"),
        at("10.0.0.2:80"),
      ]),
    );
    expect(summary(view)).toEqual([
      "added 10.0.0.2:80",
      "added 10.0.0.2:9090",
      "added 10.0.0.10:80",
      "added [2001:db8::1]:80",
    ]);
  });

  it("holds exactly the addresses a proxy would after any add/remove sequence", () => {
    const address = fc.constantFrom("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80", "10.0.0.3:81");
    const step = fc.record({ add: fc.boolean(), addrs: fc.uniqueArray(address, { maxLength: 4 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 20 }), (steps) => {
        const set = new EndpointSet();
        const model = new Set<string>();
        for (const { add, addrs } of steps) {
          const endpoints = addrs.map((a) => at(a));
          const view = set.apply(add ? addUpdate(endpoints) : removeUpdate(...endpoints));
          for (const a of addrs) add ? model.add(a) : model.delete(a);
          const current = view.rows
            .filter((row) => row.mark !== "removed")
            .map((row) => endpointKey(row.endpoint.addr));
          expect(new Set(current)).toEqual(model);
          expect(view.size).toBe(model.size);
          if (!add) expect(view.removed).toBe(addrs.length);
        }
      }),
    );
  });
});
