// The pinned Helm 4, Helm 3 and kustomize that the deploy tests render Linkerd's chart with, built
// from source with `go install` through the module proxy on first use and cached by version under
// ~/.cache/destination-helm/<version>/helm and ~/.cache/destination-kustomize/<version>/kustomize
// (DESTINATION_HELM_CACHE_DIR and DESTINATION_KUSTOMIZE_CACHE_DIR move the roots).
//
// Plain ESM JavaScript (typed by go-tools.d.mts beside it) so that CI can provision both before
// anything is built, as it does grpcurl.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * @typedef {object} GoTool
 * @property {string} name       the binary's name
 * @property {string} version    the module version built (bump it and the cache builds it beside)
 * @property {string} module     the package `go install` builds
 * @property {string} ldflags    what the release builds stamp in, so `version` says the release
 * @property {string} cacheName  the cache folder under ~/.cache
 * @property {string} cacheEnv   the variable that moves that folder
 */

/** @type {GoTool} Helm 4: post-renderers are plugins of type postrenderer/v1. */
export const HELM = {
  name: "helm",
  version: "v4.3.2",
  module: "helm.sh/helm/v4/cmd/helm",
  ldflags: "-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.2",
  cacheName: "destination-helm",
  cacheEnv: "DESTINATION_HELM_CACHE_DIR",
};

/**
 * @type {GoTool} Helm 3, the line many operators still run: it takes a post-renderer as the path
 * of an executable. Cached beside Helm 4, by version.
 */
export const HELM3 = {
  name: "helm",
  version: "v3.22.1",
  module: "helm.sh/helm/v3/cmd/helm",
  ldflags: "-s -w -X helm.sh/helm/v3/internal/version.version=v3.22.1",
  cacheName: "destination-helm",
  cacheEnv: "DESTINATION_HELM_CACHE_DIR",
};

/**
 * @type {GoTool} kustomize v5.8.0 (kustomize/api v0.21.x): its go.mod builds with Go 1.26; later
 * releases may ask for a newer toolchain, which GOTOOLCHAIN=local refuses to download.
 */
export const KUSTOMIZE = {
  name: "kustomize",
  version: "v5.8.0",
  module: "sigs.k8s.io/kustomize/kustomize/v5",
  ldflags: "-s -w",
  cacheName: "destination-kustomize",
  cacheEnv: "DESTINATION_KUSTOMIZE_CACHE_DIR",
};

/** @param {string | undefined} value */
function nonEmpty(value) {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * Where the pinned tool lives once built (whether or not it exists yet).
 * @param {GoTool} tool
 */
export function goToolPath(tool) {
  const root = resolve(
    nonEmpty(process.env[tool.cacheEnv]) ??
      join(nonEmpty(process.env.XDG_CACHE_HOME) ?? join(homedir(), ".cache"), tool.cacheName),
  );
  return join(root, tool.version, tool.name);
}

/**
 * Returns the cached binary, building it with `go install` on first use (one to three minutes
 * each). Rejects with the reason when it cannot be built.
 * @param {GoTool} tool
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<string>}
 */
export async function ensureGoTool(tool, options = {}) {
  const bin = goToolPath(tool);
  if (existsSync(bin)) return bin;
  const log = options.log ?? ((line) => process.stderr.write(`[${tool.name}] ${line}\n`));
  const dir = resolve(bin, "..");
  mkdirSync(dir, { recursive: true });
  // Each build installs into its own folder and renames into place, so that processes
  // provisioning at the same time never see a half-written binary.
  const staging = mkdtempSync(join(dir, ".build-"));
  const started = Date.now();
  try {
    log(`building ${tool.name} ${tool.version} with go into ${dir}`);
    await runGo(tool, ["install", `-ldflags=${tool.ldflags}`, `${tool.module}@${tool.version}`], {
      ...process.env,
      GOBIN: staging,
      // No toolchain downloads: only the module proxy is reachable.
      GOTOOLCHAIN: "local",
      CGO_ENABLED: "0",
    });
    renameSync(join(staging, tool.name), bin);
    log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return bin;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * @param {GoTool} tool
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<void>}
 */
function runGo(tool, args, env) {
  return new Promise((resolvePromise, reject) => {
    let output = "";
    const child = spawn("go", args, { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) =>
      reject(
        new Error(
          `${tool.name}: \`go\` is needed to build ${tool.name} ${tool.version} but could not run (${err.message}); install Go 1.26 or newer`,
        ),
      ),
    );
    child.on("exit", (code, signal) => {
      if (code === 0) resolvePromise();
      else
        reject(
          new Error(
            `${tool.name}: go ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`,
          ),
        );
    });
  });
}
