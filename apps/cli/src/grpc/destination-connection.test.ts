import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../exit-code.js";
import { connectionErrorText, failureFromStatus } from "./destination-connection.js";

describe("failureFromStatus", () => {
  const addr = "127.0.0.1:8086";

  it("maps each status to its exit code, keeping the server's message", () => {
    const cases = [
      [status.NOT_FOUND, "Service web.ns not found", ExitCode.notFound],
      [status.INVALID_ARGUMENT, "Invalid authority: a:b:c", ExitCode.invalidArgument],
      [status.UNKNOWN, 'service "web" not found', ExitCode.failure],
      [status.FAILED_PRECONDITION, "found 2 pods", ExitCode.failure],
    ] as const;
    for (const [code, details, exitCode] of cases) {
      const failure = failureFromStatus({ code, details }, addr, false);
      expect(failure.exitCode).toBe(exitCode);
      expect(failure.message).toBe(`${details} (${status[code]})`);
    }
  });

  it("names the address when the server is unreachable or the connection drops", () => {
    const details =
      "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:8086. Resolution note: ";
    const before = failureFromStatus({ code: status.UNAVAILABLE, details }, addr, false);
    expect(before.exitCode).toBe(ExitCode.unreachable);
    expect(before.message).toBe(
      "cannot reach the destination server at 127.0.0.1:8086: connect ECONNREFUSED 127.0.0.1:8086",
    );
    const during = failureFromStatus({ code: status.UNAVAILABLE, details: "GOAWAY" }, addr, true);
    expect(during.message).toBe(
      "lost the connection to the destination server at 127.0.0.1:8086: GOAWAY",
    );
  });
});

describe("connectionErrorText", () => {
  it("keeps details that have no grpc-js boilerplate", () => {
    expect(connectionErrorText("Connection dropped")).toBe("Connection dropped");
  });
});
