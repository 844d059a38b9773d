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
