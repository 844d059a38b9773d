// What the proxy's HTTP balancer holds, from its /metrics.

import { sum } from "./prometheus-text.js";
import type { ProxyProcess } from "./proxy-process.js";

/** Ready endpoints over all of the proxy's HTTP balancers (`outbound_http_balancer_endpoints`). */
export async function readyEndpoints(
  proxy: Pick<ProxyProcess, "metrics">,
  backendName?: string,
): Promise<number> {
  return sum(await proxy.metrics(), "outbound_http_balancer_endpoints", {
    endpoint_state: "ready",
    ...(backendName === undefined ? {} : { backend_name: backendName }),
  });
}
