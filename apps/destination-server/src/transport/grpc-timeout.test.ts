import { describe, expect, it } from "vitest";
import { parseGrpcTimeout } from "./grpc-timeout.js";

describe("parseGrpcTimeout", () => {
  it("reads every unit in milliseconds", () => {
    expect(parseGrpcTimeout("2H")).toBe(7_200_000);
    expect(parseGrpcTimeout("3M")).toBe(180_000);
    expect(parseGrpcTimeout("5S")).toBe(5000);
    expect(parseGrpcTimeout("250m")).toBe(250);
    expect(parseGrpcTimeout("1500u")).toBe(1.5);
    expect(parseGrpcTimeout("99999999n")).toBeCloseTo(99.999999);
  });

  it("is undefined without a header and malformed beyond eight digits or without a unit", () => {
    expect(parseGrpcTimeout(undefined)).toBeUndefined();
    for (const value of ["123456789S", "10", "S", "1.5S", "-1S", "10s ", ""]) {
      expect(parseGrpcTimeout(value), value).toBe("malformed");
    }
  });
});
