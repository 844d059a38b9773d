#!/usr/bin/env node
// Builds (first run) or finds (later runs) the pinned grpcurl used by the reflection tests, then
// prints its path. Env: GRPCURL_CACHE_DIR.
import { ensureGrpcurl } from "./grpcurl.mjs";

try {
  process.stdout.write(`grpcurl: ${await ensureGrpcurl()}\n`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
