import { create, type DestinationProfile, DestinationProfileSchema } from "@destination/proto";

/**
 * The one message of a GetProfile on a port the Service does not define: a completely empty
 * `DestinationProfile`, which tells the proxy to use the policy API instead. The stream then
 * stays silent until it ends, even if the port is added later, as upstream's does.
 */
export function portNotDefinedProfile(): DestinationProfile {
  return create(DestinationProfileSchema);
}
