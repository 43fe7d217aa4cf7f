/**
 * Last line of defence when the host process exits without calling shutdown(): SIGKILL every live session's
 * process group synchronously from the 'exit' hook. (A SIGKILL of the host runs no code; see the lifetime notes.)
 */
const sources = new Set<() => number[]>();
let installed = false;

function killAll(): void {
  for (const source of sources) {
    for (const pid of source()) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export function killOnExit(livePids: () => number[]): () => void {
  sources.add(livePids);
  if (!installed) {
    installed = true;
    process.on('exit', killAll);
  }
  return () => void sources.delete(livePids);
}
