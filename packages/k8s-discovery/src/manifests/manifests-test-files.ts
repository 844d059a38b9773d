import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

// File operations of the manifests tests, done the way tools do them.

/** Writes a file as most editors save: a temp file beside it, then a rename over it. */
export async function writeManifest(dir: string, name: string, text: string): Promise<void> {
  const path = join(dir, name);
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${name.split("/").pop()}.tmp-${process.pid}-${Math.random()}`);
  await writeFile(temp, text);
  await rename(temp, path);
}

export async function removeManifest(dir: string, name: string): Promise<void> {
  await rm(join(dir, name), { force: true });
}
