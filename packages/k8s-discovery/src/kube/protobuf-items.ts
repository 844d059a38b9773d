import type { PartialObjectMetadata } from "@destination/core";
import { apiVersionOf, type ResourceKindInfo } from "../resource-kind.js";
import { readEndpointSlice } from "./protobuf-endpoint-slice.js";
import type { ItemReader } from "./protobuf-list-items.js";
import { emptyObjectMeta, readObjectMeta } from "./protobuf-object-meta.js";
import { readPod } from "./protobuf-pod.js";
import type { ProtobufReader } from "./protobuf-reader.js";
import { readService } from "./protobuf-service.js";

/**
 * The kinds whose lists are asked for in protobuf, and how their items are read: the built-in
 * kinds every start lists. The API server encodes them faster in protobuf than in JSON, and
 * reading them skips what no watcher reads without decoding it (most of a pod's bytes; a
 * Service's status and settings). Custom resources have no protobuf form: they stay JSON.
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
  return (r: ProtobufReader): PartialObjectMetadata => {
    const item = {} as PartialObjectMetadata;
    item.apiVersion = apiVersion;
    item.kind = info.kind;
    item.metadata = emptyObjectMeta();
    while (!r.done) {
      const tag = r.varint();
      if (tag === 10) item.metadata = readObjectMeta(r.message(), false);
      else r.skip(tag);
    }
    return item;
  };
}
