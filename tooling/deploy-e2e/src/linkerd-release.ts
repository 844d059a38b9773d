// Linkerd's own install, which a drop-in must fit unchanged: the charts, the values they were
// rendered with and the rendered manifests, from the folder LINKERD_RELEASE_DIR names. A clone
// without that folder skips the tests that need it (the reason is NO_RELEASE); a folder named but
// incomplete fails, since that is a broken setup rather than a missing one.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export interface LinkerdRelease {
  readonly dir: string;
  readonly controlPlaneChart: string;
  readonly crdsChart: string;
  /** The chart's high-availability values (`-f values-ha.yaml`). */
  readonly haValues: string;
  /** The throwaway trust anchor and the identity issuer it signed (PEM files). */
  readonly pki: { readonly caCrt: string; readonly issuerCrt: string; readonly issuerKey: string };
  readonly rendered: {
    readonly crds: string;
    readonly controlPlane: string;
    readonly controlPlaneHa: string;
  };
}

export const NO_RELEASE =
  "LINKERD_RELEASE_DIR is not set: the tests that render Linkerd's chart are skipped. Point it " +
  "at a folder with charts/linkerd-control-plane, charts/linkerd-crds, pki/ and rendered/ " +
  "(CI uses the one beside the clone).";

/** The Kubernetes version the manifests in rendered/ were made for (`--kube-version`). */
export const KUBE_VERSION = "1.37.2";

/** The release LINKERD_RELEASE_DIR names, or undefined when it names none. */
export function linkerdRelease(): LinkerdRelease | undefined {
  const value = process.env.LINKERD_RELEASE_DIR?.trim();
  if (!value) return undefined;
  const dir = resolve(value);
  const release: LinkerdRelease = {
    dir,
    controlPlaneChart: join(dir, "charts/linkerd-control-plane"),
    crdsChart: join(dir, "charts/linkerd-crds"),
    haValues: join(dir, "charts/linkerd-control-plane/values-ha.yaml"),
    pki: {
      caCrt: join(dir, "pki/ca.crt"),
      issuerCrt: join(dir, "pki/issuer.crt"),
      issuerKey: join(dir, "pki/issuer.key"),
    },
    rendered: {
      crds: join(dir, "rendered/linkerd-crds.yaml"),
      controlPlane: join(dir, "rendered/linkerd-control-plane.yaml"),
      controlPlaneHa: join(dir, "rendered/linkerd-control-plane-ha.yaml"),
    },
  };
  const missing = [
    join(release.controlPlaneChart, "Chart.yaml"),
    join(release.crdsChart, "Chart.yaml"),
    release.haValues,
    ...Object.values(release.pki),
    ...Object.values(release.rendered),
  ].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`LINKERD_RELEASE_DIR=${value} lacks ${missing.join(", ")}`);
  }
  return release;
}
