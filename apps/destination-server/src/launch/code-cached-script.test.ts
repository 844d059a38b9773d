import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileWithCodeCache } from "./code-cached-script.js";

let dir: string;
let file: string;
let cacheFile: string;
/** What the scripts below report, keyed by run. */
const RESULTS = Symbol.for("destination.codeCachedScript.test");
const results = () => (globalThis as Record<symbol, unknown[]>)[RESULTS] as unknown[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "destination-code-cache-"));
  file = join(dir, "bundle.cjs");
  cacheFile = `${file}.cache`;
  (globalThis as Record<symbol, unknown[]>)[RESULTS] = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A CommonJS file that uses what a bundle does: require, module, __dirname. */
function bundleSource(tag: string): string {
  return `
    const { join } = require("node:path");
    const helper = require("./helper.cjs");
    module.exports = { tag: ${JSON.stringify(tag)} };
    const results = globalThis[Symbol.for("destination.codeCachedScript.test")];
    function work(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
    results.push({ tag: module.exports.tag, helper: helper(), dir: join(__dirname, "x"), file: __filename, sum: work(10) });
  `;
}

async function writeBundle(tag: string): Promise<void> {
  await writeFile(join(dir, "helper.cjs"), "module.exports = () => 'helped';");
  await writeFile(file, bundleSource(tag));
}

async function runOnce(): Promise<string> {
  const script = compileWithCodeCache(file, cacheFile);
  script.run();
  return script.outcome;
}

/**
 * Compiles `source` as `compileWithCodeCache` wraps it, in a worker: a fresh V8 isolate, whose
 * compilation cache has never seen it. (In this isolate a second compile of the same source is
 * answered from memory and never looks at the cached data.)
 */
function compileInFreshIsolate(
  source: string,
  cachedData?: Buffer,
): Promise<{ rejected: boolean | undefined; data: Buffer }> {
  const worker = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
     const { Script } = require("node:vm");
     const { Module } = require("node:module");
     const script = new Script(Module.wrap(workerData.source), { filename: workerData.file, cachedData: workerData.cachedData });
     parentPort.postMessage({ rejected: script.cachedDataRejected, data: script.createCachedData() });`,
    { eval: true, workerData: { source, file, cachedData } },
  );
  return new Promise((resolve, reject) => {
    worker.once("message", (m: { rejected: boolean | undefined; data: Uint8Array }) => {
      resolve({ rejected: m.rejected, data: Buffer.from(m.data) });
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

describe("compileWithCodeCache", () => {
  it("runs a CommonJS file with its own require, module and __dirname", async () => {
    await writeBundle("a");
    expect(await runOnce()).toBe("absent");
    expect(results()).toEqual([{ tag: "a", helper: "helped", dir: join(dir, "x"), file, sum: 45 }]);
  });

  it("compiles with a cache made for this file by this V8", async () => {
    await writeBundle("used");
    const source = await readFile(file, "utf8");
    const { data } = await compileInFreshIsolate(source);
    await writeFile(cacheFile, Buffer.concat([sha256(source), data]));
    expect(await runOnce()).toBe("used");
    expect(results()[0]).toMatchObject({ tag: "used", sum: 45 });
  });

  it("ignores a cache made for other contents, even of the same length", async () => {
    await writeBundle("a");
    const { data } = await compileInFreshIsolate(await readFile(file, "utf8"));
    await writeFile(cacheFile, Buffer.concat([sha256(await readFile(file, "utf8")), data]));
    // Same length, other code: V8 alone would take this cache.
    await writeBundle("b");
    expect(await runOnce()).toBe("stale");
    expect(results()[0]).toMatchObject({ tag: "b" });
  });

  it("runs from source when V8 refuses the cache or the file is not a cache", async () => {
    await writeBundle("refused");
    const source = await readFile(file, "utf8");
    const { data } = await compileInFreshIsolate(source);
    await writeFile(cacheFile, Buffer.concat([sha256(source), data.fill(7, 8)]));
    expect(await runOnce()).toBe("rejected");
    await writeFile(cacheFile, "not a cache");
    expect(await runOnce()).toBe("stale");
    expect(results()).toHaveLength(2);
  });

  it("writes a cache that a fresh V8 takes, replacing the old file whole", async () => {
    await writeBundle("written");
    await writeFile(cacheFile, "old");
    const script = compileWithCodeCache(file, cacheFile);
    script.run();
    script.writeCache();
    expect((await readdir(dir)).sort()).toEqual(["bundle.cjs", "bundle.cjs.cache", "helper.cjs"]);
    const source = await readFile(file, "utf8");
    const cache = await readFile(cacheFile);
    expect(cache.subarray(0, 32)).toEqual(sha256(source));
    expect((await compileInFreshIsolate(source, cache.subarray(32))).rejected).toBe(false);
  });
});
