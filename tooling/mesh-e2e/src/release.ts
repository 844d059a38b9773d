// What the suite runs, named by the environment: upstream's binaries and the rendered chart of
// the Linkerd release they were built from. Nothing here names a machine path; without the
// variables the suite fails saying what to set (and `pnpm test` skips it, see
// tooling/scripts/test-mesh-if-configured.mjs).
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { PROXY_BIN_ENV, proxyBinary } from "@destination/proxy-e2e/proxy-binary";

export const MESH_ENV = [
  PROXY_BIN_ENV,
  "LINKERD_CONTROLLER_BIN",
  "LINKERD_POLICY_CONTROLLER_BIN",
  "LINKERD_RELEASE_DIR",
] as const;

function required(name: string, mode: number): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(
      `${name} is not set: the mesh suite needs ${MESH_ENV.join(", ")} (tooling/mesh-e2e/README.md)`,
    );
  }
  try {
    accessSync(value, mode);
  } catch {
    throw new Error(
      `${name}=${value} is not ${mode === constants.X_OK ? "executable" : "readable"}`,
    );
  }
  return value;
}

export interface LinkerdRelease {
  readonly proxyBin: string;
  /** The chart's `controller` image: `identity`, `destination`, … subcommands. */
  readonly controllerBin: string;
  readonly policyControllerBin: string;
  /** rendered/linkerd-control-plane.yaml */
  readonly controlPlaneYaml: string;
  /** rendered/linkerd-control-plane-ha.yaml */
  readonly controlPlaneHaYaml: string;
  /** rendered/linkerd-crds.yaml */
  readonly crdsYaml: string;
  /** pki/: ca.crt, issuer.crt, issuer.key (what the chart was rendered with). */
  readonly pkiDir: string;
}

export function linkerdRelease(): LinkerdRelease {
  const dir = required("LINKERD_RELEASE_DIR", constants.R_OK);
  return {
    proxyBin: proxyBinary(),
    controllerBin: required("LINKERD_CONTROLLER_BIN", constants.X_OK),
    policyControllerBin: required("LINKERD_POLICY_CONTROLLER_BIN", constants.X_OK),
    controlPlaneYaml: join(dir, "rendered", "linkerd-control-plane.yaml"),
    controlPlaneHaYaml: join(dir, "rendered", "linkerd-control-plane-ha.yaml"),
    crdsYaml: join(dir, "rendered", "linkerd-crds.yaml"),
    pkiDir: join(dir, "pki"),
  };
}
