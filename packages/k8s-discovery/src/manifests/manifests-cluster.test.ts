import { mkdir, mkdtemp, rename, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock, Logger, Pod } from "@destination/core";
import { EventRecorder } from "@destination/test-support/backend-suite";
import { ManualClock } from "@destination/test-support/manual-clock";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import { type ClusterMetrics, clusterMetrics } from "../cluster-metrics.js";
import { createManifestsCluster, type ManifestsCluster } from "./manifests-cluster.js";
import { removeManifest, writeManifest } from "./manifests-test-files.js";

interface LogLine {
  level: keyof Logger;
  message: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(): Logger & { lines: LogLine[]; at(level: keyof Logger): string[] } {
  const lines: LogLine[] = [];
  const log = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields ? { fields } : {}) });
  return {
    lines,
    at: (level) => lines.filter((l) => l.level === level).map((l) => l.message),
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
}

const DEBOUNCE_MS = 50;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "manifests-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function started(
  dir: string,
  options: {
    debounceMs?: number;
    watch?: boolean;
    resyncMs?: number;
    metrics?: ClusterMetrics;
    clock?: Clock;
  } = {},
): Promise<{
  cluster: ManifestsCluster;
  events: EventRecorder;
  logger: ReturnType<typeof recordingLogger>;
}> {
  const logger = recordingLogger();
  const cluster = createManifestsCluster({
    dir,
    logger,
    debounceMs: options.debounceMs ?? DEBOUNCE_MS,
    resyncMs: options.resyncMs ?? 0,
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  cleanup.push(() => cluster.stop());
  const events = new EventRecorder();
  events.attach(cluster);
  await cluster.start();
  await cluster.whenSynced();
  return { cluster, events, logger };
}

let markers = 0;
/**
 * Proves that nothing more comes of the changes made so far: writes a marker manifest and waits
 * for its object. Re-reads run one after another and each reads the whole folder, so by then any
 * re-read still pending (a debounce, an emptiness to confirm) has happened. `lines` leaves the
 * markers out.
 */
async function settle(dir: string, events: EventRecorder): Promise<void> {
  const name = `${MARKER}${++markers}`;
  await writeManifest(dir, `${name}.yaml`, podYaml(name, "10.255.0.1"));
  await eventually(() =>
    expect(events.events.map((e) => `${e.type} ${e.key}`)).toContain(`add shop/${name}`),
  );
}
const MARKER = "settled-marker-";

const podYaml = (name: string, ip: string, extra = "") =>
  `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: shop
  labels: {app: web}${extra}
status:
  phase: Running
  podIP: ${ip}
`;
const serviceYaml = (name: string, ip: string) =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: shop}\nspec: {clusterIP: ${ip}, ports: [{port: 80}]}\n`;
const lines = (events: EventRecorder, from = 0) =>
  events.events
    .slice(from)
    .filter((e) => !e.key.startsWith(`shop/${MARKER}`))
    .map((e) => `${e.type} ${e.kind} ${e.key}`);

describe("manifests backend: loading", () => {
  it("loads multi-document files, Lists and JSON, recursively, skipping editor droppings", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, "web.yaml"),
      `${serviceYaml("web", "10.96.0.10")}---\n${podYaml("web-1", "10.0.0.1")}`,
    );
    await mkdir(join(dir, "nested", "deeper"), { recursive: true });
    await writeFile(
      join(dir, "nested", "list.yml"),
      `apiVersion: v1\nkind: List\nitems:\n- ${JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "web-2", namespace: "shop" } })}\n- ${JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" } })}\n`,
    );
    await writeFile(
      join(dir, "nested", "deeper", "pods.json"),
      JSON.stringify({
        apiVersion: "v1",
        kind: "PodList",
        items: [{ metadata: { name: "web-3", namespace: "shop" } }],
      }),
    );
    for (const dropping of [".web.yaml.swp", "web.yaml~", ".#web.yaml", "4913", "notes.txt"]) {
      await writeFile(join(dir, dropping), podYaml("not-me", "10.9.9.9"));
    }
    const { cluster, events, logger } = await started(dir);
    expect(lines(events).sort()).toEqual([
      "add Pod shop/web-1",
      "add Pod shop/web-2",
      "add Pod shop/web-3",
      "add Service shop/web",
    ]);
    expect(cluster.hasSynced()).toBe(true);
    expect(cluster.indexes.podsByIp("10.0.0.1").map((p) => p.metadata.name)).toEqual(["web-1"]);
    expect(logger.at("warn")).toEqual([]);
    expect(logger.at("debug").join("\n")).toMatch(
      /ignoring apps\/v1 Deployment web in nested\/list.yml/,
    );
  });

  it("assigns a resourceVersion and uid to every object, and keeps them for unchanged objects", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "pods.yaml",
      `${podYaml("a", "10.0.0.1")}---\n${podYaml("b", "10.0.0.2")}`,
    );
    const { cluster, events } = await started(dir);
    const before = cluster.pods.get("shop", "a");
    expect(before?.metadata.resourceVersion).toBeTruthy();
    expect(before?.metadata.uid).toBeTruthy();
    const from = events.events.length;
    await writeManifest(
      dir,
      "pods.yaml",
      `${podYaml("a", "10.0.0.1")}---\n${podYaml("b", "10.0.0.3")}`,
    );
    await eventually(() => expect(lines(events, from)).toEqual(["update Pod shop/b"]));
    await settle(dir, events);
    expect(lines(events, from)).toEqual(["update Pod shop/b"]);
    expect(cluster.pods.get("shop", "a")).toBe(before);
    const b = events.last("update", "Pod", "shop/b");
    expect(b?.object.metadata.uid).toBe(b?.old?.metadata.uid);
    expect(b?.object.metadata.resourceVersion).not.toBe(b?.old?.metadata.resourceVersion);
  });

  it("fails to start on a folder that cannot be read", async () => {
    const dir = await tempDir();
    const cluster = createManifestsCluster({ dir: join(dir, "missing"), resyncMs: 0 });
    await expect(cluster.start()).rejects.toThrow(/cannot read the manifests folder .*missing/);
    expect(cluster.hasSynced()).toBe(false);
  });
});

