import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";

/** A manifest file found in the folder, with what tells us it may have changed. */
export interface ManifestFile {
  /** Relative to the folder, `/`-separated: how files are named in logs and ordered. */
  readonly path: string;
  readonly absolutePath: string;
  readonly format: "yaml" | "json";
  /** Device, inode, size, mtime and ctime: a file with the same signature was not rewritten. */
  readonly signature: string;
  readonly modifiedNs: bigint;
}

/**
 * The format of a manifest file name, or undefined for anything else. Hidden names are skipped,
 * which also skips editor droppings (`.x.yaml.swp`, `.#x.yaml`) and Kubernetes ConfigMap
 * volume internals (`..data`); backups (`x.yaml~`) and temp files end in other extensions.
 */
export function manifestFormat(name: string): "yaml" | "json" | undefined {
  if (name.startsWith(".")) return undefined;
  if (name.endsWith(".yaml") || name.endsWith(".yml")) return "yaml";
  if (name.endsWith(".json")) return "json";
  return undefined;
}

/** What a walk of the folder found: the manifest files by path. */
export interface ManifestListing {
  readonly files: Map<string, ManifestFile>;
}

/**
 * Every manifest file under `root`, recursively, following symbolic links (a ConfigMap volume is
 * links into a hidden folder) but not into loops. Files or folders that vanish or cannot be read
 * while walking are left out; only an unreadable root is an error.
 */
export async function listManifestFiles(root: string): Promise<ManifestListing> {
  const listing: ManifestListing = { files: new Map() };
  const visited = new Set<string>([await realpath(root)]);
  await walk(root, "", visited, listing, true);
  return listing;
}

async function walk(
  dir: string,
  relative: string,
  visited: Set<string>,
  listing: ManifestListing,
  isRoot: boolean,
): Promise<void> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isRoot) throw err;
    return;
  }
  const found = await inParallel(entries, async (entry) => {
    if (entry.name.startsWith(".")) return undefined;
    const absolutePath = join(dir, entry.name);
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    try {
      return {
        absolutePath,
        path,
        name: entry.name,
        info: await stat(absolutePath, { bigint: true }),
      };
    } catch {
      return undefined; // gone since readdir, or a dangling link
    }
  });
  for (const entry of found) {
    if (entry === undefined) continue;
    const { absolutePath, path, info } = entry;
    if (info.isDirectory()) {
      const real = await realpath(absolutePath).catch(() => undefined);
      if (real === undefined || visited.has(real)) continue;
      visited.add(real);
      await walk(absolutePath, path, visited, listing, false);
      continue;
    }
    const format = manifestFormat(entry.name);
    if (!info.isFile() || format === undefined) continue;
    listing.files.set(path, {
      path,
      absolutePath,
      format,
      signature: `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
      modifiedNs: info.mtimeNs,
    });
  }
}

/** The text of each file, or undefined for a file that vanished or cannot be read. */
export function readManifestFiles(
  files: readonly ManifestFile[],
): Promise<{ file: ManifestFile; text: string | undefined }[]> {
  return inParallel(files, async (file) => ({
    file,
    text: await readFile(file.absolutePath, "utf8").catch(() => undefined),
  }));
}

// Enough parallel file operations to hide latency, few enough to stay clear of EMFILE.
const PARALLEL_FILE_OPERATIONS = 32;

/** `Promise.all(items.map(work))`, with at most a few operations in flight; order kept. */
async function inParallel<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_FILE_OPERATIONS, items.length) }, worker),
  );
  return results;
}
