// Provisioning of the kube-apiserver and etcd binaries used by tooling/k8s-env.
//
// Plain ESM JavaScript (typed by provision.d.ts beside it) so that the CLI in bin/ runs without a
// build step, while src/ re-exports it for programmatic use.
//
// Both binaries are built from source through the Go module proxy, from tiny main packages kept
// under go/ with a go.mod generated here, and cached by Kubernetes version under
// ~/.cache/destination-k8s-env/<k8s-version>/ (K8S_ENV_CACHE_DIR overrides the root).

import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The Kubernetes release built when neither an option nor K8S_VERSION names one. */
export const DEFAULT_K8S_VERSION = "v1.37.2";

/** Bumped when the way binaries are built changes, so stale caches are rebuilt. */
const RECIPE = 1;

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const GO_TEMPLATES = join(PACKAGE_DIR, "go");

/** @param {string | undefined} value */
function nonEmpty(value) {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/** @param {import("./provision.d.ts").ProvisionOptions} [options] */
export function resolveProvisionConfig(options = {}) {
  const k8sVersion = normalizeVersion(
    options.k8sVersion ?? nonEmpty(process.env.K8S_VERSION) ?? DEFAULT_K8S_VERSION,
  );
  const cacheRoot = resolve(
    options.cacheDir ??
      nonEmpty(process.env.K8S_ENV_CACHE_DIR) ??
      join(
        nonEmpty(process.env.XDG_CACHE_HOME) ?? join(homedir(), ".cache"),
        "destination-k8s-env",
      ),
  );
  const etcdVersion = options.etcdVersion ?? nonEmpty(process.env.K8S_ENV_ETCD_VERSION);
  return {
    k8sVersion,
    cacheRoot,
    dir: join(cacheRoot, k8sVersion),
    etcdVersion: etcdVersion === undefined ? undefined : normalizeVersion(etcdVersion),
    log: options.log ?? ((line) => process.stderr.write(`[k8s-env] ${line}\n`)),
  };
}

/** @param {string} v */
function normalizeVersion(v) {
  const out = v.startsWith("v") ? v : `v${v}`;
  if (!/^v\d+\.\d+\.\d+$/.test(out)) {
    throw new Error(`k8s-env: "${v}" is not a release version like v1.37.2`);
  }
  return out;
}

/**
 * Ensures kube-apiserver and etcd are built and cached for the chosen Kubernetes version, building
 * them with `go` on first use. Safe to call from several processes at once (a lock directory
 * serialises builds).
 * @param {import("./provision.d.ts").ProvisionOptions} [options]
 * @returns {Promise<import("./provision.d.ts").Binaries>}
 */
export async function ensureBinaries(options = {}) {
  const cfg = resolveProvisionConfig(options);
  const cached = readManifest(cfg);
  if (cached) return cached;

  mkdirSync(cfg.dir, { recursive: true });
  const release = await acquireLock(join(cfg.dir, ".lock"), cfg.log);
  try {
    const again = readManifest(cfg);
    if (again) return again;
    return await build(cfg);
  } finally {
    release();
  }
}

/**
 * @param {ReturnType<typeof resolveProvisionConfig>} cfg
 * @returns {import("./provision.d.ts").Binaries | undefined}
 */
function readManifest(cfg) {
  const file = join(cfg.dir, "manifest.json");
  if (!existsSync(file)) return undefined;
  try {
    const m = JSON.parse(readFileSync(file, "utf8"));
    if (m.recipe !== RECIPE || m.k8sVersion !== cfg.k8sVersion) return undefined;
    if (cfg.etcdVersion !== undefined && m.etcdVersion !== cfg.etcdVersion) return undefined;
    const kubeApiServer = join(cfg.dir, "bin", "kube-apiserver");
    const etcd = join(cfg.dir, "bin", "etcd");
    if (!existsSync(kubeApiServer) || !existsSync(etcd)) return undefined;
    return {
      kubeApiServer,
      etcd,
      k8sVersion: m.k8sVersion,
      etcdVersion: m.etcdVersion,
      dir: cfg.dir,
    };
  } catch {
    return undefined;
  }
}

/**
 * A lock directory holding the owner's pid; a lock whose owner is gone is taken over.
 * @param {string} lockDir
 * @param {(line: string) => void} log
 */
async function acquireLock(lockDir, log) {
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, "pid"), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EEXIST") throw err;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(lockDir, "pid"), "utf8"));
    } catch {
      // The owner may be between mkdir and writing its pid; judge by age below.
    }
    const age = ageMs(lockDir);
    if (
      (Number.isInteger(owner) && owner > 0 && !alive(owner)) ||
      (Number.isNaN(owner) && age > 30_000)
    ) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announced) {
      log(`another process (pid ${owner}) is building the binaries; waiting for it`);
      announced = true;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** @param {string} path */
function ageMs(path) {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === "EPERM";
  }
}

