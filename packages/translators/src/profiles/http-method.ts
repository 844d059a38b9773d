import {
  create,
  type HttpMethod,
  HttpMethod_Registered,
  HttpMethodSchema,
} from "@destination/proto";

const REGISTERED: ReadonlyMap<string, HttpMethod_Registered> = new Map([
  ["GET", HttpMethod_Registered.GET],
  ["POST", HttpMethod_Registered.POST],
  ["PUT", HttpMethod_Registered.PUT],
  ["DELETE", HttpMethod_Registered.DELETE],
  ["PATCH", HttpMethod_Registered.PATCH],
  ["OPTIONS", HttpMethod_Registered.OPTIONS],
  ["CONNECT", HttpMethod_Registered.CONNECT],
  ["HEAD", HttpMethod_Registered.HEAD],
  ["TRACE", HttpMethod_Registered.TRACE],
]);

/**
 * Upper-cases one code point at a time and keeps a character whose upper case is longer (`ß`
 * stays `ß`), as Go's strings.ToUpper does; String#toUpperCase would write `SS`.
 */
function goToUpper(text: string): string {
  let out = "";
  for (const ch of text) {
    const upper = ch.toUpperCase();
    out += [...upper].length === 1 ? upper : ch;
  }
  return out;
}

/** A ServiceProfile `method` as the proxy matches it: one of the nine known methods, or text. */
export function toHttpMethod(method: string): HttpMethod {
  const upper = goToUpper(method);
  const registered = REGISTERED.get(upper);
  return create(HttpMethodSchema, {
    type:
      registered === undefined
        ? { case: "unregistered", value: upper }
        : { case: "registered", value: registered },
  });
}
