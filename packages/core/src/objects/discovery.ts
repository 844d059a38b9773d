import type { ObjectReference } from "./core.js";
import type { KubeObject } from "./meta.js";

export interface EndpointConditions {
  ready?: boolean | null;
  serving?: boolean | null;
  terminating?: boolean | null;
}

export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions | null;
  hostname?: string | null;
  targetRef?: ObjectReference | null;
  nodeName?: string | null;
  zone?: string | null;
  hints?: { forZones?: { name: string }[] | null } | null;
}

export interface EndpointSlicePort {
  name?: string | null;
  port?: number | null;
  protocol?: string | null;
  appProtocol?: string | null;
}

/** discovery.k8s.io/v1 EndpointSlice. */
export interface EndpointSlice extends KubeObject {
  addressType: "IPv4" | "IPv6" | "FQDN" | string;
  endpoints?: Endpoint[] | null;
  ports?: EndpointSlicePort[] | null;
}
