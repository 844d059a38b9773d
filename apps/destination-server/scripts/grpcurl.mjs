// The real grpcurl, built from source for the server's reflection tests and cached by version
// under ~/.cache/destination-grpcurl/<version>/grpcurl (GRPCURL_CACHE_DIR overrides the root).
//
// Plain ESM JavaScript (typed by grpcurl.d.mts beside it) so that CI can provision it before
// anything is built.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The grpcurl release the tests run; bump it here and the cache builds the new one beside. */
export const GRPCURL_VERSION = "v1.9.3";

const MODULE = "github.com/fullstorydev/grpcurl/cmd/grpcurl";

/** @param {string | undefined} value */
function nonEmpty(value) {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/** Where the pinned grpcurl lives once built (whether or not it exists yet). */
export function grpcurlPath() {
  const root = resolve(
    nonEmpty(process.env.GRPCURL_CACHE_DIR) ??
      join(
        nonEmpty(process.env.XDG_CACHE_HOME) ?? join(homedir(), ".cache"),
        "destination-grpcurl",
      ),
  );
  return join(root, GRPCURL_VERSION, "grpcurl");
}

/**
 * Returns the cached grpcurl, building it with `go install` through the module proxy on first
 * use (a minute or three). Rejects with the reason when it cannot be built.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<string>}
 */
export async function ensureGrpcurl(options = {}) {
  const bin = grpcurlPath();
  if (existsSync(bin)) return bin;
  const log = options.log ?? ((line) => process.stderr.write(`[grpcurl] ${line}\n`));
  const dir = resolve(bin, "..");
  mkdirSync(dir, { recursive: true });
  // Each build installs into its own folder and renames into place, so that processes
  // provisioning at the same time never see a half-written binary.
  const staging = mkdtempSync(join(dir, ".build-"));
  try {
    log(`building grpcurl ${GRPCURL_VERSION} with go into ${dir}`);
    await runGo(
      [
        "install",
        `-ldflags=-s -w -X main.version=${GRPCURL_VERSION}`,
        `${MODULE}@${GRPCURL_VERSION}`,
      ],
      {
        ...process.env,
        GOBIN: staging,
        // No toolchain downloads: only the module proxy is reachable.
        GOTOOLCHAIN: "local",
        CGO_ENABLED: "0",
      },
    );
    renameSync(join(staging, "grpcurl"), bin);
    return bin;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<void>}
 */
function runGo(args, env) {
  return new Promise((resolvePromise, reject) => {
    let output = "";
    const child = spawn("go", args, { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) =>
      reject(
        new Error(
          `grpcurl: \`go\` is needed to build grpcurl ${GRPCURL_VERSION} but could not run (${err.message}); install Go 1.26 or newer`,
        ),
      ),
    );
    child.on("exit", (code, signal) => {
      if (code === 0) resolvePromise();
      else
        reject(
          new Error(
            `grpcurl: go ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`,
          ),
        );
    });
  });
}
