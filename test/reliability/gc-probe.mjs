// Loaded into the server under test with `node --expose-gc --import <this>` by the leak suite: on SIGUSR2 it runs
// a full garbage collection and reports the heap on stderr, so memory is compared at the same point of V8's cycle
// instead of wherever its lazy collector happens to be. The server's own code is untouched.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.stderr.write(`gc-probe rss=${rss} heapUsed=${heapUsed}\n`);
});