/** @param {ReturnType<typeof resolveProvisionConfig>} cfg */
async function build(cfg) {
  const go = checkGo();
  const started = Date.now();
  cfg.log(`building Kubernetes ${cfg.k8sVersion} binaries with ${go} into ${cfg.dir}`);
  cfg.log(
    "first build only: takes about 8-20 minutes on 2 cores, a few GB of RAM and ~4 GB of disk",
  );

  const srcRoot = join(cfg.dir, "src");
  const binDir = join(cfg.dir, "bin");
  mkdirSync(srcRoot, { recursive: true });
  mkdirSync(binDir, { recursive: true });
  const env = goEnv();

  // 1. The k8s.io/kubernetes go.mod tells which staging modules to pin and which etcd it uses.
  cfg.log(`reading k8s.io/kubernetes@${cfg.k8sVersion} go.mod from the module proxy`);
  const info = await runGo(["mod", "download", "-json", `k8s.io/kubernetes@${cfg.k8sVersion}`], {
    cwd: srcRoot,
    env,
    capture: true,
    label: "go mod download",
    log: cfg.log,
  });
  const goModPath = JSON.parse(info).GoMod;
  if (typeof goModPath !== "string") {
    throw new Error(
      `k8s-env: go mod download gave no go.mod for k8s.io/kubernetes@${cfg.k8sVersion}`,
    );
  }
  const k8sGoMod = readFileSync(goModPath, "utf8");
  const staging = stagingModules(k8sGoMod);
  if (staging.length === 0)
    throw new Error("k8s-env: found no v0.0.0 staging requires in k8s.io/kubernetes go.mod");
  const etcdVersion = cfg.etcdVersion ?? etcdVersionOf(k8sGoMod);
  const [, minor, patch] = /^v1\.(\d+)\.(\d+)$/.exec(cfg.k8sVersion) ?? [];
  if (minor === undefined || patch === undefined) {
    throw new Error(
      `k8s-env: only Kubernetes v1.x.y releases are supported, not ${cfg.k8sVersion}`,
    );
  }
  const stagingVersion = `v0.${minor}.${patch}`;
  const goDirective = /^go (\S+)$/m.exec(k8sGoMod)?.[1] ?? "1.24.0";

  // 2. kube-apiserver
  const apiDir = join(srcRoot, "kube-apiserver");
  mkdirSync(apiDir, { recursive: true });
  copyFileSync(join(GO_TEMPLATES, "kube-apiserver", "main.go"), join(apiDir, "main.go"));
  writeFileSync(
    join(apiDir, "go.mod"),
    [
      "// Generated by tooling/k8s-env (lib/provision.js). Do not edit.",
      "module destination.local/k8s-env/kube-apiserver",
      "",
      `go ${goDirective}`,
      "",
      `require k8s.io/kubernetes ${cfg.k8sVersion}`,
      "",
      "replace (",
      ...staging.map((m) => `\t${m} => ${m} ${stagingVersion}`),
      ")",
      "",
    ].join("\n"),
  );
  const versionPkgs = ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"];
  const buildDate = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const ldflags = [
    "-s",
    "-w",
    ...versionPkgs.flatMap((p) => [
      `-X ${p}.gitVersion=${cfg.k8sVersion}`,
      `-X ${p}.gitMajor=1`,
      `-X ${p}.gitMinor=${minor}`,
      `-X ${p}.gitTreeState=clean`,
      `-X ${p}.buildDate=${buildDate}`,
    ]),
  ].join(" ");
  await goBuild(apiDir, "kube-apiserver", join(binDir, "kube-apiserver"), ldflags, env, cfg.log);

  // 3. etcd
  const etcdDir = join(srcRoot, "etcd");
  mkdirSync(etcdDir, { recursive: true });
  copyFileSync(join(GO_TEMPLATES, "etcd", "main.go"), join(etcdDir, "main.go"));
  const etcdGoDirective = goDirective;
  writeFileSync(
    join(etcdDir, "go.mod"),
    [
      "// Generated by tooling/k8s-env (lib/provision.js). Do not edit.",
      "module destination.local/k8s-env/etcd",
      "",
      `go ${etcdGoDirective}`,
      "",
      `require go.etcd.io/etcd/server/v3 ${etcdVersion}`,
      "",
    ].join("\n"),
  );
  await goBuild(etcdDir, "etcd", join(binDir, "etcd"), "-s -w", env, cfg.log);

  // 4. Check what was built, then record it.
  const apiVersionOut = versionOf(join(binDir, "kube-apiserver"));
  const etcdVersionOut = versionOf(join(binDir, "etcd"));
  cfg.log(`built: ${apiVersionOut.split("\n")[0]}; ${etcdVersionOut.split("\n")[0]}`);
  const buildSeconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(
    join(cfg.dir, "manifest.json"),
    `${JSON.stringify(
      {
        recipe: RECIPE,
        k8sVersion: cfg.k8sVersion,
        etcdVersion,
        stagingVersion,
        builtAt: new Date().toISOString(),
        buildSeconds,
        go: go,
      },
      null,
      2,
    )}\n`,
  );
  // The generated sources are small; the Go build cache keeps the rest (go clean -cache frees it).
  cfg.log(`done in ${formatDuration(Date.now() - started)}`);
  const out = readManifest(cfg);
  if (!out) throw new Error("k8s-env: build finished but the cache manifest is unreadable");
  return out;
}

