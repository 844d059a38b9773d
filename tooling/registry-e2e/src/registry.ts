// A real Verdaccio on a loopback port with its own temp storage. `@destination/*` is served from
// that storage only (what the release command publishes there); every other package comes from
// the uplink, the public npm registry, so npm and pnpm install third-party dependencies through
// it as they would from npmjs.org. Publishing needs a user, created through the registry's API.
import { accessSync, constants, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type GroupProcess, spawnInGroup } from "@destination/doc-commands/process-group";

/** The registry third-party packages come from; `REGISTRY_E2E_UPLINK` replaces it. */
export const DEFAULT_UPLINK = "https://registry.npmjs.org/";

const LAUNCHER = fileURLToPath(new URL("../bin/verdaccio.mjs", import.meta.url));

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** The token of the user that publishes. */
  readonly token: string;
  readonly process: GroupProcess;
  stop(): Promise<void>;
}

export async function startRegistry(dir: string, uplink = DEFAULT_UPLINK): Promise<LocalRegistry> {
  mkdirSync(join(dir, "storage"), { recursive: true });
  const config = {
    storage: join(dir, "storage"),
    auth: { htpasswd: { file: join(dir, "htpasswd"), max_users: 10 } },
    uplinks: { npmjs: { url: uplink, timeout: "60s", max_fails: 5, fail_timeout: "1m" } },
    packages: {
      // Ours: never looked up upstream, so what is installed is what the release published.
      "@destination/*": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" },
      "**": { access: "$all", publish: "$authenticated", proxy: "npmjs" },
    },
    max_body_size: "200mb",
    web: { enable: false },
    log: { type: "stdout", format: "pretty", level: "warn" },
    ...proxySettings(),
  };
  // JSON is YAML: Verdaccio reads this file as its config.yaml.
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const proc = spawnInGroup([process.execPath, LAUNCHER, configPath], { cwd: dir });
  const match = await proc.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/)/, 60_000);
  const url = match[1] as string;
  try {
    const token = await createUser(url, "registry-e2e", "registry-e2e-password");
    return { url, token, process: proc, stop: () => proc.stop() };
  } catch (err) {
    await proc.stop();
    throw err;
  }
}

/** `npm adduser` through the API: the token a client sends as `_authToken`. */
async function createUser(url: string, name: string, password: string): Promise<string> {
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name,
      password,
      type: "user",
      roles: [],
      date: new Date().toISOString(),
    }),
  });
  const body = (await response.json()) as { token?: string; error?: string };
  if (response.status !== 201 || body.token === undefined) {
    throw new Error(`creating the registry user: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

/** The machine's HTTP(S) proxy for the uplink, when one is set. */
function proxySettings(): Record<string, string> {
  const out: Record<string, string> = {};
  const https = process.env.HTTPS_PROXY ?? process.env.https_proxy;
  const http = process.env.HTTP_PROXY ?? process.env.http_proxy;
  const noProxy = process.env.NO_PROXY ?? process.env.no_proxy;
  if (https) out.https_proxy = https;
  if (http) out.http_proxy = http;
  if (noProxy) out.no_proxy = noProxy;
  return out;
}

/**
 * The environment of every npm, npx and pnpm command the suite runs: a home of its own (so no
 * `~/.npmrc`, pnpm config, auth file, cache or store of the user is read or written), its
 * `.npmrc` naming the local registry and the publishing user's token, and the registry set the
 * way each client reads it: npm from `npm_config_registry`, pnpm 12 from
 * `PNPM_CONFIG_REGISTRY`. Inherited `npm_*` and `pnpm_*` variables (pnpm sets some for the
 * script that runs this suite) are dropped, and so are the workspace's `node_modules/.bin`
 * folders on the PATH: a user's `npx tsc` or `dst` is not ours. The node running the suite comes
 * first on the PATH, so npm, npx and the examples run on the Node line under test, and the pnpm
 * running it next (CI's `npx -y pnpm@…` lives in a `node_modules/.bin` of npx's cache).
 */
export function clientEnv(registry: LocalRegistry, home: string): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  const host = registry.url.replace(/^http:/, "");
  const npmrc = join(home, ".npmrc");
  writeFileSync(
    npmrc,
    [
      `registry=${registry.url}`,
      `${host}:_authToken=${registry.token}`,
      "audit=false",
      "fund=false",
      "update-notifier=false",
      "",
    ].join("\n"),
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm|pnpm)_/i.test(key)) continue;
    env[key] = value;
  }
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  const pnpmDir = path.find((dir) => isExecutable(join(dir, "pnpm")));
  const kept = path.filter((dir) => !dir.includes("node_modules/.bin"));
  return {
    ...env,
    PATH: [dirname(process.execPath), ...(pnpmDir ? [pnpmDir] : []), ...kept].join(delimiter),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    npm_config_registry: registry.url,
    npm_config_userconfig: npmrc,
    npm_config_cache: join(home, ".npm"),
    PNPM_CONFIG_REGISTRY: registry.url,
    NO_COLOR: "1",
  };
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
