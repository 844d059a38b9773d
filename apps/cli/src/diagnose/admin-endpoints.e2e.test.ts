import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { unusedLoopbackAddress } from "../../test/support/fake-destination-server.js";
import { CliFailure, ExitCode } from "../exit-code.js";
import { fetchEndpointsReport } from "./admin-endpoints.js";

const WEB = { namespace: "shop", name: "web", port: 80 };
let server: Server | undefined;

/** An admin server answering every request with `status` and `body`; records the paths. */
async function adminServer(status: number, body: string) {
  const paths: string[] = [];
  server = createServer((req, res) => {
    paths.push(req.url ?? "");
    res.writeHead(status).end(body);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { addr: `127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

afterEach(async () => {
  const closing = server;
  server = undefined;
  if (closing === undefined) return;
  await new Promise((resolve) => {
    closing.close(resolve);
    closing.closeAllConnections();
  });
});

async function failure(promise: Promise<unknown>): Promise<CliFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof CliFailure) return error;
  throw new Error(`expected a CliFailure, got ${String(error)}`);
}

describe("fetchEndpointsReport", () => {
  it("asks for the Service by namespace/name and returns the JSON", async () => {
    const report = { service: null, endpointSlices: [], subscribers: null, notes: ["n"] };
    const admin = await adminServer(200, JSON.stringify(report));
    const fetched = await fetchEndpointsReport(admin.addr, WEB, 2000);
    expect(fetched.json).toEqual(report);
    expect(admin.paths).toEqual(["/debug/endpoints?service=shop/web"]);
  });

  it("exits 4 with the server's message for an unknown Service", async () => {
    const admin = await adminServer(404, JSON.stringify({ error: "Service shop/web not found" }));
    const error = await failure(fetchEndpointsReport(admin.addr, WEB, 2000));
    expect([error.message, error.exitCode]).toEqual([
      "Service shop/web not found",
      ExitCode.notFound,
    ]);
  });

  it("exits 1 when the address answers without JSON (not a destination server, or too old)", async () => {
    const admin = await adminServer(404, "404 page not found\n");
    const error = await failure(fetchEndpointsReport(admin.addr, WEB, 2000));
    expect(error.exitCode).toBe(ExitCode.failure);
    expect(error.message).toMatch(/answered 404 without JSON/);
  });

  it("exits 3 when nothing listens at the admin address", async () => {
    const addr = await unusedLoopbackAddress();
    const error = await failure(fetchEndpointsReport(addr, WEB, 2000));
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(error.message).toMatch(
      new RegExp(`^cannot reach the destination server's admin address ${addr}: .*ECONNREFUSED`),
    );
  });
});
