import type { KubeObject, LabelSelector } from "./meta.js";

export interface RequestMatch {
  all?: (RequestMatch | null)[] | null;
  any?: (RequestMatch | null)[] | null;
  not?: RequestMatch | null;
  pathRegex?: string;
  method?: string;
}

export interface ResponseMatch {
  all?: (ResponseMatch | null)[] | null;
  any?: (ResponseMatch | null)[] | null;
  not?: ResponseMatch | null;
  status?: { min?: number; max?: number } | null;
}

export interface ResponseClass {
  condition?: ResponseMatch | null;
  isFailure?: boolean;
}

export interface RouteSpec {
  name: string;
  condition?: RequestMatch | null;
  responseClasses?: (ResponseClass | null)[] | null;
  isRetryable?: boolean;
  timeout?: string;
}

export interface WeightedDst {
  authority: string;
  /** A Kubernetes quantity: a number or a string such as "500m" or "1k". */
  weight: number | string;
}

/** linkerd.io/v1alpha2 ServiceProfile. */
export interface ServiceProfile extends KubeObject {
  spec?: {
    routes?: (RouteSpec | null)[] | null;
    retryBudget?: { retryRatio: number; minRetriesPerSecond: number; ttl: string } | null;
    dstOverrides?: (WeightedDst | null)[] | null;
    opaquePorts?: string[] | null;
  } | null;
}

/** policy.linkerd.io/v1beta3 Server. */
export interface Server extends KubeObject {
  spec?: {
    podSelector?: LabelSelector | null;
    externalWorkloadSelector?: LabelSelector | null;
    /** A port number or a container port name. */
    port?: number | string;
    proxyProtocol?: "unknown" | "HTTP/1" | "HTTP/2" | "gRPC" | "opaque" | "TLS" | string;
    accessPolicy?: string;
  };
}

export interface ExternalWorkloadPort {
  name?: string;
  port: number;
  protocol?: string;
}

/** workload.linkerd.io/v1beta1 ExternalWorkload. */
export interface ExternalWorkload extends KubeObject {
  spec?: {
    meshTLS?: { identity: string; serverName: string } | null;
    ports?: ExternalWorkloadPort[] | null;
    workloadIPs?: { ip: string }[] | null;
  };
  status?: {
    conditions?: { type: string; status: string }[] | null;
  };
}
