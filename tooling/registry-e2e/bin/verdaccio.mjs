#!/usr/bin/env node
// Verdaccio on a free loopback port: `node bin/verdaccio.mjs CONFIG.yaml` prints
// `listening on http://127.0.0.1:<port>/` once it accepts connections, and serves until SIGTERM.
// Its own process, so the test that starts it ends it by its PID and nothing of it lives in the
// test's worker.
import { runServer } from "verdaccio";

const config = process.argv[2];
if (config === undefined) {
  console.error("usage: node bin/verdaccio.mjs CONFIG.yaml");
  process.exit(2);
}
const server = await runServer(config);
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/`);
});
process.once("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
