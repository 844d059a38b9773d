import { describe, expect, it } from "vitest";
import { parseListenAddress } from "./server-flag.js";

describe("parseListenAddress", () => {
  it("keeps an empty host (every interface), brackets off IPv6 hosts", () => {
    expect(parseListenAddress(":9996")).toEqual({ host: "", port: 9996 });
    expect(parseListenAddress("127.0.0.1:0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(parseListenAddress("[::1]:8086")).toEqual({ host: "::1", port: 8086 });
  });

  it("rejects what net.SplitHostPort rejects, and ports that are not 0..65535", () => {
    expect(() => parseListenAddress("nope")).toThrow("address nope: missing port in address");
    expect(() => parseListenAddress("::1:80")).toThrow(
      "address ::1:80: too many colons in address",
    );
    expect(() => parseListenAddress(":70000")).toThrow("address :70000: invalid port");
    expect(() => parseListenAddress(":+80")).toThrow("address :+80: invalid port");
  });
});
