// `dst audit`: the running server's first Get answers against a reference server's, started
// in-process on the source the running server should reflect (README "dst audit").
import type { AuditSource, SessionOptions } from "../args/parse-command-line.js";
import { auditJson, formatAuditTable } from "../audit/audit-output.js";
import { type AuthorityAudit, auditAuthority, isUnreachable } from "../audit/authority-audit.js";
import { firstAnswer } from "../audit/first-answer.js";
import { CliFailure } from "../cli-failure.js";
import type { CliIo } from "../cli-io.js";
import { ExitCode } from "../exit-code.js";
import { DestinationConnection } from "../grpc/destination-connection.js";
import { machineOutput } from "../render/message-output.js";
import { stylesFor } from "../render/styles.js";
import { InterruptGuard } from "./interrupt-guard.js";

export interface AuditCommand {
  /** Empty with `all`: every port of every Service in the source. */
  readonly authorities: readonly string[];
  readonly all: boolean;
  readonly source: AuditSource;
  readonly options: SessionOptions;
}

/** The reference server, from `@destination/server`: imported only here, when `audit` runs,
 * so no other command loads the server (README "dst audit"). */
async function startReference(source: AuditSource, io: CliIo) {
  const { createServerLogger, startReferenceServer } = await import("@destination/server");
  // The reference's own errors (an API server it cannot list, say) go to dst's stderr.
  const logger = createServerLogger({ level: "error", sink: io.stderr });
  try {
    return await startReferenceServer({ ...source, logger });
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
  const reference = await startReference(command.source, io);
  const audited = new DestinationConnection(options.addr, options.timeoutMs);
  const expected = new DestinationConnection(reference.addr, options.timeoutMs);
  const guard = new InterruptGuard(io);
  const track = guard.track.bind(guard);
  let audits: AuthorityAudit[];
  try {
    const authorities = command.all
      ? reference.servicePorts().map((p) => `${p.name}.${p.namespace}.svc.cluster.local:${p.port}`)
      : command.authorities;
    audits = await Promise.all(
      authorities.map(async (authority) => {
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
      }),
    );
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
