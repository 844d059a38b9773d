import type { NamespacedName } from "@destination/core";
// `GET /debug/endpoints?service=ns/name`: the query checked, then the endpoints report as JSON.
import type { EndpointsReport } from "./endpoints-report.js";

export interface JsonReply {
  readonly status: number;
  readonly body: unknown;
}

export type EndpointsReporter = (id: NamespacedName) => EndpointsReport | undefined;

// A namespace is a DNS label; a Service name a DNS-1035 label (it starts with a letter).
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SERVICE = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Reads `service=ns/name`, or says what is wrong with it. */
export function parseServiceParam(query: URLSearchParams): NamespacedName | string {
  const values = query.getAll("service");
  if (values.length === 0) return "missing query parameter service=NAMESPACE/NAME";
  if (values.length > 1) return "give the service parameter once";
  const value = values[0] ?? "";
  const [namespace, name, ...rest] = value.split("/");
  if (
    namespace === undefined ||
    name === undefined ||
    rest.length > 0 ||
    !NAMESPACE.test(namespace) ||
    !SERVICE.test(name)
  ) {
    return `service must be NAMESPACE/NAME, such as emojivoto/web-svc, not ${JSON.stringify(value)}`;
  }
  return { namespace, name };
}

/** The reply; `reporter` is undefined until the caches have synced. */
export function debugEndpointsReply(
  query: URLSearchParams,
  reporter: EndpointsReporter | undefined,
): JsonReply {
  const id = parseServiceParam(query);
  if (typeof id === "string") return { status: 400, body: { error: id } };
  if (reporter === undefined) {
    return { status: 503, body: { error: "the caches have not synced yet" } };
  }
  const report = reporter(id);
  if (report === undefined) {
    return {
      status: 404,
      body: {
        error: `Service ${id.namespace}/${id.name} not found (no Service, no EndpointSlices)`,
      },
    };
  }
  return { status: 200, body: report };
}
