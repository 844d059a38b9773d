// ServiceProfile → DestinationProfile: the last stage of a service-profile stream
// (`ProfileTranslator`) and everything it translates: routes, retry budget, traffic splits, the
// default profile, and the empty profile of a port the Service does not define. Conditions are in
// conditions.ts, the reading of untyped fields in spec-fields.ts.
import { type Logger, type RouteSpec, type ServiceProfile, silentLogger } from "@destination/core";
import {
  GoDurationError,
  joinHostPort,
  parseGoDuration,
  QuantityError,
  quantityToWeight,
  splitHostPort,
} from "@destination/go-compat";
import {
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  DurationSchema,
  durationFromNanos,
  MetadataSchema,
  ResourceSchema,
  ResponseClassSchema,
  type RetryBudget,
  RetryBudgetSchema,
  type Route,
  RouteSchema,
  type WeightedDst,
  WeightedDstSchema,
} from "@destination/proto";
import {
  type MessageSink,
  type TranslationCounter,
  TranslationError,
  uncountedTranslations,
} from "../contracts.js";
import { toRequestMatch, toResponseMatch } from "./conditions.js";
import { boolField, float32Field, listField, stringField, uint32Field } from "./spec-fields.js";

/** The service a GetProfile stream asked about. */
export interface ProfileTarget {
  /** `<svc>.<ns>.svc.<cluster domain>`, without a port. */
  readonly fqn: string;
  readonly service: { readonly namespace: string; readonly name: string };
  /** The port the client asked for. */
  readonly port: number;
}

/** Receives a profile together with the Service's opaque ports (undefined until known). */
export interface OpaqueProfileListener {
  update(profile: ServiceProfile, opaquePorts: ReadonlySet<number> | undefined): void;
}

/**
 * The last stage of a service-profile stream: each profile, with the Service's opaque ports,
 * becomes one `DestinationProfile` in the sink. An invalid profile is logged and nothing is sent,
 * so a stream whose first profile is invalid stays silent, as upstream's does.
 */
export class ProfileTranslator implements OpaqueProfileListener {
  constructor(
    private readonly target: ProfileTarget,
    private readonly sink: MessageSink<DestinationProfile>,
    private readonly logger: Logger = silentLogger,
    private readonly counter: TranslationCounter = uncountedTranslations,
  ) {}

