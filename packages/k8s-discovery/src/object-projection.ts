import type { KubeObject } from "@destination/core";
import { RESOURCE_KINDS, type ResourceKind } from "./resource-kind.js";
import { ANY_OBJECT_SCHEMA, OBJECT_SCHEMAS } from "./validation/object-schemas.js";
import { projectBySchema } from "./validation/schema-projection.js";

/**
 * What the cache keeps of an object from the API server, as its kind's schema says
 * (validation/object-schemas.ts): of `managedFields` (about a third of a pod's JSON) only the
 * latest `Update` time, which informer lag is measured from; of a Pod or a Service only the
 * fields its schema names, which are all that any watcher reads (a real pod's spec and status
 * also carry volumes, probes, resources, conditions and container statuses); other objects as
 * they came.
 */
export function projectObject<T extends KubeObject>(obj: T): T {
  const kind = obj.kind;
  const schema =
    kind !== undefined && Object.hasOwn(RESOURCE_KINDS, kind)
      ? OBJECT_SCHEMAS[kind as ResourceKind]
      : ANY_OBJECT_SCHEMA;
  return projectBySchema(schema, obj) as T;
}
