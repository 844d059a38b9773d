import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadAllYaml } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { createServerLogger } from "../logging/server-logger.js";
import { parseCommandLine } from "./flag-options.js";

// Upstream's Helm chart rendered (default and HA values), from the Linkerd release folder named
// by LINKERD_RELEASE_DIR (README, "Linkerd's own binaries and charts"); not in the repository.
const RELEASE = process.env.LINKERD_RELEASE_DIR ?? "";
const RENDERS = ["linkerd-control-plane.yaml", "linkerd-control-plane-ha.yaml"];

interface Container {
  name: string;
  args?: string[];
}
interface Manifest {
  kind?: string;
  metadata?: { name?: string };
  spec?: { template?: { spec?: { containers?: Container[] } } };
}

/** The `args` of the `destination` container of the `linkerd-destination` Deployment. */
function destinationArgs(file: string): string[] {
  const docs = loadAllYaml(readFileSync(join(RELEASE, "rendered", file), "utf8")) as Manifest[];
  const deployment = docs.find(
    (d) => d?.kind === "Deployment" && d.metadata?.name === "linkerd-destination",
  );
  const container = deployment?.spec?.template?.spec?.containers?.find(
    (c) => c.name === "destination",
  );
  if (container?.args === undefined) throw new Error(`no destination args in ${file}`);
  return container.args;
}

describe.skipIf(RELEASE === "")("upstream's chart args (LINKERD_RELEASE_DIR/rendered)", () => {
  it.each(RENDERS)("start the server from %s with the chart's meaning", async (file) => {
    const args = destinationArgs(file);
    expect(args[0]).toBe("destination");
    const line = parseCommandLine(args);
    expect([line.version, line.logLevel, line.logFormat]).toEqual([false, "info", "text"]);
    const lines: string[] = [];
    const logger = createServerLogger({ format: "json", sink: { write: (l) => lines.push(l) } });
    const { logger: _ignored, ...options } = await line.options(logger);
    expect(options).toMatchObject({
      addr: ":8086",
      controllerNamespace: "linkerd",
      forceOpaqueTransport: true,
      enableH2Upgrade: true,
      enableEndpointSlices: true,
      clusterDomain: "cluster.local",
      identityTrustDomain: "cluster.local",
      enableIpv6: false,
      defaultOpaquePorts: new Set([25, 587, 3306, 4444, 5432, 6379, 9300, 11211]),
      meshedHttp2ClientParams: expect.objectContaining({
        keepAlive: expect.objectContaining({ whileIdle: true }),
      }),
    });
    // Every value is one we honour: no warnings, no errors.
    expect(lines).toEqual([]);
  });
});