describe("manifests backend: following edits", () => {
  it("emits events in file order within a kind, and referenced kinds first, when several objects change", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "a.yaml",
      `${podYaml("z", "10.0.0.1")}---\n${serviceYaml("m", "10.96.0.1")}---\n${podYaml("a", "10.0.0.2")}`,
    );
    const { events } = await started(dir);
    const from = events.events.length;
    await writeManifest(
      dir,
      "a.yaml",
      `${podYaml("z", "10.0.1.1")}---\n${serviceYaml("m", "10.96.1.1")}---\n${podYaml("a", "10.0.1.2")}`,
    );
    await eventually(() => expect(lines(events, from)).toHaveLength(3));
    // Pods reach the caches before the Service that may select them; each kind keeps file order.
    expect(lines(events, from)).toEqual([
      "update Pod shop/z",
      "update Pod shop/a",
      "update Service shop/m",
    ]);
    await rm(join(dir, "a.yaml"));
    await eventually(() => expect(lines(events, from + 3)).toHaveLength(3));
    // Deletions go the other way round: the Service before the pods.
    expect(lines(events, from + 3)).toEqual([
      "delete Service shop/m",
      "delete Pod shop/z",
      "delete Pod shop/a",
    ]);
  });

  it("turns an editor's save through a temp file and a rename into one update", async () => {
    const dir = await tempDir();
    await writeManifest(dir, "web.yaml", podYaml("web-1", "10.0.0.1"));
    const { events } = await started(dir);
    const from = events.events.length;
    await writeFile(join(dir, ".web.yaml.swp"), "swap");
    await writeFile(join(dir, "web.yaml.tmp~"), podYaml("web-1", "10.0.0.2"));
    await rename(join(dir, "web.yaml.tmp~"), join(dir, "web.yaml"));
    await rm(join(dir, ".web.yaml.swp"));
    await eventually(() => expect(lines(events, from)).toEqual(["update Pod shop/web-1"]));
    await settle(dir, events);
    expect(lines(events, from)).toEqual(["update Pod shop/web-1"]);
  });

  it("turns a save that truncates, then writes in two steps, into one update", async () => {
    const dir = await tempDir();
    const path = join(dir, "web.yaml");
    await writeFile(path, podYaml("web-1", "10.0.0.1"));
    const clock = new ManualClock();
    const { cluster, events } = await started(dir, { clock });
    const from = events.events.length;
    const text = podYaml("web-1", "10.0.0.2");
    await truncate(path, 0);
    clock.advance(DEBOUNCE_MS / 5);
    await writeFile(path, text.slice(0, 40));
    clock.advance(DEBOUNCE_MS / 5);
    await writeFile(path, text);
    // The file events set the debounce timer; once it fires, the re-read runs, and reload()
    // resolves after it (and one more read).
    await eventually(() => expect(clock.pendingTimers).toBe(1));
    clock.advance(DEBOUNCE_MS * 10);
    await cluster.reload();
    expect(lines(events, from)).toEqual(["update Pod shop/web-1"]);
  });

  it("keeps objects while a save leaves the file empty for a moment (backup-and-rewrite editors)", async () => {
    const dir = await tempDir();
    const path = join(dir, "web.yaml");
    await writeFile(path, podYaml("web-1", "10.0.0.1"));
    const clock = new ManualClock();
    const { cluster, events } = await started(dir, { clock });
    const from = events.events.length;
    // Past the debounce, but back before the emptiness is confirmed a debounce later.
    await rename(path, `${path}~`);
    await writeFile(path, "");
    await eventually(() => expect(clock.pendingTimers).toBe(1));
    clock.advance(DEBOUNCE_MS);
    await cluster.reload(); // the re-read that found the file empty has finished
    expect(lines(events, from)).toEqual([]);
    clock.advance(DEBOUNCE_MS / 2);
    await writeFile(path, podYaml("web-1", "10.0.0.2"));
    await rm(`${path}~`);
    await cluster.reload();
    expect(lines(events, from)).toEqual(["update Pod shop/web-1"]);
    // The emptiness confirmation and any debounce left fire; their re-reads change nothing.
    clock.advance(DEBOUNCE_MS * 10);
    await cluster.reload();
    expect(lines(events, from)).toEqual(["update Pod shop/web-1"]);
  });

  it("deletes the objects of a file that stays empty", async () => {
    const dir = await tempDir();
    const path = join(dir, "web.yaml");
    await writeFile(path, `${podYaml("web-1", "10.0.0.1")}---\n${podYaml("web-2", "10.0.0.2")}`);
    const { cluster, events } = await started(dir);
    const from = events.events.length;
    await truncate(path, 0);
    await eventually(() =>
      expect(lines(events, from)).toEqual(["delete Pod shop/web-1", "delete Pod shop/web-2"]),
    );
    expect(cluster.pods.size).toBe(0);
  });

  it("deletes every object of a deleted file, carrying the last known object", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "web.yaml",
      `${serviceYaml("web", "10.96.0.10")}---\n${podYaml("web-1", "10.0.0.1")}`,
    );
    await writeManifest(dir, "other.yaml", podYaml("other", "10.0.0.9"));
    const { cluster, events } = await started(dir);
    const from = events.events.length;
    await removeManifest(dir, "web.yaml");
    await eventually(() =>
      expect(lines(events, from)).toEqual(["delete Service shop/web", "delete Pod shop/web-1"]),
    );
    expect(
      (events.last("delete", "Pod", "shop/web-1")?.object as Pod | undefined)?.status?.podIP,
    ).toBe("10.0.0.1");
    expect(cluster.pods.get("shop", "other")).toBeDefined();
  });

  it("loads files added in a new folder, and files added next to others", async () => {
    const dir = await tempDir();
    const { cluster, events } = await started(dir);
    await mkdir(join(dir, "team", "a"), { recursive: true });
    await writeFile(join(dir, "team", "a", "web.yaml"), podYaml("web-1", "10.0.0.1"));
    await writeManifest(dir, "top.yaml", podYaml("top", "10.0.0.2"));
    await eventually(() =>
      expect(lines(events).sort()).toEqual(["add Pod shop/top", "add Pod shop/web-1"]),
    );
    await writeFile(
      join(dir, "team", "a", "more.json"),
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "more", namespace: "shop" },
      }),
    );
    await eventually(() => expect(cluster.pods.get("shop", "more")).toBeDefined());
  });

  it("follows renamed files and folders, and a folder deleted and made again", async () => {
    const dir = await tempDir();
    await writeManifest(dir, "team/a/web.yaml", podYaml("web-1", "10.0.0.1"));
    await writeManifest(dir, "top.yaml", podYaml("top", "10.0.0.2"));
    const { cluster, events } = await started(dir);
    const from = events.events.length;
    // A rename moves the definitions; the objects stay as they were.
    await rename(join(dir, "top.yaml"), join(dir, "moved.yaml"));
    await rename(join(dir, "team"), join(dir, "crew"));
    await settle(dir, events);
    expect(lines(events, from)).toEqual([]);
    // The renamed folder is watched under its new name.
    await writeManifest(dir, "crew/a/web.yaml", podYaml("web-1", "10.0.1.1"));
    await eventually(() => expect(lines(events, from)).toEqual(["update Pod shop/web-1"]));
    await rm(join(dir, "crew"), { recursive: true });
    await eventually(() =>
      expect(lines(events, from)).toEqual(["update Pod shop/web-1", "delete Pod shop/web-1"]),
    );
    await mkdir(join(dir, "crew", "a"), { recursive: true });
    await writeFile(join(dir, "crew", "a", "web.yaml"), podYaml("web-1", "10.0.2.1"));
    await eventually(() =>
      expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.2.1"),
    );
    expect(lines(events, from)).toEqual([
      "update Pod shop/web-1",
      "delete Pod shop/web-1",
      "add Pod shop/web-1",
    ]);
    expect(cluster.pods.get("shop", "top")).toBeDefined();
  });

  it("follows a ConfigMap-style volume whose data folder is swapped by a symbolic link", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "..v1"));
    await writeFile(join(dir, "..v1", "web.yaml"), podYaml("web-1", "10.0.0.1"));
    await symlink("..v1", join(dir, "..data"));
    await symlink(join("..data", "web.yaml"), join(dir, "web.yaml"));
    const { events } = await started(dir);
    expect(lines(events)).toEqual(["add Pod shop/web-1"]);
    await mkdir(join(dir, "..v2"));
    await writeFile(join(dir, "..v2", "web.yaml"), podYaml("web-1", "10.0.0.2"));
    await symlink("..v2", join(dir, "..data_tmp"));
    await rename(join(dir, "..data_tmp"), join(dir, "..data"));
    await eventually(() =>
      expect(lines(events)).toEqual(["add Pod shop/web-1", "update Pod shop/web-1"]),
    );
  });

  it("follows changes within a second with the default debounce", async () => {
    const dir = await tempDir();
    await writeManifest(dir, "web.yaml", podYaml("web-1", "10.0.0.1"));
    const { cluster } = await started(dir, { debounceMs: 100 });
    const started_ = Date.now();
    await writeManifest(dir, "web.yaml", podYaml("web-1", "10.0.0.2"));
    await eventually(() =>
      expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.2"),
    );
    expect(Date.now() - started_).toBeLessThan(1000);
    const deleting = Date.now();
    await removeManifest(dir, "web.yaml");
    await eventually(() => expect(cluster.pods.size).toBe(0));
    expect(Date.now() - deleting).toBeLessThan(1000);
  });

  it("observes an edit that moves the Update time once in its kind's lag histogram; resyncs add nothing", async () => {
    const dir = await tempDir();
    const written = (ip: string, time: string) =>
      `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
  managedFields: [{manager: kubectl, operation: Update, time: "${time}"}]
spec: {clusterIP: ${ip}, ports: [{port: 80}]}
`;
    await writeManifest(dir, "svc.yaml", written("10.96.0.1", "2026-01-01T00:00:00Z"));
    const registry = new InMemoryMetrics();
    const clock = new ManualClock();
    const { cluster, events } = await started(dir, {
      resyncMs: 20,
      metrics: clusterMetrics(registry, "local"),
      clock,
    });
    const resyncs = () => events.events.filter((e) => e.type === "update" && e.old === e.object);
    clock.advance(20);
    await eventually(() => expect(resyncs().length).toBeGreaterThanOrEqual(1));
    expect(registry.value("services_informer_lag_seconds_count")).toBeUndefined();
    await writeManifest(dir, "svc.yaml", written("10.96.0.2", "2026-01-01T00:00:05Z"));
    // The write's file events set the debounce timer beside the resync's.
    await eventually(() => expect(clock.pendingTimers).toBe(2));
    clock.advance(DEBOUNCE_MS);
    await eventually(() =>
      expect(cluster.services.get("shop", "web")?.spec?.clusterIP).toBe("10.96.0.2"),
    );
    const seen = resyncs().length;
    clock.advance(40);
    await eventually(() => expect(resyncs().length).toBeGreaterThanOrEqual(seen + 2));
    expect(registry.value("services_informer_lag_seconds_count")).toBe(1);
  });

  it("picks up changes only on reload() when not watching", async () => {
    const dir = await tempDir();
    await writeManifest(dir, "web.yaml", podYaml("web-1", "10.0.0.1"));
    const clock = new ManualClock();
    const { cluster, events } = await started(dir, { watch: false, clock });
    await writeManifest(dir, "web.yaml", podYaml("web-1", "10.0.0.2"));
    // Nothing watches the folder, and no timer is set that could re-read it, however late.
    expect(clock.pendingTimers).toBe(0);
    clock.advance(60_000);
    expect(lines(events)).toEqual(["add Pod shop/web-1"]);
    await cluster.reload();
    expect(lines(events)).toEqual(["add Pod shop/web-1", "update Pod shop/web-1"]);
  });

  it("emits nothing after stop()", async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const { cluster, events } = await started(dir, { clock });
    await cluster.stop();
    // A second cluster on the folder is the marker: the process gets file events for all its
    // watches at once, so once it has seen the write, a watch left open by the first would have
    // set a debounce timer.
    const witness = await started(dir);
    await writeManifest(dir, "web.yaml", podYaml("web-1", "10.0.0.1"));
    await eventually(() => expect(lines(witness.events)).toEqual(["add Pod shop/web-1"]));
    expect(clock.pendingTimers).toBe(0);
    clock.advance(60_000);
    expect(events.events).toEqual([]);
  });
});

