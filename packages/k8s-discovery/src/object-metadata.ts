import type { KubeObject, PartialObjectMetadata } from "@destination/core";
import { apiVersionOf, type ResourceKindInfo } from "./resource-kind.js";

/**
 * What a metadata-only cache keeps of an object: its metadata without
 * `managedFields`, typed as the resource it describes rather than as `PartialObjectMetadata`,
 * whether the server sent metadata or a full object.
 */
export function toObjectMetadata(
  obj: KubeObject,
  info: Pick<ResourceKindInfo, "kind" | "group" | "version">,
): PartialObjectMetadata {
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { apiVersion: apiVersionOf(info), kind: info.kind, metadata };
}
