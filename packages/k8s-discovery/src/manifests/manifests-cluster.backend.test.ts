import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "@destination/core";
import { describeBackendSuite } from "@destination/test-support/backend-suite";
import { stringify } from "yaml";
import { keyOf } from "../cache.js";
import { createManifestsCluster } from "./manifests-cluster.js";
import { removeManifest, writeManifest } from "./manifests-test-files.js";

// One file per object, written the way editors save (temp file, then rename).
describeBackendSuite("manifests", async (initial) => {
  const dir = await mkdtemp(join(tmpdir(), "manifests-suite-"));
  const fileOf = (kind: string, key: string) => `${kind}-${key.replaceAll("/", "_")}.yaml`;
  const pending: (() => Promise<void>)[] = [];
  let connected = true;
  const run = async (step: () => Promise<void>) => {
    if (connected) await step();
    else pending.push(step);
  };
  for (const o of initial) await writeManifest(dir, fileOf(o.kind ?? "", keyOf(o)), stringify(o));
  const cluster = createManifestsCluster({ dir, debounceMs: 50, resyncMs: 0 });
  return {
    cluster,
    async apply(...objects: KubeObject[]) {
      for (const o of objects) {
        await run(() => writeManifest(dir, fileOf(o.kind ?? "", keyOf(o)), stringify(o)));
      }
    },
    async delete(kind, namespace, name) {
      await run(() => removeManifest(dir, fileOf(kind, namespace ? `${namespace}/${name}` : name)));
    },
    // A folder has no watch to lose: the closest thing is many files changing at once, which
    // the backend must take in as one re-read.
    async whileDisconnected(change) {
      connected = false;
      await change();
      connected = true;
      await Promise.all(pending.splice(0).map((step) => step()));
    },
    async close() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
