// Bundled into dist by tsup, so the binary does not read package.json at run time.
import packageJson from "../package.json" with { type: "json" };

export const cliVersion: string = packageJson.version;
