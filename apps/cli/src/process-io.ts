import type { CliIo } from "./cli-io.js";

/** The real process: its streams, environment and SIGINT. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    onInterrupt(handler) {
      let presses = 0;
      const listener = () => {
        presses += 1;
        // The first Ctrl-C cancels cleanly; a second one means "stop now".
        if (presses > 1) process.exit(130);
        handler();
      };
      process.on("SIGINT", listener);
      return () => process.off("SIGINT", listener);
    },
  };
}
