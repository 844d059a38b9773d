import {
  type DestinationProfile,
  encodeDestinationProfile,
  encodeUpdate,
  type Update,
} from "@destination/proto";

// The endpoint translators hand every stream of one filter group the same Update object, so
// encoding once per object (not per stream) is what keeps a fan-out to thousands of streams
// cheap: every stream writes the same bytes, which the service definition's serializer passes
// through to grpc-js as they are. Weak keys: an entry lives exactly as long as some queue still
// holds the message.
const updates = new WeakMap<Update, Uint8Array>();
const profiles = new WeakMap<DestinationProfile, Uint8Array>();

/** The encoded Update, for every stream that sends it. */
export function encodedUpdate(update: Update): Uint8Array {
  let bytes = updates.get(update);
  if (bytes === undefined) {
    bytes = encodeUpdate(update);
    updates.set(update, bytes);
  }
  return bytes;
}

/** The encoded DestinationProfile, for every stream that sends it. */
export function encodedProfile(profile: DestinationProfile): Uint8Array {
  let bytes = profiles.get(profile);
  if (bytes === undefined) {
    bytes = encodeDestinationProfile(profile);
    profiles.set(profile, bytes);
  }
  return bytes;
}
