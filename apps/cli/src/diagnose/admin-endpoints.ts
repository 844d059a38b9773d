// Reads `/debug/endpoints` from the server's admin HTTP address, turning each way it can fail
// into dst's exit codes.
import { request } from "node:http";
import { formatDurationMs } from "../duration.js";
import { CliFailure, ExitCode } from "../exit-code.js";
import type { ServiceAuthority } from "./service-authority.js";

/** The report's JSON as sent (for `-o json`) and as read. */
export interface FetchedReport {
  readonly json: unknown;
  readonly report: EndpointsReportView;
}

/** One GET with an overall deadline. node:http rather than fetch: fetch refuses some ports. */
function httpGet(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        clearTimeout(deadline);
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on("error", reject);
    });
    const deadline = setTimeout(
      () => req.destroy(new Error(`no answer within ${formatDurationMs(timeoutMs)}`)),
      timeoutMs,
    );
    req.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.end();
  });
}

export async function fetchEndpointsReport(
  adminAddr: string,
  service: ServiceAuthority,
  timeoutMs: number,
): Promise<FetchedReport> {
  const url = `http://${adminAddr}/debug/endpoints?service=${service.namespace}/${service.name}`;
  let status: number;
  let body: string;
  try {
    ({ status, body } = await httpGet(url, timeoutMs));
  } catch (error) {
    throw new CliFailure(
      `cannot reach the destination server's admin address ${adminAddr}: ${error instanceof Error ? error.message : String(error)}`,
      ExitCode.unreachable,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    // A server without the endpoint answers its plain-text 404.
    throw new CliFailure(
      `${adminAddr} answered ${status} without JSON: is it a destination server's admin address, and new enough to have /debug/endpoints?`,
      ExitCode.failure,
    );
  }
  if (status === 200) return { json, report: json as EndpointsReportView };
  const message = (json as { error?: unknown }).error;
  const text = typeof message === "string" ? message : `HTTP ${status}`;
  throw new CliFailure(text, status === 404 ? ExitCode.notFound : ExitCode.failure);
}

// The JSON of the server's `/debug/endpoints`, as far as `dst diagnose` reads it. Kept here
// rather than imported from the server so that dst depends only on the wire format.
export interface ServiceView {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  readonly clusterIPs: readonly string[];
  readonly internalTrafficPolicy: string | null;
  readonly ports: readonly {
    name: string;
    port: number;
    targetPort: number | string | null;
    protocol: string;
  }[];
}

export interface PodView {
  readonly name: string;
  readonly phase: string | null;
  readonly node: string | null;
  readonly owner: { kind: string; name: string };
}

export interface AddressView {
  readonly address: string;
  readonly pod: PodView | null;
  readonly served: boolean;
  readonly reason: string | null;
}

export interface EndpointView {
  readonly addresses: readonly AddressView[];
  readonly targetRef: { kind: string; namespace: string; name: string } | null;
  readonly nodeName: string | null;
  readonly zone: string | null;
  readonly hints: { forZones: readonly string[] } | null;
}

export interface SliceView {
  readonly name: string;
  readonly addressType: string;
  readonly ports: readonly { name: string; port: number | null; protocol: string }[];
  readonly servesPorts: readonly { servicePort: number; port: number }[];
  readonly endpoints: readonly EndpointView[];
}

export interface EndpointsReportView {
  readonly service: ServiceView | null;
  readonly endpointSlices: readonly SliceView[];
  readonly subscribers: {
    total: number;
    ports: readonly { port: number; subscribers: number }[];
  } | null;
  readonly notes: readonly string[];
}
