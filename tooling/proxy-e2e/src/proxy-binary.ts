// Where the linkerd2-proxy binary is: LINKERD2_PROXY_BIN, or a clear failure saying how to get one.
import { accessSync, constants } from "node:fs";

export const PROXY_BIN_ENV = "LINKERD2_PROXY_BIN";

export function proxyBinary(): string {
  const path = process.env[PROXY_BIN_ENV];
  const howTo =
    `Set ${PROXY_BIN_ENV} to a linkerd2-proxy binary built at tag release/v2.366.0; ` +
    'the README\'s Contributing section ("The real proxy") says how to build one.';
  if (path === undefined || path === "") throw new Error(`${PROXY_BIN_ENV} is not set. ${howTo}`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(`${PROXY_BIN_ENV}=${path} is not an executable file. ${howTo}`);
  }
  return path;
}
