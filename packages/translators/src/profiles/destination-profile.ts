import type { Logger, RouteSpec, ServiceProfile } from "@destination/core";
import { GoDurationError, parseGoDuration } from "@destination/go-compat";
import {
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  durationFromNanos,
  MetadataSchema,
  ResourceSchema,
  ResponseClassSchema,
  type RetryBudget,
  RetryBudgetSchema,
  type Route,
  RouteSchema,
} from "@destination/proto";
import { TranslationError } from "../translation-error.js";
import { DEFAULT_SERVICE_PROFILE } from "./default-service-profile.js";
import { toDstOverrides } from "./dst-overrides.js";
import { toRequestMatch } from "./request-match.js";
import { toResponseMatch } from "./response-match.js";
import { defaultRetryBudget } from "./retry-budget.js";
import { boolField, float32Field, listField, stringField, uint32Field } from "./spec-fields.js";

/** The service a GetProfile stream asked about. */
export interface ProfileTarget {
  /** `<svc>.<ns>.svc.<cluster domain>`, without a port. */
  readonly fqn: string;
  readonly service: { readonly namespace: string; readonly name: string };
  /** The port the client asked for. */
  readonly port: number;
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
export function toDestinationProfile(
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