/** @param {string} goMod */
export function stagingModules(goMod) {
  const out = new Set();
  for (const m of goMod.matchAll(/^\s*(k8s\.io\/[\w.\-/]+)\s+v0\.0\.0(\s|$)/gm)) {
    if (m[1] !== undefined) out.add(m[1]);
  }
  return [...out].sort();
}

/** @param {string} goMod */
export function etcdVersionOf(goMod) {
  const m =
    /^\s*go\.etcd\.io\/etcd\/server\/v3\s+(v3\.\d+\.\d+)\b/m.exec(goMod) ??
    /^\s*go\.etcd\.io\/etcd\/client\/v3\s+(v3\.\d+\.\d+)\b/m.exec(goMod);
  if (!m?.[1])
    throw new Error(
      "k8s-env: cannot tell the etcd version from k8s.io/kubernetes go.mod; set K8S_ENV_ETCD_VERSION",
    );
  return m[1];
}

function checkGo() {
  const r = spawnSync("go", ["version"], { encoding: "utf8", env: goEnv() });
  if (r.error || r.status !== 0) {
    throw new Error(
      [
        "k8s-env: `go` is needed to build kube-apiserver and etcd, but it was not found on PATH",
        r.error ? `(${r.error.message})` : `(go version exited ${r.status}: ${r.stderr.trim()})`,
        "Install Go 1.26 or newer (https://go.dev/dl/, or Debian's golang-go if it is new enough),",
        "or point K8S_ENV_CACHE_DIR at a cache that already holds the binaries.",
      ].join("\n"),
    );
  }
  return r.stdout.trim().replace(/^go version /, "");
}

function goEnv() {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env };
  env.GOFLAGS = [env.GOFLAGS ?? "", "-mod=mod"].join(" ").trim();
  // No toolchain downloads: only the module proxy is reachable.
  env.GOTOOLCHAIN = "local";
  env.CGO_ENABLED = "0";
  return env;
}

/** @param {string} bin */
function versionOf(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`k8s-env: ${bin} --version failed: ${r.stderr || r.error?.message}`);
  return r.stdout.trim();
}

/**
 * @param {string} dir
 * @param {string} name
 * @param {string} output
 * @param {string} ldflags
 * @param {NodeJS.ProcessEnv} env
 * @param {(line: string) => void} log
 */
async function goBuild(dir, name, output, ldflags, env, log) {
  const t0 = Date.now();
  log(`${name}: resolving modules (go mod tidy)`);
  await runGo(["mod", "tidy"], { cwd: dir, env, label: `${name}: go mod tidy`, log });
  const deps = await runGo(["list", "-deps", "."], {
    cwd: dir,
    env,
    capture: true,
    label: `${name}: go list`,
    log,
  });
  const total = deps.split("\n").filter((l) => l.trim() !== "").length;
  log(`${name}: compiling ${total} packages (go build -p 2); progress every 30s`);
  const tmp = `${output}.tmp-${randomBytes(4).toString("hex")}`;
  try {
    await runGo(["build", "-v", "-p", "2", "-trimpath", `-ldflags=${ldflags}`, "-o", tmp, "."], {
      cwd: dir,
      env,
      label: `${name}: go build`,
      log,
      total,
    });
    renameSync(tmp, output);
  } finally {
    rmSync(tmp, { force: true });
  }
  log(`${name}: built in ${formatDuration(Date.now() - t0)}`);
}

/**
 * Runs go, printing a progress line every 30s (packages compiled, modules downloaded) and the
 * last lines of its output if it fails.
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv; label: string; log: (line: string) => void; capture?: boolean; total?: number }} opts
 * @returns {Promise<string>}
 */
function runGo(args, opts) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("go", args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const t0 = Date.now();
    let stdout = "";
    /** @type {string[]} */
    const tail = [];
    let packages = 0;
    let downloads = 0;
    let partial = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      if (opts.capture) stdout += d;
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      const lines = (partial + d).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith("go: downloading")) downloads++;
        else if (/^[\w.-]+(\/[\w.\-~]+)*$/.test(line)) packages++;
        tail.push(line);
        if (tail.length > 40) tail.shift();
      }
    });
    const timer = setInterval(() => {
      const parts = [`${formatDuration(Date.now() - t0)} elapsed`];
      if (packages > 0)
        parts.push(`${packages}${opts.total ? ` of at most ${opts.total}` : ""} packages compiled`);
      if (downloads > 0) parts.push(`${downloads} modules downloaded`);
      opts.log(`${opts.label}: ${parts.join(", ")}`);
    }, 30_000);
    timer.unref();
    child.on("error", (err) => {
      clearInterval(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearInterval(timer);
      if (partial) tail.push(partial);
      if (code === 0) {
        resolvePromise(stdout);
      } else {
        reject(
          new Error(
            `k8s-env: \`go ${args.join(" ")}\` in ${opts.cwd} failed (${signal ?? `exit ${code}`}):\n${tail.join("\n")}`,
          ),
        );
      }
    });
  });
}

/** @param {number} ms */
export function formatDuration(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
