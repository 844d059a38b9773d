// Loaded into the server under attack (`--expose-gc --import <this file>`): on SIGUSR2 it runs
// a full GC and then says so on stderr, so the suite reads V8's used heap with the attack's
// garbage gone. A heap snapshot (`--heapsnapshot-signal`) forces a GC too, but Node 20.20
// segfaults taking one after a CONTINUATION flood about one time in five.
process.on("SIGUSR2", () => {
  // The second pass frees what the first one's finalizers released.
  globalThis.gc?.();
  globalThis.gc?.();
  process.stderr.write("hostile: gc done\n");
});
