// The command line → one `CliCommand`. Flags may appear before or after the command name.
import { parseArgs } from "node:util";
import { parseServiceAuthority, type ServiceAuthority } from "../diagnose/service-authority.js";
import { parseDurationMs, parseDurationOrZeroMs } from "../duration.js";
import { CliFailure, ExitCode } from "../exit-code.js";
import { type CommandName, commandUsage, rootUsage } from "./usage.js";

export type OutputFormat = "table" | "json" | "yaml";

/** What every command needs to reach the server and print. */
export interface SessionOptions {
  readonly addr: string;
  readonly contextToken: string;
  readonly output: OutputFormat;
  /** Deadline to connect and for the first message. */
  readonly timeoutMs: number;
}

/** Where `dst audit` reads what the server must answer: manifests, or a kubeconfig's cluster. */
export interface AuditSource {
  readonly manifests?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly kubeContext?: string | undefined;
}

export type CliCommand =
  | { readonly kind: "help"; readonly text: string }
  | { readonly kind: "version" }
  | {
      readonly kind: "get" | "profile";
      readonly authority: string;
      readonly once: boolean;
      readonly options: SessionOptions;
    }
  | {
      readonly kind: "endpoints";
      readonly authorities: readonly string[];
      readonly options: SessionOptions;
    }
  | {
      readonly kind: "diagnose";
      readonly service: ServiceAuthority;
      /** The server's admin HTTP address, where `/debug/endpoints` is read. */
      readonly adminAddr: string;
      readonly output: OutputFormat;
      /** Deadline for the admin server's answer. */
      readonly timeoutMs: number;
    }
  | {
      readonly kind: "audit";
      /** Empty with `all`. */
      readonly authorities: readonly string[];
      readonly all: boolean;
      readonly source: AuditSource;
      /** The audited server's own command line, everything after `--`, read by the server's
       * parser when the command runs. */
      readonly serverArgs: readonly string[];
      /** `--server-args-from NAMESPACE/DEPLOYMENT`: read them from the cluster instead. */
      readonly serverArgsFrom?: { readonly namespace: string; readonly name: string } | undefined;
      /** How long to wait before rechecking a diverging authority; 0: no recheck. */
      readonly settleMs: number;
      readonly options: SessionOptions;
    };

/** A command line `dst` refuses; exits 2 with `usage` printed after the message. */
export class UsageError extends CliFailure {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message, ExitCode.usage);
  }
}

export const DEFAULT_ADDR = "localhost:8086";
export const DEFAULT_ADMIN_ADDR = "127.0.0.1:9996";
export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_SETTLE_MS = 2000;

