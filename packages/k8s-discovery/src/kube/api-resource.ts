import type { ResourceKindInfo } from "../resource-kind.js";

/** What it takes to address a resource on the API server. */
export type ApiResource = Pick<ResourceKindInfo, "kind" | "group" | "version" | "plural">;

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(resource: Pick<ApiResource, "group" | "version">): string {
  return resource.group === ""
    ? `/api/${resource.version}`
    : `/apis/${resource.group}/${resource.version}`;
}

/** The collection: cluster-wide without a namespace. */
export function collectionPath(resource: ApiResource, namespace?: string): string {
  const scope = namespace === undefined ? "" : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${groupVersionPath(resource)}${scope}/${resource.plural}`;
}

export function objectPath(resource: ApiResource, namespace: string, name: string): string {
  return `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}`;
}

/** The media type of the API server's protobuf encoding. */
export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
/** The 4 bytes before every protobuf body of the API server: "k8s\0". */
export const PROTOBUF_MAGIC: Readonly<Buffer> = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.startsWith(PROTOBUF_MEDIA_TYPE) === true;
}

/** Content types of metadata-only reads: a list, and one watched object. */
export const METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/** A metadata-only list as protobuf, JSON from a server without it. */
export const PROTOBUF_METADATA_LIST_ACCEPT = `${PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, ${METADATA_LIST_ACCEPT}`;
export const METADATA_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
/** A metadata-only watch as protobuf, JSON from a server without it. */
export const PROTOBUF_METADATA_ACCEPT = `${PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, ${METADATA_ACCEPT}`;
