import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ListItems } from "./list-items.js";

/** Feeds `body` in chunks cut at `cuts`; returns the items and the rest. */
function read(body: string, cuts: readonly number[] = []) {
  const bytes = Buffer.from(body, "utf8");
  const list = new ListItems();
  const items: unknown[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    items.push(...list.push(bytes.subarray(from, cut)));
    from = cut;
  }
  items.push(...list.push(bytes.subarray(from)));
  return { items, rest: list.end() };
}

describe("ListItems", () => {
  it("hands out each item and parses the rest with items left empty", () => {
    const body = JSON.stringify({
      kind: "PodList",
      metadata: { resourceVersion: "12", continue: "abc" },
      items: [{ metadata: { name: "a" } }, { metadata: { name: "b", labels: { x: "[{]}" } } }],
    });
    expect(read(body)).toEqual({
      items: [{ metadata: { name: "a" } }, { metadata: { name: "b", labels: { x: "[{]}" } } }],
      rest: { kind: "PodList", metadata: { resourceVersion: "12", continue: "abc" }, items: [] },
    });
  });

  it("keeps items null, and nested arrays named items inside an item", () => {
    expect(read('{"metadata":{"resourceVersion":"1"},"items":null}')).toEqual({
      items: [],
      rest: { metadata: { resourceVersion: "1" }, items: null },
    });
    const nested = { spec: { items: [{ a: 1 }] } };
    expect(read(JSON.stringify({ items: [nested], metadata: {} })).items).toEqual([nested]);
  });

  it("leaves the fieldsV1 values of managedFields out, however the body is cut", () => {
    const managedFields = [
      {
        manager: "kubelet",
        operation: "Update",
        time: "2026-01-01T00:00:05Z",
        fieldsV1: { "f:status": { 'k:{"ip":"10.0.0.1"}': { ".": {} } } },
      },
      { manager: "x", operation: "Apply", fieldsV1: [1, [2]], subresource: "status" },
    ];
    const item = {
      metadata: { name: "a", managedFields },
      spec: { fieldsV1: { kept: true } },
    };
    const body = JSON.stringify({ metadata: { resourceVersion: "1" }, items: [item, item] });
    const expected = {
      metadata: {
        name: "a",
        managedFields: [
          { manager: "kubelet", operation: "Update", time: "2026-01-01T00:00:05Z", fieldsV1: {} },
          { manager: "x", operation: "Apply", fieldsV1: [], subresource: "status" },
        ],
      },
      spec: { fieldsV1: { kept: true } },
    };
    expect(read(body).items).toEqual([expected, expected]);
    // A chunk may end inside the key itself; that value is then kept whole, which is harmless.
    const emptied = (items: unknown[]) =>
      (items as (typeof item)[]).map((it) => ({
        ...it,
        metadata: {
          ...it.metadata,
          managedFields: it.metadata.managedFields.map((m) => ({
            ...m,
            fieldsV1: Array.isArray(m.fieldsV1) ? [] : {},
          })),
        },
      }));
    for (let cut = 0; cut <= body.length; cut++) {
      expect(emptied(read(body, [cut]).items)).toEqual([expected, expected]);
    }
  });

  it("throws on a body that ends early", () => {
    const list = new ListItems();
    list.push(Buffer.from('{"items":[{"a":'));
    expect(() => list.end()).toThrow(/ended early/);
  });

  it("gives what JSON.parse gives, however the body is cut", () => {
    const value = fc.record({
      metadata: fc.record({ resourceVersion: fc.string() }),
      items: fc.array(
        fc.record({ metadata: fc.record({ name: fc.string() }), spec: fc.jsonValue() }),
      ),
      kind: fc.string({ unit: "binary" }),
    });
    fc.assert(
      fc.property(value, fc.array(fc.nat()), (v, cutsRaw) => {
        const body = JSON.stringify(v, null, cutsRaw.length % 2 === 0 ? undefined : 1);
        const size = Buffer.byteLength(body);
        const cuts = cutsRaw.map((c) => c % (size + 1));
        const { items, rest } = read(body, cuts);
        const whole = JSON.parse(body) as typeof v;
        expect(items).toEqual(whole.items);
        expect(rest).toEqual({ ...whole, items: [] });
      }),
    );
  });
});
