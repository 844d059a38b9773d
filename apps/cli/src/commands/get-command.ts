// `dst get AUTHORITY`: the endpoint set of a service, live or --once.
import { type Update, UpdateSchema } from "@destination/proto";
import type { SessionOptions } from "../args/parse-command-line.js";
import { type CliIo, LiveScreen } from "../cli-io.js";
import { formatDurationMs } from "../duration.js";
import { EndpointSet, type EndpointSetView } from "../endpoints/endpoint-set.js";
import type { ExitCode } from "../exit-code.js";
import { DestinationConnection } from "../grpc/destination-connection.js";
import { formatEndpointTable } from "../render/endpoint-table.js";
import { machineOutput } from "../render/message-output.js";
import { type Styles, stylesFor } from "../render/styles.js";
import { exitCodeForEnd, InterruptGuard } from "./stream-end.js";

export interface GetCommand {
  readonly authority: string;
  readonly once: boolean;
  readonly options: SessionOptions;
}

function heading(authority: string, view: EndpointSetView, styles: Styles, note?: string): string {
  const count = `${view.size} endpoint${view.size === 1 ? "" : "s"}`;
  const changes = [
    view.added > 0 ? styles.green(`+${view.added}`) : "",
    view.changed > 0 ? styles.yellow(`~${view.changed}`) : "",
    view.removed > 0 ? styles.red(`-${view.removed}`) : "",
  ].filter((text) => text !== "");
  return `${[styles.bold(authority), count, ...changes, ...(note ? [note] : [])].join("  ")}\n`;
}

export async function runGet(command: GetCommand, io: CliIo): Promise<ExitCode> {
  const { authority, once, options } = command;
  // Before the connection and the interrupt guard, which the finally below releases.
  const machine = options.output === "table" ? undefined : await machineOutput(options.output);
  const styles = stylesFor(io);
  const screen = new LiveScreen(io);
  const endpoints = new EndpointSet();
  const connection = new DestinationConnection(options.addr, options.timeoutMs);
  const guard = new InterruptGuard(io);

  const showTable = (view: EndpointSetView, note?: string) => {
    const table = formatEndpointTable(view.rows, { styles, showMarks: !once });
    const empty = view.rows.length === 0 ? `${styles.dim("(no endpoints)")}\n` : "";
    if (once) io.stdout.write(table + empty);
    else screen.show(heading(authority, view, styles, note) + table + empty);
  };

  try {
    const stream = guard.track(
      connection.open("get", authority, options.contextToken, {
        onMessage(update: Update) {
          if (machine === undefined) showTable(endpoints.apply(update));
          else io.stdout.write(machine.message(UpdateSchema, update));
          if (once) stream.cancel();
        },
        onQuiet() {
          // The server sends nothing for a service without endpoints: silence is an empty set.
          const waited = formatDurationMs(options.timeoutMs);
          if (options.output === "table") {
            showTable(endpoints.view(), styles.dim(`nothing received in ${waited}; watching`));
          }
          if (once) stream.cancel();
        },
      }),
    );
    return exitCodeForEnd(await stream.ended, guard.interrupted, io);
  } finally {
    guard.release();
    connection.close();
  }
}
