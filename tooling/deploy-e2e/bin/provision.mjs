#!/usr/bin/env node
// Builds (first run) or finds (later runs) the pinned Helm 4, Helm 3 and kustomize the deploy tests use,
// one after the other (each build takes both cores), then prints their paths.
// Env: DESTINATION_HELM_CACHE_DIR, DESTINATION_KUSTOMIZE_CACHE_DIR.
import { ensureGoTool, HELM, HELM3, KUSTOMIZE } from "../lib/go-tools.mjs";

try {
  for (const tool of [HELM, HELM3, KUSTOMIZE]) {
    process.stdout.write(`${tool.name} ${tool.version}: ${await ensureGoTool(tool)}\n`);
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
