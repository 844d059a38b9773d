// Route conditions in one line: `GET /books/[^/]*`, `any(POST, PUT)`, `status 500-599`.
import {
  type HttpMethod,
  HttpMethod_Registered,
  type HttpStatusRange,
  type RequestMatch,
  type ResponseMatch,
} from "@destination/proto";

function methodText(method: HttpMethod): string {
  switch (method.type.case) {
    case "registered":
      return HttpMethod_Registered[method.type.value] ?? `method ${method.type.value}`;
    case "unregistered":
      return method.type.value;
    default:
      return "method ?";
  }
}

export function requestMatchText(match: RequestMatch | undefined): string {
  switch (match?.match.case) {
    case "path":
      return match.match.value.regex === "" ? 'path ""' : match.match.value.regex;
    case "method":
      return methodText(match.match.value);
    case "not":
      return `not(${requestMatchText(match.match.value)})`;
    case "all": {
      const children = match.match.value.matches;
      // The common `{method, pathRegex}` condition reads best as an HTTP request line.
      const leaves = children.every((c) => c.match.case === "method" || c.match.case === "path");
      const texts = children.map(requestMatchText);
      return leaves && texts.length > 0 ? texts.join(" ") : `all(${texts.join(", ")})`;
    }
    case "any":
      return `any(${match.match.value.matches.map(requestMatchText).join(", ")})`;
    default:
      return "(no condition)";
  }
}

function statusText({ min, max }: HttpStatusRange): string {
  if (min === 0 && max === 0) return "any status";
  if (max === 0) return `status >=${min}`;
  if (min === 0) return `status <=${max}`;
  return min === max ? `status ${min}` : `status ${min}-${max}`;
}

export function responseMatchText(match: ResponseMatch | undefined): string {
  switch (match?.match.case) {
    case "status":
      return statusText(match.match.value);
    case "not":
      return `not(${responseMatchText(match.match.value)})`;
    case "all":
      return `all(${match.match.value.matches.map(responseMatchText).join(", ")})`;
    case "any":
      return `any(${match.match.value.matches.map(responseMatchText).join(", ")})`;
    default:
      return "(no condition)";
  }
}
