// `dst endpoints AUTHORITY...`: the first endpoint set of each authority, queried concurrently,
// printed as one table.
import { type JsonValue, type Update, UpdateSchema } from "@destination/proto";
import type { SessionOptions } from "../args/parse-command-line.js";
import type { CliIo } from "../cli-io.js";
import { EndpointSet } from "../endpoints/endpoint-set.js";
import { ExitCode } from "../exit-code.js";
import { DestinationConnection, type StreamEnd } from "../grpc/destination-connection.js";
import { type EndpointTableRow, formatEndpointTable } from "../render/endpoint-table.js";
import { machineOutput, messageJson } from "../render/message-output.js";
import { stylesFor } from "../render/styles.js";
import { InterruptGuard, SERVER_CLOSED_NOTE } from "./stream-end.js";

export interface EndpointsCommand {
  readonly authorities: readonly string[];
  readonly options: SessionOptions;
}

interface AuthorityAnswer {
  readonly authority: string;
  /** The first message; undefined for a service that stayed silent. */
  readonly update: Update | undefined;
  readonly end: StreamEnd;
}

export async function runEndpoints(command: EndpointsCommand, io: CliIo): Promise<ExitCode> {
  const { authorities, options } = command;
  const connection = new DestinationConnection(options.addr, options.timeoutMs);
  const guard = new InterruptGuard(io);
  let answers: AuthorityAnswer[];
  try {
    answers = await Promise.all(
      authorities.map(async (authority): Promise<AuthorityAnswer> => {
        let update: Update | undefined;
        const stream = guard.track(
          connection.open("get", authority, options.contextToken, {
            onMessage(message) {
              update = message;
              stream.cancel();
            },
            onQuiet() {
              stream.cancel();
            },
          }),
        );
        const end = await stream.ended;
        return { authority, update, end };
      }),
    );
  } finally {
    guard.release();
    connection.close();
  }
  if (guard.interrupted) return ExitCode.interrupted;

  const succeeded = answers.filter((answer) => answer.end.kind !== "failed");
  if (options.output === "table") {
    // When every authority failed there is no table, only the errors below.
    if (succeeded.length > 0) io.stdout.write(endpointsTable(succeeded, io));
  } else {
    const machine = await machineOutput(options.output);
    for (const { authority, update } of succeeded) {
      const value: JsonValue =
        update === undefined
          ? { authority }
          : { authority, update: messageJson(UpdateSchema, update) };
      io.stdout.write(machine.value(value));
    }
  }

  let exitCode: ExitCode = ExitCode.ok;
  for (const { authority, end } of answers) {
    if (end.kind === "closed-by-server") {
      io.stderr.write(`dst: ${authority}: ${SERVER_CLOSED_NOTE}\n`);
    }
    if (end.kind !== "failed") continue;
    io.stderr.write(`dst: ${authority}: ${end.failure.message}\n`);
    if (exitCode === ExitCode.ok) exitCode = end.failure.exitCode;
  }
  return exitCode;
}

function endpointsTable(answers: readonly AuthorityAnswer[], io: CliIo): string {
  const styles = stylesFor(io);
  const rows: EndpointTableRow[] = [];
  const silent: string[] = [];
  for (const { authority, update } of answers) {
    const view = update === undefined ? undefined : new EndpointSet().apply(update);
    if (view === undefined || view.size === 0) {
      silent.push(authority);
      continue;
    }
    const namespace = view.setLabels.namespace || "-";
    const service = view.setLabels.service || "-";
    for (const row of view.rows) {
      rows.push({ endpoint: row.endpoint, leading: [authority, namespace, service] });
    }
  }
  const table = formatEndpointTable(rows, {
    styles,
    showMarks: false,
    leadingHeaders: ["AUTHORITY", "NAMESPACE", "SERVICE"],
  });
  const notes = silent.map((authority) => `${styles.dim(`(no endpoints for ${authority})`)}\n`);
  return table + notes.join("");
}
