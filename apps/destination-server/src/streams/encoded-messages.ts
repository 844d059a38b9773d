import {
  type DestinationProfile,
  encodeDestinationProfile,
  encodeUpdateFrame,
  type Update,
} from "@destination/proto";
import { frameMessage } from "../transport/message-frames.js";

// The endpoint translators hand every stream of one filter group the same Update object, so
// encoding and framing once per object (not per stream) is what keeps a fan-out to thousands of
// streams cheap: every stream writes the same bytes. Weak keys: an entry lives exactly as long as
// some queue still holds the message.
const updates = new WeakMap<Update, Uint8Array>();
const profiles = new WeakMap<DestinationProfile, Uint8Array>();

/** The framed message of an Update, for every stream that sends it. */
export function encodedUpdate(update: Update): Uint8Array {
  let bytes = updates.get(update);
  if (bytes === undefined) {
    bytes = encodeUpdateFrame(update);
    updates.set(update, bytes);
  }
  return bytes;
}

/** The framed message of a DestinationProfile, for every stream that sends it. */
export function encodedProfile(profile: DestinationProfile): Uint8Array {
  let bytes = profiles.get(profile);
  if (bytes === undefined) {
    bytes = frameMessage(encodeDestinationProfile(profile));
    profiles.set(profile, bytes);
  }
  return bytes;
}
