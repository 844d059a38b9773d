// The dst binary: run with the real process, then exit with the run's code once stdout has
// flushed. Exiting explicitly matters after Ctrl-C, when gRPC timers may still linger.
import { processIo } from "./cli-io.js";
import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
process.stdout.write("", () => process.exit(code));
