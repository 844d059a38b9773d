import { createRequire } from "node:module";

// Read from the package manifest, one folder up from both src/ and dist/.
const manifest = createRequire(import.meta.url)("../package.json") as { version: string };

/** The version `--version` prints. */
export const VERSION: string = manifest.version;
