import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname } from "node:path";
import { Script } from "node:vm";

/**
 * What became of the code cache when a script was compiled:
 * - `used`: V8 took it; the functions it holds were not compiled again;
 * - `absent`: there was no cache file;
 * - `stale`: the file was made for other source code (or is not a cache file);
 * - `rejected`: made for this source, but V8 refused it (another V8 version or other V8 flags).
 * Whatever the outcome, the script runs: a cache only saves compiling.
 */
export type CodeCacheOutcome = "used" | "absent" | "stale" | "rejected";

/** A CommonJS file compiled as a script with its code cache, ready to run. */
export interface CodeCachedScript {
  readonly outcome: CodeCacheOutcome;
  /** Runs the file as `require` would: its own `module`, `exports` and `require`. */
  run(): void;
  /**
   * Writes a cache of what V8 has compiled of this script so far, for the next start; the file
   * is replaced whole (written beside it, then renamed), so a reader never sees half of it.
   */
  writeCache(): void;
}

// A cache file is the SHA-256 of the source it was made from, then V8's data. V8 checks its own
// version and flags but recognises the source only by its length, so a cache of an edited file of
// the same length would be taken: the digest is what ties the two together.
const DIGEST_BYTES = 32;

/**
 * Compiles the CommonJS file `file` with the code cache at `cacheFile`, when there is one made
 * for this file's exact contents. Node 20 has no code cache for ES modules, and compiling a large
 * bundle and the functions a start runs is a good part of a start's CPU.
 *
 * The file may not use `import()`: a script has no module loader of its own for it (Node's
 * experimental one warns on every start and is lost when the script comes from a cache). The
 * server bundle is built with its dynamic imports turned into `require()`.
 */
export function compileWithCodeCache(file: string, cacheFile: string): CodeCachedScript {
  const source = readFileSync(file, "utf8");
  const digest = createHash("sha256").update(source).digest();
  const cached = readCache(cacheFile, digest);
  const script = new Script(Module.wrap(source), {
    filename: file,
    ...(typeof cached === "string" ? {} : { cachedData: cached }),
  });
  const outcome: CodeCacheOutcome =
    typeof cached === "string" ? cached : script.cachedDataRejected ? "rejected" : "used";
  return {
    outcome,
    run() {
      const wrapper = script.runInThisContext() as (
        exports: unknown,
        require: NodeJS.Require,
        module: { exports: unknown },
        filename: string,
        dirname: string,
      ) => void;
      const module = { exports: {} };
      wrapper.call(
        module.exports,
        module.exports,
        createRequire(file),
        module,
        file,
        dirname(file),
      );
    },
    writeCache() {
      const partial = `${cacheFile}.${process.pid}.partial`;
      writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]));
      renameSync(partial, cacheFile);
    },
  };
}

/** V8's data from the cache file, when the file is there and made for the source of `digest`. */
function readCache(cacheFile: string, digest: Buffer): Buffer | "absent" | "stale" {
  let bytes: Buffer;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return "absent";
  }
  if (bytes.length <= DIGEST_BYTES || !bytes.subarray(0, DIGEST_BYTES).equals(digest)) {
    return "stale";
  }
  return bytes.subarray(DIGEST_BYTES);
}
