import { externalWorkload, NS, server } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, setup } from "../test/support/fixtures.js";

const IP = "192.168.1.10";

async function subscribedToVm() {
  const env = await setup();
  env.cluster.apply(server("vm-http", { port: 8080, externalWorkloadSelector: { app: "vm" } }));
  env.cluster.apply(
    externalWorkload("vm-1", { ip: IP, owner: { kind: "VirtualMachineSet", name: "vms" } }),
  );
  const listener = new RecordingListener();
  await env.watcher.subscribe({ ip: IP, port: 8080 }, listener);
  return { ...env, listener };
}

describe("ExternalWorkload events", () => {
  it("every event notifies, even one that changes nothing observable", async () => {
    const { cluster, listener } = await subscribedToVm();
    cluster.apply(
      externalWorkload("vm-1", { ip: IP, owner: { kind: "VirtualMachineSet", name: "vms" } }),
    );
    cluster.resync();
    const sent = {
      ip: IP,
      port: 8080,
      pod: null,
      ew: "vm-1",
      owner: "VirtualMachineSet/vms",
      opaque: true,
    };
    expect(listener.views).toEqual([sent, sent, sent]);
  });

  it("the update that only marks the ExternalWorkload for deletion is ignored", async () => {
    const { cluster, listener } = await subscribedToVm();
    const marked = externalWorkload("vm-1", {
      ip: IP,
      owner: { kind: "VirtualMachineSet", name: "vms" },
    });
    marked.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    cluster.apply(marked);
    expect(listener.views).toHaveLength(1);
  });

  it("the Server flag is recomputed on every ExternalWorkload event and can turn off", async () => {
    const { cluster, listener } = await subscribedToVm();
    cluster.apply(externalWorkload("vm-1", { ip: IP, labels: { app: "legacy" } }));
    cluster.apply(externalWorkload("vm-1", { ip: IP, labels: { app: "vm" } }));
    expect(listener.views.map((v) => v.opaque)).toEqual([true, false, true]);
  });

  it("deleting the ExternalWorkload clears its workload, owner and Server flag", async () => {
    const { cluster, listener } = await subscribedToVm();
    cluster.delete("ExternalWorkload", NS, "vm-1");
    expect(listener.views).toEqual([
      { ip: IP, port: 8080, pod: null, ew: "vm-1", owner: "VirtualMachineSet/vms", opaque: true },
      { ip: IP, port: 8080, pod: null, ew: null, owner: "", opaque: false },
    ]);
  });

  it("an ExternalWorkload that loses its single owner reference loses its owner", async () => {
    const { cluster, listener } = await subscribedToVm();
    cluster.apply(externalWorkload("vm-1", { ip: IP }));
    expect(listener.views.map((v) => v.owner)).toEqual(["VirtualMachineSet/vms", ""]);
  });

  it("an ExternalWorkload created after the subscription attaches on its add", async () => {
    const { cluster, watcher } = await setup();
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: IP, port: 8080 }, listener);
    cluster.apply(externalWorkload("vm-1", { ip: IP, ports: [{ port: 8080 }, { port: 9090 }] }));
    expect(listener.views.map((v) => v.ew)).toEqual([null, "vm-1"]);
  });
});
