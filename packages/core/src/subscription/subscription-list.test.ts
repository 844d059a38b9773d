import { describe, expect, it } from "vitest";
import { SubscriptionList } from "./subscription-list.js";

const listenersOf = <L>(list: SubscriptionList<L>) => [...list].map((s) => s.listener);

describe("SubscriptionList", () => {
  it("keeps registrations in the order they joined", () => {
    const list = new SubscriptionList<string>();
    for (const l of ["a", "b", "c"]) list.add(l);
    list.remove("b");
    list.add("b");
    expect(listenersOf(list)).toEqual(["a", "c", "b"]);
    expect(list.size).toBe(3);
  });

  it("ends the oldest registration of a listener registered twice", () => {
    const list = new SubscriptionList<string>();
    const first = list.add("a");
    list.add("b");
    const second = list.add("a");
    expect(list.remove("a")).toBe(first);
    expect(first.active).toBe(false);
    expect(second.active).toBe(true);
    expect(listenersOf(list)).toEqual(["b", "a"]);
    expect(list.remove("a")).toBe(second);
    expect(list.remove("a")).toBeUndefined();
    expect(listenersOf(list)).toEqual(["b"]);
  });

  it("deletes one registration by identity, once", () => {
    const list = new SubscriptionList<string>();
    const first = list.add("a");
    const second = list.add("a");
    list.delete(second);
    list.delete(second);
    expect(second.active).toBe(false);
    expect(list.size).toBe(1);
    expect(list.remove("a")).toBe(first);
    expect(list.size).toBe(0);
  });

  it("answers undefined for a listener that never registered", () => {
    const list = new SubscriptionList<string>();
    list.add("a");
    expect(list.remove("z")).toBeUndefined();
    expect(list.size).toBe(1);
  });
});
