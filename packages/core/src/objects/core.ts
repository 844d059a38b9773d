import type { KubeObject, PartialObjectMetadata } from "./meta.js";

export interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface Service extends KubeObject {
  spec?: {
    type?: "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName" | string;
    clusterIP?: string;
    clusterIPs?: string[] | null;
    ports?: ServicePort[] | null;
    selector?: Record<string, string> | null;
    externalName?: string;
    internalTrafficPolicy?: "Cluster" | "Local" | string;
    ipFamilies?: string[] | null;
  };
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

export interface Container {
  name?: string;
  ports?: ContainerPort[] | null;
  env?: { name: string; value?: string }[] | null;
}

export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    hostNetwork?: boolean;
    hostname?: string;
    subdomain?: string;
    serviceAccountName?: string;
    containers?: Container[] | null;
    initContainers?: Container[] | null;
  };
  status?: {
    phase?: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown" | string;
    podIP?: string;
    podIPs?: { ip: string }[] | null;
    hostIP?: string;
    hostIPs?: { ip: string }[] | null;
  };
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference | null;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[] | null;
  notReadyAddresses?: EndpointAddress[] | null;
  ports?: EndpointPort[] | null;
}

/** core/v1 Endpoints, read only in Endpoints mode (`--enable-endpoint-slices=false`). */
export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[] | null;
}

/** A Node as its metadata-only cache holds it; the zone label is all that is read. */
export type Node = PartialObjectMetadata;

/**
 * core/v1 Secret. Not cached by the local cluster; multicluster reads the link Secrets of the
 * controller namespace (those of type `mirror.linkerd.io/remote-kubeconfig`) through
 * `KubeCluster.watchNamespaced`.
 */
export interface Secret extends KubeObject {
  type?: string;
  /** Values are base64, as the API sends them. */
  data?: Record<string, string> | null;
}
