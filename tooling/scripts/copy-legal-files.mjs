#!/usr/bin/env node
// A package's `prepack`: copies the repository's LICENSE and NOTICE into the package folder, so
// every tarball carries the licence and the notices of the third-party schemas it may hold. The
// copies are ignored by git (.gitignore); the root files are the ones to edit.
import { copyFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
for (const file of ["LICENSE", "NOTICE"]) copyFileSync(join(root, file), join(process.cwd(), file));
