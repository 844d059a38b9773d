// `dst profile AUTHORITY`: the profile of a service or ip:port, live or --once.
import { type DestinationProfile, DestinationProfileSchema } from "@destination/proto";
import type { SessionOptions } from "../args/parse-command-line.js";
import { type CliIo, LiveScreen } from "../cli-io.js";
import { formatDurationMs } from "../duration.js";
import { ExitCode } from "../exit-code.js";
import { DestinationConnection } from "../grpc/destination-connection.js";
import { machineOutput } from "../render/message-output.js";
import { formatProfile } from "../render/profile-view.js";
import { stylesFor } from "../render/styles.js";
import { exitCodeForEnd, InterruptGuard } from "./stream-end.js";

export interface ProfileCommand {
  readonly authority: string;
  readonly once: boolean;
  readonly options: SessionOptions;
}

export async function runProfile(command: ProfileCommand, io: CliIo): Promise<ExitCode> {
  const { authority, once, options } = command;
  // Before the connection and the interrupt guard, which the finally below releases.
  const machine = options.output === "table" ? undefined : await machineOutput(options.output);
  const styles = stylesFor(io);
  const screen = new LiveScreen(io);
  const connection = new DestinationConnection(options.addr, options.timeoutMs);
  const guard = new InterruptGuard(io);
  let updates = 0;
  let timedOut = false;

  try {
    const stream = guard.track(
      connection.open("getProfile", authority, options.contextToken, {
        onMessage(profile: DestinationProfile) {
          updates += 1;
          if (machine !== undefined) {
            io.stdout.write(machine.message(DestinationProfileSchema, profile));
          } else if (once) {
            io.stdout.write(formatProfile(profile, styles));
          } else {
            const title = `${styles.bold(authority)}  ${styles.dim(`update ${updates}`)}\n`;
            screen.show(title + formatProfile(profile, styles));
          }
          if (once) stream.cancel();
        },
        onQuiet() {
          // A healthy stream always starts with a profile; silence means the server rejected
          // the ServiceProfile (it logs why) or is still waiting on its caches.
          const waited = formatDurationMs(options.timeoutMs);
          if (once) {
            timedOut = true;
            io.stderr.write(`dst: no profile for ${authority} within ${waited}\n`);
            stream.cancel();
          } else {
            io.stderr.write(`dst: no profile for ${authority} yet after ${waited}; waiting\n`);
          }
        },
      }),
    );
    const code = exitCodeForEnd(await stream.ended, guard.interrupted, io);
    return timedOut && code === ExitCode.ok ? ExitCode.timedOut : code;
  } finally {
    guard.release();
    connection.close();
  }
}
