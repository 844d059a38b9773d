import { FlagError } from "@destination/go-compat";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../config/server-flag.js";
import { CHART_MESHED_HTTP2_CLIENT_PARAMS } from "../config/server-flags.js";
import { createServerLogger } from "../logging/server-logger.js";
import { referenceOptionsFromArgs } from "./reference-options.js";

const quiet = createServerLogger({ level: "error", sink: { write: () => {} } });
const read = (...args: string[]) => referenceOptionsFromArgs(args, quiet);

describe("referenceOptionsFromArgs", () => {
  it("no flags: the binary's defaults", async () => {
    expect(await read()).toEqual({
      controllerNamespace: "linkerd",
      identityTrustDomain: "cluster.local",
      clusterDomain: "cluster.local",
      forceOpaqueTransport: false,
      enableH2Upgrade: true,
      enableEndpointSlices: true,
      enableIpv6: true,
      defaultOpaquePorts: new Set(),
      extEndpointZoneWeights: false,
    });
  });

  it("reads upstream's verbatim args: the subcommand, answer flags, and flags that shape nothing", async () => {
    const options = await read(
      "destination",
      "-addr=:8086",
      "-controller-namespace=linkerd-ctl",
      "-enable-h2-upgrade=false",
      "-enable-endpoint-slices=false",
      "-enable-ipv6=false",
      "-cluster-domain=example.org",
      "-identity-trust-domain=example.org",
      "-default-opaque-ports=25,3306",
      "-outbound-transport-mode=transport-header",
      "-ext-endpoint-zone-weights",
      `-meshed-http2-client-params=${CHART_MESHED_HTTP2_CLIENT_PARAMS}`,
      "-log-level=debug",
      "-trace-collector=collector:55678",
      "-kubeconfig=/nowhere",
    );
    expect(options).toMatchObject({
      controllerNamespace: "linkerd-ctl",
      identityTrustDomain: "example.org",
      clusterDomain: "example.org",
      forceOpaqueTransport: true,
      enableH2Upgrade: false,
      enableEndpointSlices: false,
      enableIpv6: false,
      defaultOpaquePorts: new Set([25, 3306]),
      extEndpointZoneWeights: true,
      meshedHttp2ClientParams: { keepAlive: expect.anything() },
    });
    expect(Object.keys(options)).not.toContain("addr");
    expect(Object.keys(options)).not.toContain("kubeconfig");
  });

  it("refuses what the binary refuses, with its messages", async () => {
    await expect(read("-cluster-domian=example.org")).rejects.toEqual(
      new FlagError("flag provided but not defined: -cluster-domian"),
    );
    await expect(read("-enable-h2-upgrade=maybe")).rejects.toBeInstanceOf(FlagError);
    await expect(read("-enable-endpoint-slices=false")).rejects.toEqual(
      new ConfigError("-enable-ipv6=true requires -enable-endpoint-slices=true"),
    );
    await expect(read("identity")).rejects.toBeInstanceOf(ConfigError);
  });
});
