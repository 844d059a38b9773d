// The lifecycle every scenario shares: one test PKI per file, one mesh per test, ended after
// each test (with the namespace's logs printed when it failed).
import { afterEach, beforeAll } from "vitest";
import { type BackendChoice, Mesh } from "./mesh.js";
import { TestPki } from "./test-pki.js";

export interface MeshPerTest {
  /** The mesh of the running test, on the chosen backend; closed after the test. */
  create(choice: BackendChoice): Promise<Mesh>;
}

export function meshPerTest(): MeshPerTest {
  let pki: TestPki | undefined;
  let mesh: Mesh | undefined;
  beforeAll(async () => {
    pki = await TestPki.create();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail" && mesh) console.error(mesh.diagnostics());
    await mesh?.close();
    mesh = undefined;
  });
  return {
    async create(choice) {
      if (pki === undefined) throw new Error("meshPerTest: the test PKI is not made yet");
      mesh = await Mesh.create(pki, choice);
      return mesh;
    },
  };
}