  update(profile: ServiceProfile, opaquePorts: ReadonlySet<number> | undefined): void {
    let message: DestinationProfile;
    try {
      this.counter.translated("profile");
      message = toDestinationProfile(profile, this.target, opaquePorts, this.logger);
    } catch (err) {
      this.logger.error("invalid ServiceProfile, no profile update sent", {
        profile: profile.metadata.name,
        namespace: profile.metadata.namespace,
        fqn: this.target.fqn,
        port: this.target.port,
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    try {
      // A refusal needs no handling here: the server ends the stream.
      this.sink.send(message);
    } catch (err) {
      this.logger.error("failed to enqueue a profile update", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

/** A Go duration for the wire; zero means "not set" and becomes absent. */
function durationOrAbsent(nanos: bigint) {
  return nanos === 0n ? undefined : durationFromNanos(nanos);
}

function toRoute(route: RouteSpec, profile: ServiceProfile, logger: Logger): Route {
  const name = stringField(route.name, "route name");
  const condition = toRequestMatch(route.condition);
  const responseClasses = listField(route.responseClasses, "responseClasses").map((rc) => {
    // Upstream crashes on a null entry; here the profile is invalid instead.
    if (rc == null) throw new TranslationError(`route "${name}" has a null response class`);
    return create(ResponseClassSchema, {
      condition: toResponseMatch(rc.condition),
      isFailure: boolField(rc.isFailure, "isFailure"),
    });
  });
  let timeout: bigint = 0n;
  const timeoutText = stringField(route.timeout, "timeout");
  if (timeoutText !== "") {
    try {
      timeout = parseGoDuration(timeoutText);
    } catch (err) {
      if (!(err instanceof GoDurationError)) throw err;
      // A bad timeout only loses the timeout; the route still matters for metrics and retries.
      logger.error("route timeout ignored", {
        route: name,
        profile: profile.metadata.name,
        namespace: profile.metadata.namespace,
        error: err.message,
      });
    }
  }
  return create(RouteSchema, {
    condition,
    responseClasses,
    metricsLabels: { route: name },
    isRetryable: boolField(route.isRetryable, "isRetryable"),
    timeout: durationOrAbsent(timeout),
  });
}

function toRetryBudget(spec: NonNullable<ServiceProfile["spec"]>["retryBudget"]): RetryBudget {
  if (spec == null) return defaultRetryBudget();
  const ttlText = stringField(spec.ttl, "retryBudget.ttl");
  let ttl: bigint;
  try {
    ttl = parseGoDuration(ttlText);
  } catch (err) {
    if (err instanceof GoDurationError)
      throw new TranslationError(`retryBudget.ttl: ${err.message}`);
    throw err;
  }
  return create(RetryBudgetSchema, {
    retryRatio: float32Field(spec.retryRatio, "retryBudget.retryRatio"),
    minRetriesPerSecond: uint32Field(spec.minRetriesPerSecond, "retryBudget.minRetriesPerSecond"),
    ttl: durationOrAbsent(ttl),
  });
}

/**
 * ServiceProfile → DestinationProfile (see README "Service profiles"). `opaquePorts` is the
 * Service's current set (annotation or defaults), which replaces whatever the CRD says; undefined
 * while the set is not known yet. The default profile goes through the same code, which is why it
 * carries a `profile_ref` holding only the group, as upstream's does.
 * @throws TranslationError (or any error from a malformed object): the profile is not sent
 */
function toDestinationProfile(
  profile: ServiceProfile,
  target: ProfileTarget,
  opaquePorts: ReadonlySet<number> | undefined,
  logger: Logger,
): DestinationProfile {
  const spec = profile.spec ?? {};
  const routes = listField(spec.routes, "routes").map((route, i) => {
    // Upstream crashes on a null route; here the profile is invalid instead.
    if (route == null) throw new TranslationError(`routes[${i}] is null`);
    return toRoute(route, profile, logger);
  });
  const isDefault = profile === DEFAULT_SERVICE_PROFILE;
  return create(DestinationProfileSchema, {
    fullyQualifiedName: target.fqn,
    opaqueProtocol: opaquePorts?.has(target.port) ?? false,
    routes,
    retryBudget: toRetryBudget(spec.retryBudget),
    dstOverrides: toDstOverrides(spec.dstOverrides, target.port),
    parentRef: create(MetadataSchema, {
      kind: {
        case: "resource",
        value: create(ResourceSchema, {
          group: "core",
          kind: "Service",
          name: target.service.name,
          namespace: target.service.namespace,
          port: target.port,
        }),
      },
    }),
    profileRef: create(MetadataSchema, {
      kind: {
        case: "resource",
        value: create(ResourceSchema, {
          group: "linkerd.io",
          // Upstream copies the object's kind, which Go informers may leave empty; a real
          // profile always says ServiceProfile here.
          kind: isDefault ? "" : "ServiceProfile",
          name: profile.metadata.name,
          namespace: profile.metadata.namespace ?? "",
        }),
      },
    }),
  });
}

/**
 * What a service-profile stream uses while no ServiceProfile exists: empty metadata and spec.
 * It is one frozen object so that the dedup stage recognises a repeated default by identity, and
 * so that the translator can tell it from a real profile. See README "The default profile".
 */
export const DEFAULT_SERVICE_PROFILE: ServiceProfile = Object.freeze({
  metadata: Object.freeze({ name: "" }),
  spec: Object.freeze({}),
});

/**
 * The one message of a GetProfile on a port the Service does not define: a completely empty
 * `DestinationProfile`, which tells the proxy to use the policy API instead. The stream then
 * stays silent until it ends, even if the port is added later, as upstream's does.
 */
export function portNotDefinedProfile(): DestinationProfile {
  return create(DestinationProfileSchema);
}

/**
 * What a proxy uses when no ServiceProfile sets a budget: retries may add 20% to the request
 * rate, at least 10 per second, measured over 10 seconds.
 */
export function defaultRetryBudget(): RetryBudget {
  return create(RetryBudgetSchema, {
    retryRatio: 0.2,
    minRetriesPerSecond: 10,
    ttl: create(DurationSchema, { seconds: 10n }),
  });
}

type DstOverrideSpecs = NonNullable<ServiceProfile["spec"]>["dstOverrides"];

/**
 * Traffic-split backends (README "Traffic splits"): authorities completed with the requested
 * port, weights in decimilli. `backend_ref` is never set.
 * @throws TranslationError for a null entry or a weight that is not a quantity
 */
function toDstOverrides(overrides: DstOverrideSpecs, port: number): WeightedDst[] {
  return listField(overrides, "dstOverrides").map((dst, i) => {
    // Upstream crashes on a null entry; here, as for a null route, it fails the profile.
    if (dst == null) throw new TranslationError(`dstOverrides[${i}] is null`);
    const authority = completeAuthority(stringField(dst.authority, "dstOverrides.authority"), port);
    let weight = 0;
    if (dst.weight != null) {
      try {
        weight = quantityToWeight(dst.weight);
      } catch (err) {
        if (err instanceof QuantityError) throw new TranslationError(err.message);
        throw err;
      }
    }
    return create(WeightedDstSchema, { authority, weight });
  });
}

/**
 * A traffic-split authority as the proxy needs it: kept as written when it already splits into
 * host and port (the port text itself is not checked, so `foo:bar` stays), otherwise completed
 * with the requested port (an IPv6-looking host bracketed). See README "Traffic splits".
 */
export function completeAuthority(authority: string, port: number): string {
  if (typeof splitHostPort(authority) !== "string") return authority;
  return joinHostPort(authority, port);
}
