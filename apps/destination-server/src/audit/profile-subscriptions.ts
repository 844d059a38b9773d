import type { NamespacedName } from "@destination/core";
import type { WorkloadTarget } from "@destination/pod-watcher";

import { HeldSubscriptions } from "./held-subscriptions.js";

/** A service-profile stream: a Service port, named by an FQN, seen from a token namespace. */
export interface ServiceProfileTarget {
  readonly flow: "service";
  readonly service: NamespacedName;
  readonly fqn: string;
  readonly port: number;
  readonly tokenNamespace: string;
}

/** An endpoint-profile stream: what the workload watcher follows for it. */
export interface EndpointProfileTarget {
  readonly flow: "endpoint";
  readonly target: WorkloadTarget;
}

/** One distinct thing `GetProfile` streams hold, and how many streams hold it. */
export type ProfileSubscription = (ServiceProfileTarget | EndpointProfileTarget) & {
  /** The path as the first stream asked for it, for logs. */
  readonly authority: string;
  readonly streams: number;
};

/**
 * The `GetProfile` subscriptions open now, counted by stream; the handler adds and removes, the
 * self-audit reads. A port the Service does not define is not here: its stream holds one empty
 * profile for good, whatever the cluster says (README "Service-profile flow").
 */
export class ProfileSubscriptions extends HeldSubscriptions<
  (ServiceProfileTarget | EndpointProfileTarget) & { readonly authority: string }
> {
  constructor() {
    super(profileSubscriptionId);
  }
}

function profileSubscriptionId(s: ServiceProfileTarget | EndpointProfileTarget): string {
  if (s.flow === "service") {
    return ["service", s.service.namespace, s.service.name, s.fqn, s.port, s.tokenNamespace].join(
      "\u0000",
    );
  }
  const t = s.target;
  return [
    "endpoint",
    t.ip,
    t.port,
    t.hostname ?? "",
    t.service?.namespace ?? "",
    t.service?.name ?? "",
  ].join("\u0000");
}
