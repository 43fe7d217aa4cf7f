/** Output streams whose reader went away: nothing more is written to them. */
const closed = new Set<NodeJS.WriteStream>();

/**
 * A reader that goes away (`serve 2>&1 | head`, `2> >(exec true)`) makes each later write to stdout or stderr fail
 * with EPIPE, emitted as an 'error' event: unheard, the first one would end the server and every client's sessions.
 * Node never destroys these two streams (each write just fails again), so the first error marks the stream closed
 * and the CLI writes to it no more; the other stream goes on working as long as someone reads it.
 */
export function survivePipeErrors(): void {
  for (const stream of [process.stdout, process.stderr]) {
    // Any write error, not only EPIPE (EIO from a terminal that went away too): no log line is worth the server.
    stream.on('error', () => closed.add(stream));
  }
}

/** Writes unless the stream's reader went away. */
export function writeTo(stream: NodeJS.WriteStream, text: string): void {
  if (!closed.has(stream)) stream.write(text);
}

/** One line of the CLI's log, on stderr: stdout belongs to the protocol (`mcp`), replies (`run`) or connect lines. */
export function log(line: string): void {
  writeTo(process.stderr, `unified-exec: ${line}\n`);
}
