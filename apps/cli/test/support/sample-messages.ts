// Literal messages shaped like the server's (addresses with their labels, identity and hints;
// profiles with routes and refs), shared by renderer tests.
import {
  create,
  DestinationProfileSchema,
  HttpMethod_Registered,
  tcpAddressFromString,
  type Update,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";

export const WEB_IDENTITY = "web.emojivoto.serviceaccount.identity.linkerd.cluster.local";

/** A meshed Deployment pod with an identity and the h2 upgrade hint. */
export const meshedPod: WeightedAddr = create(WeightedAddrSchema, {
  addr: tcpAddressFromString("10.244.0.12:8080"),
  weight: 10000,
  metricLabels: {
    pod: "web-5d9f8c6b7-x2x4p",
    deployment: "web",
    serviceaccount: "web",
    control_plane_ns: "linkerd",
    pod_template_hash: "5d9f8c6b7",
    zone: "zone-a",
    zone_locality: "local",
  },
  tlsIdentity: {
    strategy: { case: "dnsLikeIdentity", value: { name: WEB_IDENTITY } },
    serverName: { name: WEB_IDENTITY },
  },
  protocolHint: { protocol: { case: "h2", value: {} } },
});

/** A StatefulSet pod on an opaque port: opaque protocol through the proxy's inbound port. */
export const opaquePod: WeightedAddr = create(WeightedAddrSchema, {
  addr: tcpAddressFromString("10.244.0.9:3306"),
  weight: 10000,
  metricLabels: {
    pod: "db-0",
    statefulset: "db",
    serviceaccount: "default",
    control_plane_ns: "linkerd",
    zone: "",
    zone_locality: "unknown",
  },
  tlsIdentity: {
    strategy: {
      case: "dnsLikeIdentity",
      value: { name: "default.emojivoto.serviceaccount.identity.linkerd.cluster.local" },
    },
  },
  protocolHint: {
    protocol: { case: "opaque", value: {} },
    opaqueTransport: { inboundPort: 4143 },
  },
});

/** A mirrored gateway address: no pod, an identity without server name, an override. */
export const gatewayAddress: WeightedAddr = create(WeightedAddrSchema, {
  addr: tcpAddressFromString("172.18.0.4:4143"),
  weight: 10000,
  metricLabels: { zone_locality: "unknown" },
  tlsIdentity: {
    strategy: {
      case: "dnsLikeIdentity",
      value: {
        name: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
      },
    },
  },
  protocolHint: { protocol: { case: "h2", value: {} } },
  authorityOverride: { authorityOverride: "web-svc.emojivoto.svc.cluster.local:80" },
});

export function addUpdate(
  addrs: WeightedAddr[],
  metricLabels: Record<string, string> = { namespace: "emojivoto", service: "web-svc" },
): Update {
  return create(UpdateSchema, { update: { case: "add", value: { addrs, metricLabels } } });
}

export function removeUpdate(...endpoints: WeightedAddr[]): Update {
  return create(UpdateSchema, {
    update: {
      case: "remove",
      value: { addrs: endpoints.map((e) => e.addr).filter((a) => a !== undefined) },
    },
  });
}

/** A ServiceProfile with two routes, a custom retry budget and a traffic split. */
export const booksProfile = create(DestinationProfileSchema, {
  fullyQualifiedName: "books.booksapp.svc.cluster.local",
  opaqueProtocol: false,
  routes: [
    {
      condition: {
        match: {
          case: "all",
          value: {
            matches: [
              {
                match: {
                  case: "method",
                  value: { type: { case: "registered", value: HttpMethod_Registered.GET } },
                },
              },
              { match: { case: "path", value: { regex: "/books/[^/]*" } } },
            ],
          },
        },
      },
      responseClasses: [
        {
          condition: { match: { case: "status", value: { min: 500, max: 599 } } },
          isFailure: true,
        },
      ],
      metricsLabels: { route: "GET /books/{id}" },
      isRetryable: true,
      timeout: { seconds: 0n, nanos: 100_000_000 },
    },
    {
      condition: {
        match: {
          case: "any",
          value: {
            matches: [
              {
                match: {
                  case: "method",
                  value: { type: { case: "registered", value: HttpMethod_Registered.POST } },
                },
              },
              {
                match: {
                  case: "method",
                  value: { type: { case: "unregistered", value: "PURGE" } },
                },
              },
            ],
          },
        },
      },
      responseClasses: [],
      metricsLabels: { route: "writes" },
      isRetryable: false,
    },
  ],
  retryBudget: { retryRatio: 0.25, minRetriesPerSecond: 5, ttl: { seconds: 30n, nanos: 0 } },
  dstOverrides: [
    { authority: "books-v1.booksapp.svc.cluster.local:7002", weight: 9000 },
    { authority: "books-v2.booksapp.svc.cluster.local:7002", weight: 1000 },
  ],
  parentRef: {
    kind: {
      case: "resource",
      value: { group: "core", kind: "Service", name: "books", namespace: "booksapp", port: 7002 },
    },
  },
  profileRef: {
    kind: {
      case: "resource",
      value: {
        group: "linkerd.io",
        kind: "ServiceProfile",
        name: "books.booksapp.svc.cluster.local",
        namespace: "booksapp",
      },
    },
  },
});
