#!/usr/bin/env node
// Node flags first (the process may re-execute itself with them), then the server.
import { relaunchWithNodeFlags } from "../dist/node-flags.js";

relaunchWithNodeFlags();
await import("../dist/main.js");
