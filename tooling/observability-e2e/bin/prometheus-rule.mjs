#!/usr/bin/env node
// Writes deploy/observability/prometheus-rule.yaml, the Prometheus operator's PrometheusRule,
// from deploy/observability/alerts.yaml, the one declaration of the alerts. With --check it
// writes nothing and exits 1 when the file is not what it would write.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";

const dir = fileURLToPath(new URL("../../../deploy/observability/", import.meta.url));
const source = parse(readFileSync(`${dir}alerts.yaml`, "utf8"));
const resource = {
  apiVersion: "monitoring.coreos.com/v1",
  kind: "PrometheusRule",
  metadata: {
    name: "linkerd-destination",
    namespace: "linkerd",
    labels: { "app.kubernetes.io/part-of": "destination-observability" },
  },
  spec: { groups: source.groups },
};
const text =
  "# Generated from alerts.yaml by tooling/observability-e2e/bin/prometheus-rule.mjs: edit that\n" +
  "# file and run `node tooling/observability-e2e/bin/prometheus-rule.mjs`.\n" +
  stringify(resource, { lineWidth: 0 });
const target = `${dir}prometheus-rule.yaml`;
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {}
  if (current !== text) {
    console.error(
      `${target} is not generated from alerts.yaml: run node ${fileURLToPath(import.meta.url)}`,
    );
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
