import type { PartialObjectMetadata } from "@destination/core";
import { PartialObjectMetadataSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { apiVersionOf, type ResourceKindInfo } from "../resource-kind.js";
import { decodeMessage } from "./protobuf-decode.js";
import { readEndpointSlice } from "./protobuf-endpoint-slice.js";
import type { ItemReader } from "./protobuf-list-items.js";
import { emptyObjectMeta, projectObjectMeta } from "./protobuf-object-meta.js";
import { readPod } from "./protobuf-pod.js";
import { readService } from "./protobuf-service.js";

/**
 * The kinds whose lists are asked for in protobuf, and how their items are read: the built-in
 * kinds every start lists. The API server encodes them faster in protobuf than in JSON, and
 * their schemas (proto/) declare only what some watcher reads, so the rest (most of a pod's
 * bytes; a Service's status and settings) is skipped by length. Custom resources have no
 * protobuf form: they stay JSON.
 */
export const PROTOBUF_ITEM_READERS: Readonly<Partial<Record<string, ItemReader>>> = {
  Pod: readPod,
  EndpointSlice: readEndpointSlice,
  Service: readService,
};

/**
 * The item reader of a metadata-only list (`PartialObjectMetadataList`): each item's metadata,
 * without `managedFields`, typed as the resource it describes, as `toObjectMetadata` keeps it.
 */
export function metadataItemReader(
  info: Pick<ResourceKindInfo, "kind" | "group" | "version">,
): ItemReader {
  const apiVersion = apiVersionOf(info);
  return (bytes: Uint8Array): PartialObjectMetadata => {
    const m = decodeMessage(PartialObjectMetadataSchema, bytes);
    const item = {} as PartialObjectMetadata;
    item.apiVersion = apiVersion;
    item.kind = info.kind;
    item.metadata =
      m.metadata === undefined ? emptyObjectMeta() : projectObjectMeta(m.metadata, false);
    return item;
  };
}