const OPTIONS = {
  addr: { type: "string" },
  "admin-addr": { type: "string" },
  "context-token": { type: "string" },
  ns: { type: "string" },
  node: { type: "string" },
  pod: { type: "string" },
  output: { type: "string", short: "o" },
  timeout: { type: "string" },
  once: { type: "boolean" },
  all: { type: "boolean" },
  manifests: { type: "string" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  settle: { type: "string" },
  "server-args-from": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

const COMMANDS: readonly string[] = [
  "get",
  "profile",
  "endpoints",
  "diagnose",
  "audit",
] satisfies CommandName[];
const isCommandName = (name: string | undefined): name is CommandName =>
  name !== undefined && COMMANDS.includes(name);

/** node:util's messages suggest `--` tricks that do not apply here; say it shorter. */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const quoted = /'([^']+)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted !== undefined) {
    return `unknown flag ${quoted}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted !== undefined) {
    return `flag ${quoted.split(" ")[0]} needs a value`;
  }
  return message;
}

/** @throws UsageError */
export function parseCommandLine(argv: readonly string[]): CliCommand {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  // `dst audit ... -- SERVER-FLAGS`: what follows `--` is the audited server's command line.
  const dash = argv.indexOf("--");
  const commandGuess = (dash < 0 ? argv : argv.slice(0, dash)).find((arg) => isCommandName(arg));
  const usage = isCommandName(commandGuess) ? commandUsage[commandGuess] : rootUsage;
  const split = commandGuess === "audit" && dash >= 0;
  const ownArgs = split ? argv.slice(0, dash) : argv;
  const serverArgs = split ? argv.slice(dash + 1) : [];
  try {
    parsed = parseArgs({
      args: [...ownArgs],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error), usage);
  }
  const { values, positionals } = parsed;
  const [name, ...operands] = positionals;

  if (values.version === true) return { kind: "version" };
  if (name === "help") {
    const topic = operands[0];
    if (operands.length > 1 || (topic !== undefined && !isCommandName(topic))) {
      throw new UsageError(`no help for ${JSON.stringify(operands.join(" "))}`, rootUsage);
    }
    return { kind: "help", text: topic === undefined ? rootUsage : commandUsage[topic] };
  }
  if (name === undefined) {
    if (values.help === true) return { kind: "help", text: rootUsage };
    throw new UsageError("a command is required", rootUsage);
  }
  if (!isCommandName(name)) {
    throw new UsageError(`unknown command ${JSON.stringify(name)}`, rootUsage);
  }
  const commandText = commandUsage[name];
  if (values.help === true) return { kind: "help", text: commandText };

  const fail = (message: string): never => {
    throw new UsageError(message, commandText);
  };

  const output = values.output ?? "table";
  if (output !== "table" && output !== "json" && output !== "yaml") {
    fail(`--output must be table, json or yaml, not ${JSON.stringify(output)}`);
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (values.timeout !== undefined) {
    timeoutMs =
      parseDurationMs(values.timeout) ??
      fail(`--timeout must be a positive duration such as 5s or 500ms, not ${values.timeout}`);
  }
  const addr = values.addr ?? DEFAULT_ADDR;
  if (addr === "") fail("--addr must not be empty");
  const tokenParts = { ns: values.ns, nodeName: values.node, pod: values.pod };
  const builtToken = buildContextToken(tokenParts);
  if (values["context-token"] !== undefined && builtToken !== "") {
    fail("--context-token cannot be combined with --ns, --node or --pod");
  }
  const options: SessionOptions = {
    addr,
    contextToken: values["context-token"] ?? builtToken,
    output: output as OutputFormat,
    timeoutMs,
  };

  const sourceFlags = (
    ["all", "manifests", "kubeconfig", "context", "settle", "server-args-from"] as const
  ).filter((flag) => values[flag] !== undefined);
  if (name === "audit") {
    if (options.output === "yaml") fail("audit writes table or json, not yaml");
    const all = values.all === true;
    if (all === operands.length > 0) fail("audit needs AUTHORITY... or --all (not both)");
    if (values.manifests !== undefined && (values.kubeconfig ?? values.context) !== undefined) {
      fail("--manifests cannot be combined with --kubeconfig or --context");
    }
    if (values.manifests === "" || values.kubeconfig === "") {
      fail("--manifests and --kubeconfig must not be empty");
    }
    const source: AuditSource = {
      manifests: values.manifests,
      kubeconfig: values.kubeconfig,
      kubeContext: values.context,
    };
    const settleMs =
      values.settle === undefined
        ? DEFAULT_SETTLE_MS
        : (parseDurationOrZeroMs(values.settle) ??
          fail(`--settle must be a duration such as 2s, 500ms or 0, not ${values.settle}`));
    const from = values["server-args-from"];
    let serverArgsFrom: { namespace: string; name: string } | undefined;
    if (from !== undefined) {
      const [namespace = "", name = "", ...rest] = from.split("/");
      if (namespace === "" || name === "" || rest.length > 0) {
        fail(`--server-args-from must be NAMESPACE/DEPLOYMENT, not ${JSON.stringify(from)}`);
      }
      if (values.manifests !== undefined) {
        fail("--server-args-from reads a cluster: not with --manifests");
      }
      if (split) fail("--server-args-from cannot be combined with server flags after --");
      serverArgsFrom = { namespace, name };
    }
    return {
      kind: "audit",
      authorities: operands,
      all,
      source,
      serverArgs,
      ...(serverArgsFrom !== undefined ? { serverArgsFrom } : {}),
      settleMs,
      options,
    };
  }
  if (sourceFlags.length > 0) fail(`--${sourceFlags[0]} applies only to audit`);

  if (name === "diagnose") {
    if (values["context-token"] !== undefined || builtToken !== "") {
      fail(
        "diagnose reads the server's caches, not Get: --context-token, --ns, --node and --pod do not apply",
      );
    }
    if (operands.length !== 1) fail(`diagnose needs exactly one AUTHORITY, got ${operands.length}`);
    const service = parseServiceAuthority(operands[0] ?? "");
    if (typeof service === "string") return fail(service);
    const adminAddr = values["admin-addr"] ?? DEFAULT_ADMIN_ADDR;
    if (!URL.canParse(`http://${adminAddr}/`) || !/:\d+$/.test(adminAddr)) {
      fail(
        `--admin-addr must be HOST:PORT, such as 127.0.0.1:9996, not ${JSON.stringify(adminAddr)}`,
      );
    }
    return { kind: "diagnose", service, adminAddr, output: options.output, timeoutMs };
  }
  if (name === "endpoints") {
    if (operands.length === 0) fail("endpoints needs at least one AUTHORITY");
    // --once is accepted: endpoints is always one-shot.
    return { kind: "endpoints", authorities: operands, options };
  }
  if (operands.length !== 1) {
    fail(`${name} needs exactly one AUTHORITY, got ${operands.length}`);
  }
  return { kind: name, authority: operands[0] ?? "", once: values.once === true, options };
}

// The context token a proxy sends (`LINKERD2_PROXY_DESTINATION_CONTEXT`), built from
// `--ns` / `--node` / `--pod` so an operator can ask as a given pod would.
export interface ContextTokenParts {
  readonly ns?: string | undefined;
  readonly nodeName?: string | undefined;
  readonly pod?: string | undefined;
}

/** `{"ns":…,"nodeName":…,"pod":…}` with only the given keys, in the injector's order; the empty
 * string (no token) when none is given. */
export function buildContextToken(parts: ContextTokenParts): string {
  const token: Record<string, string> = {};
  if (parts.ns !== undefined) token.ns = parts.ns;
  if (parts.nodeName !== undefined) token.nodeName = parts.nodeName;
  if (parts.pod !== undefined) token.pod = parts.pod;
  return Object.keys(token).length === 0 ? "" : JSON.stringify(token);
}
