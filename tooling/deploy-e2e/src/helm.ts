// The pinned Helm (4, or 3) in a home of its own (config, data, cache and plugins in a temp
// folder), Helm 4 with deploy/linkerd/helm-plugin installed the way the README tells an operator
// to, and Linkerd's control-plane chart rendered with the values rendered/ was made with.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEPLOY_LINKERD } from "./deploy-linkerd.js";
import { KUBE_VERSION, type LinkerdRelease } from "./linkerd-release.js";
import { output } from "./run.js";
import { helmBinary, kustomizeBinary } from "./tools.js";

export interface Helm {
  /** Runs helm with these arguments; resolves to stdout, rejects with stderr. */
  run(args: string[], env?: Record<string, string>): Promise<string>;
  /** Removes the temp home. */
  dispose(): void;
}

/** A Helm (4 unless told another binary) with a home of its own. */
export function isolatedHelm(binary: string = helmBinary()): Helm {
  const home = mkdtempSync(join(tmpdir(), "deploy-e2e-helm-"));
  const homeEnv = {
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
    HELM_CACHE_HOME: join(home, "cache"),
    // The post-renderer finds kustomize here rather than on the PATH.
    KUSTOMIZE: kustomizeBinary(),
    // The post-renderer's default image, unless a test sets it (not the caller's shell).
    DESTINATION_IMAGE: "",
  };
  return {
    run: (args, env) => output(binary, args, { env: { ...homeEnv, ...env } }),
    dispose: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** Helm 4 with the destination-server post-renderer plugin installed, as the README says. */
export async function helmWithPlugin(): Promise<Helm> {
  const helm = isolatedHelm();
  await helm.run(["plugin", "install", DEPLOY_LINKERD.helmPlugin]);
  return helm;
}

export interface RenderOptions {
  /** Add the chart's values-ha.yaml. */
  readonly ha?: boolean;
  /** Extra helm arguments, e.g. `--post-renderer destination-server`. */
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
}

/**
 * The values Linkerd's README renders linkerd-control-plane with, plus fixed values for what the
 * chart otherwise makes anew on every render (the webhooks' self-signed certificates and the
 * heartbeat's schedule, taken from the clock), so that two renders compare.
 */
export function controlPlaneValues(release: LinkerdRelease, options: { ha?: boolean } = {}) {
  return [
    ...setFile("identityTrustAnchorsPEM", release.pki.caCrt),
    ...setFile("identity.issuer.tls.crtPEM", release.pki.issuerCrt),
    ...setFile("identity.issuer.tls.keyPEM", release.pki.issuerKey),
    // Any certificate and key serve for rendering; the issuer's are at hand.
    ...["proxyInjector", "profileValidator", "policyValidator"].flatMap((webhook) => [
      ...setFile(`${webhook}.crtPEM`, release.pki.issuerCrt),
      ...setFile(`${webhook}.keyPEM`, release.pki.issuerKey),
      ...setFile(`${webhook}.caBundle`, release.pki.caCrt),
    ]),
    "--set",
    "heartbeatSchedule=0 0 * * *",
    ...(options.ha ? ["--values", release.haValues] : []),
  ];
}

/** `helm template` of linkerd-control-plane in namespace linkerd with `controlPlaneValues`. */
export function renderControlPlane(
  helm: Helm,
  release: LinkerdRelease,
  options: RenderOptions = {},
): Promise<string> {
  const args = [
    "template",
    "linkerd-control-plane",
    release.controlPlaneChart,
    "--namespace",
    "linkerd",
    "--kube-version",
    KUBE_VERSION,
    ...controlPlaneValues(release, options),
    ...(options.args ?? []),
  ];
  return helm.run(args, options.env);
}

const setFile = (key: string, file: string) => ["--set-file", `${key}=${file}`];
