// `dst diagnose AUTHORITY`: what the server knows about the Service behind an authority, read
// from its admin address, and why each address is or is not served.

import type { JsonValue } from "@destination/proto";
import type { OutputFormat } from "../args/parse-command-line.js";
import type { CliIo } from "../cli-io.js";
import { fetchEndpointsReport } from "../diagnose/admin-endpoints.js";
import type { ServiceAuthority } from "../diagnose/service-authority.js";
import { ExitCode } from "../exit-code.js";
import { formatDiagnosis } from "../render/diagnosis-view.js";
import { machineOutput } from "../render/message-output.js";
import { stylesFor } from "../render/styles.js";

export interface DiagnoseCommand {
  readonly service: ServiceAuthority;
  readonly adminAddr: string;
  readonly output: OutputFormat;
  readonly timeoutMs: number;
}

export async function runDiagnose(command: DiagnoseCommand, io: CliIo): Promise<ExitCode> {
  const { json, report } = await fetchEndpointsReport(
    command.adminAddr,
    command.service,
    command.timeoutMs,
  );
  if (command.output === "table") {
    io.stdout.write(formatDiagnosis(report, command.service, stylesFor(io)));
  } else {
    io.stdout.write((await machineOutput(command.output)).value(json as JsonValue));
  }
  return ExitCode.ok;
}
