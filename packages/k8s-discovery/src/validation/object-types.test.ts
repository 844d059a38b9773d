import type {
  EndpointSlice,
  Endpoints,
  ExternalWorkload,
  Node,
  PartialObjectMetadata,
  Pod,
  Server,
  Service,
  ServiceProfile,
} from "@destination/core";
import type * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import type { OBJECT_SCHEMAS } from "./object-schemas.js";

// core's object types (dependency-free, so they cannot be inferred from valibot) are proven
// equal to what the schemas check: `tsc` (the package's typecheck) fails on a field declared in
// one and not the other, or with another type.

/**
 * A type as the two sides are compared: deeply, with `null` left out of optional fields. The
 * schemas accept the API server's explicit `null` for every unset field; core's types write
 * `| null` only where a reader must handle it, and `?:` alone where `??` and `?.` cover both.
 */
type Shape<T> = T extends readonly (infer E)[]
  ? Shape<E>[]
  : T extends object
    ? {
        [K in keyof T]: Record<never, never> extends Pick<T, K>
          ? Shape<Exclude<T[K], null | undefined>>
          : Shape<T[K]>;
      }
    : T;

/**
 * A ServiceProfile's routes, retry budget and overrides: typed in core for the profile
 * translator, which checks them field by field as upstream's decoding does; the schema checks
 * only that they are there as lists or an object. Their keys are still compared.
 */
type TranslatorChecked = "routes" | "retryBudget" | "dstOverrides";
type ProfileSpec<T extends { spec?: unknown }> = Omit<NonNullable<T["spec"]>, TranslatorChecked>;

type Output<K extends keyof typeof OBJECT_SCHEMAS> = Shape<
  v.InferOutput<(typeof OBJECT_SCHEMAS)[K]>
>;

describe("core's object types", () => {
  it("are what the schemas check", () => {
    expectTypeOf<Shape<Service>>().toEqualTypeOf<Output<"Service">>();
    expectTypeOf<Shape<Pod>>().toEqualTypeOf<Output<"Pod">>();
    expectTypeOf<Shape<EndpointSlice>>().toEqualTypeOf<Output<"EndpointSlice">>();
    expectTypeOf<Shape<Endpoints>>().toEqualTypeOf<Output<"Endpoints">>();
    expectTypeOf<Shape<Server>>().toEqualTypeOf<Output<"Server">>();
    expectTypeOf<Shape<ExternalWorkload>>().toEqualTypeOf<Output<"ExternalWorkload">>();
    type Profile = Output<"ServiceProfile">;
    expectTypeOf<Shape<Omit<ServiceProfile, "spec">>>().toEqualTypeOf<Omit<Profile, "spec">>();
    expectTypeOf<Shape<ProfileSpec<ServiceProfile>>>().toEqualTypeOf<ProfileSpec<Profile>>();
    expectTypeOf<keyof NonNullable<ServiceProfile["spec"]>>().toEqualTypeOf<
      keyof NonNullable<Profile["spec"]>
    >();
    expectTypeOf<Shape<Node>>().toEqualTypeOf<Output<"Node">>();
    expectTypeOf<Shape<PartialObjectMetadata>>().toEqualTypeOf<Output<"ReplicaSet">>();
  });
});
