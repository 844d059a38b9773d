/**
 * One copy of the short strings that repeat from object to object (label values, namespaces,
 * owners, container and env names, node names): the decoder gives every object strings of its
 * own, and the store would keep thousands of copies of each. A string seen recently comes back
 * as the copy kept for it, so the decoded one dies young. Keys of decoded maps need none of
 * this: V8 keeps one copy of every property name.
 */
export function shared(text: string): string {
  if (text.length > MAX_SHARED_LENGTH) return text;
  const kept = RECENT.get(text);
  if (kept !== undefined) return kept;
  // Bounded: emptied when full, so that what repeats now is what is kept.
  if (RECENT.size === MAX_SHARED_STRINGS) RECENT.clear();
  RECENT.set(text, text);
  return text;
}

/** Makes the values of a decoded map shared copies, in place. */
export function shareValues(map: Record<string, string>): Record<string, string> {
  for (const key in map) map[key] = shared(map[key] as string);
  return map;
}

const MAX_SHARED_LENGTH = 64;
const MAX_SHARED_STRINGS = 4096;
const RECENT = new Map<string, string>();
