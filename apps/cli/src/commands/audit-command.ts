// `dst audit`: the running server's first Get answers against a reference server's, started
// in-process on the source the running server should reflect, with the server's own flags
// (README "dst audit"). A divergence is rechecked after the settle time.
import type { AuditSource, SessionOptions } from "../args/parse-command-line.js";
import { auditJson, formatAuditTable } from "../audit/audit-output.js";
import {
  type AuthorityAudit,
  auditAuthority,
  firstAnswer,
  isUnreachable,
} from "../audit/authority-audit.js";
import { recheckDivergent } from "../audit/recheck.js";
import type { CliIo } from "../cli-io.js";
import { CliFailure, ExitCode } from "../exit-code.js";
import { DestinationConnection } from "../grpc/destination-connection.js";
import { machineOutput } from "../render/message-output.js";
import { stylesFor } from "../render/styles.js";
import { InterruptGuard } from "./stream-end.js";

export interface AuditCommand {
  /** Empty with `all`: every port of every Service in the source. */
  readonly authorities: readonly string[];
  readonly all: boolean;
  readonly source: AuditSource;
  /** The audited server's command line (after `--`). */
  readonly serverArgs: readonly string[];
  /** Read the server's command line from this Deployment instead. */
  readonly serverArgsFrom?: { readonly namespace: string; readonly name: string } | undefined;
  readonly settleMs: number;
  readonly options: SessionOptions;
}

/** The reference server, from `@destination/server`: imported only here, when `audit` runs,
 * so no other command loads the server (README "dst audit"). */
async function startReference(command: AuditCommand, io: CliIo) {
  const server = await import("@destination/server");
  // The reference's own errors (an API server it cannot list, say) go to dst's stderr.
  const logger = server.createServerLogger({ level: "error", sink: io.stderr });
  let serverArgs = command.serverArgs;
  let origin = "after --";
  if (command.serverArgsFrom !== undefined) {
    const { namespace, name } = command.serverArgsFrom;
    origin = `of Deployment ${namespace}/${name}`;
    try {
      serverArgs = await server.readDeploymentArgs(command.source, command.serverArgsFrom);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliFailure(`cannot read the server flags ${origin}: ${reason}`, ExitCode.failure);
    }
  }
  let options: Awaited<ReturnType<typeof server.referenceOptionsFromArgs>>;
  try {
    // The server's own parser: its flag names, defaults and messages.
    options = await server.referenceOptionsFromArgs(serverArgs, logger);
  } catch (error) {
    const refused = error instanceof server.FlagError || error instanceof server.ConfigError;
    // -h: the server's flags are listed by its own `destination-server -h`.
    const help = error instanceof Error && error.name === "HelpRequested";
    if (!refused && !help) throw error;
    throw new CliFailure(
      `server flags (${origin}): ${help ? "-h lists nothing here; see destination-server -h" : error.message}`,
      ExitCode.usage,
    );
  }
  try {
    const reference = await server.startReferenceServer({ ...command.source, options, logger });
    return { reference, clusterDomain: options.clusterDomain ?? "cluster.local" };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliFailure(
      `cannot build the expected answers from the source: ${reason}`,
      ExitCode.failure,
    );
  }
}

export async function runAudit(command: AuditCommand, io: CliIo): Promise<ExitCode> {
  const { options } = command;
  const { reference, clusterDomain } = await startReference(command, io);
  const audited = new DestinationConnection(options.addr, options.timeoutMs);
  const expected = new DestinationConnection(reference.addr, options.timeoutMs);
  const guard = new InterruptGuard(io);
  const track = guard.track.bind(guard);
  const auditOne = async (authority: string): Promise<AuthorityAudit> => {
    const ask = <Method extends "get" | "getProfile">(
      connection: DestinationConnection,
      method: Method,
    ) => firstAnswer(connection, method, authority, options.contextToken, track);
    const [wantGet, haveGet, wantProfile, haveProfile] = await Promise.all([
      ask(expected, "get"),
      ask(audited, "get"),
      ask(expected, "getProfile"),
      ask(audited, "getProfile"),
    ]);
    for (const answer of [haveGet, haveProfile]) {
      if (answer.kind === "failed" && isUnreachable(answer)) throw answer.failure;
    }
    return auditAuthority(
      authority,
      { expected: wantGet, actual: haveGet },
      { expected: wantProfile, actual: haveProfile },
    );
  };
  let audits: Awaited<ReturnType<typeof recheckDivergent>>;
  try {
    const authorities = command.all
      ? reference
          .servicePorts()
          .map((p) => `${p.name}.${p.namespace}.svc.${clusterDomain}:${p.port}`)
      : command.authorities;
    const first = await Promise.all(authorities.map(auditOne));
    audits = await recheckDivergent(guard.interrupted ? [] : first, command.settleMs, {
      sleep: (ms) => guard.sleep(ms),
      stopped: () => guard.interrupted,
      refresh: () => reference.refresh(),
      audit: auditOne,
      onSettle: (diverging) =>
        io.stderr.write(
          `dst: ${diverging.length} of ${authorities.length} diverge; rechecking in ${command.settleMs} ms (--settle)\n`,
        ),
    });
  } finally {
    guard.release();
    audited.close();
    expected.close();
    await reference.close();
  }

  if (guard.interrupted) return ExitCode.interrupted;
  if (options.output === "table") {
    io.stdout.write(formatAuditTable(audits, stylesFor(io)));
  } else {
    const machine = await machineOutput(options.output);
    for (const audit of audits) io.stdout.write(machine.value(auditJson(audit)));
  }
  return audits.every((audit) => audit.status === "ok") ? ExitCode.ok : ExitCode.failure;
}