describe("manifests backend: bad input", () => {
  it("reports a broken file once with its name, document and reason, keeps its objects, and reloads it when fixed", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "web.yaml",
      `${serviceYaml("web", "10.96.0.10")}---\n${podYaml("web-1", "10.0.0.1")}`,
    );
    await writeManifest(dir, "other.yaml", podYaml("other", "10.0.0.9"));
    const { cluster, events, logger } = await started(dir);
    const from = events.events.length;
    await writeManifest(
      dir,
      "web.yaml",
      `${serviceYaml("web", "10.96.0.10")}---\nkind: Pod\nmetadata: {name: [web-1\n`,
    );
    await eventually(() => expect(logger.at("warn")).toHaveLength(1));
    const [warning] = logger.lines.filter((l) => l.level === "warn");
    expect(warning?.message).toMatch(
      /^manifest file web\.yaml does not parse \(document 2: .*line \d+.*\); keeping its last 2 good object\(s\)$/,
    );
    expect(warning?.fields).toMatchObject({ file: "web.yaml", document: 2 });
    // Other files still follow changes, and the broken one is not reported again.
    await writeManifest(dir, "other.yaml", podYaml("other", "10.0.0.8"));
    await eventually(() => expect(lines(events, from)).toEqual(["update Pod shop/other"]));
    await settle(dir, events);
    expect(logger.at("warn")).toHaveLength(1);
    expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.1");
    await writeManifest(
      dir,
      "web.yaml",
      `${serviceYaml("web", "10.96.0.10")}---\n${podYaml("web-1", "10.0.0.5")}`,
    );
    await eventually(() =>
      expect(lines(events, from)).toEqual(["update Pod shop/other", "update Pod shop/web-1"]),
    );
    expect(logger.at("info")).toEqual(["manifest file web.yaml loads again"]);
  });

  it("skips objects without apiVersion, kind or name, reporting each, and loads the rest", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "mixed.yaml",
      `kind: Pod\nmetadata: {name: x}\n---\n${podYaml("good", "10.0.0.1")}---\napiVersion: v1\nkind: Pod\nmetadata: {labels: {a: b}}\n`,
    );
    const { cluster, logger } = await started(dir);
    expect(cluster.pods.list().map((p) => p.metadata.name)).toEqual(["good"]);
    expect(logger.at("warn")).toEqual([
      "skipping an object in mixed.yaml (document 1): missing apiVersion",
      "skipping an object in mixed.yaml (document 3): missing metadata.name",
    ]);
  });

  it("skips objects of a cached kind whose fields have the wrong type, naming the field", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "typed.yaml",
      `${serviceYaml("web", "10.96.0.1")}---\napiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec: {ports: [{port: "5432"}]}\n---\n${podYaml("p", "10.0.0.1", "\n  annotations: {a: [1]}")}`,
    );
    const { cluster, logger } = await started(dir);
    expect(cluster.services.list().map((s) => s.metadata.name)).toEqual(["web"]);
    expect(cluster.pods.list()).toEqual([]);
    expect(logger.at("warn")).toEqual([
      'skipping an object in typed.yaml (document 2): invalid Service shop/db: spec.ports[0].port: expected number, got "5432"',
      "skipping an object in typed.yaml (document 3): invalid Pod shop/p: metadata.annotations.a: expected string, got Array",
    ]);
  });

  it("loads nothing from a new file that does not parse, and all of it once it does", async () => {
    const dir = await tempDir();
    await writeManifest(
      dir,
      "new.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop\n",
    );
    const { cluster, events, logger } = await started(dir);
    expect(cluster.pods.size).toBe(0);
    expect(logger.at("warn")[0]).toMatch(
      /new\.yaml does not parse \(document 1: .*\); nothing loaded from it/,
    );
    await writeManifest(dir, "new.yaml", podYaml("a", "10.0.0.1"));
    await eventually(() => expect(lines(events)).toEqual(["add Pod shop/a"]));
  });

  it("lets the later write win between files, warns naming both, and restores the other's version on delete", async () => {
    const dir = await tempDir();
    await writeManifest(dir, "a.yaml", podYaml("web-1", "10.0.0.1"));
    const { cluster, events, logger } = await started(dir);
    const from = events.events.length;
    await writeManifest(dir, "b.yaml", podYaml("web-1", "10.0.0.2"));
    await eventually(() => expect(lines(events, from)).toEqual(["update Pod shop/web-1"]));
    expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.2");
    expect(logger.at("warn")).toEqual([
      "Pod/shop/web-1 is defined in b.yaml and a.yaml; using b.yaml, written last",
    ]);
    await removeManifest(dir, "b.yaml");
    await eventually(() =>
      expect(lines(events, from)).toEqual(["update Pod shop/web-1", "update Pod shop/web-1"]),
    );
    expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.1");
    await settle(dir, events);
    expect(lines(events, from)).toHaveLength(2);
  });
});
