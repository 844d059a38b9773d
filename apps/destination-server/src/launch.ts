/**
 * What `bin/destination-server.js` runs: the server bundle (`dist/server.cjs`), compiled with the
 * code cache the build wrote beside it (`dist/server.cjs.cache`, see `scripts/write-code-cache.mjs`).
 * With `DESTINATION_WRITE_CODE_CACHE=1` it writes that cache as the process exits, from what
 * this run compiled: the build's warm-up run does that.
 */
import { fileURLToPath } from "node:url";
import { recordCodeCacheOutcome } from "./launch/code-cache-outcome.js";
import { compileWithCodeCache } from "./launch/code-cached-script.js";

const bundle = fileURLToPath(new URL("./server.cjs", import.meta.url));
const script = compileWithCodeCache(bundle, `${bundle}.cache`);
recordCodeCacheOutcome(script.outcome);
if (process.env.DESTINATION_WRITE_CODE_CACHE === "1") {
  process.once("exit", () => script.writeCache());
}
script.run();
