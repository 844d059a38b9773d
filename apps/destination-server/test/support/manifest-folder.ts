import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temporary folder of manifests: one file per name, objects written as YAML documents. */
export class ManifestFolder {
  private constructor(readonly dir: string) {}

  static async create(): Promise<ManifestFolder> {
    return new ManifestFolder(await mkdtemp(join(tmpdir(), "destination-manifests-")));
  }

  /** Writes objects as a multi-document YAML file (JSON documents are valid YAML). */
  async write(name: string, ...objects: object[]): Promise<void> {
    await this.writeText(name, objects.map((o) => JSON.stringify(o, null, 2)).join("\n---\n"));
  }

  async writeText(name: string, text: string): Promise<void> {
    await writeFile(join(this.dir, name), text);
  }

  async remove(name: string): Promise<void> {
    await rm(join(this.dir, name));
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
