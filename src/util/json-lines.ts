/**
 * Newline-delimited JSON over a byte stream (JSON-RPC on stdio: the MCP server, the exec-server): bytes in, one line
 * at a time out, under a size limit. What a line means, and what to answer for one, is the caller's.
 */

import { TopLevelIdScanner } from './json-id-scanner.js';

/** Where the framer sends what it read. */
export interface JsonLineHandlers {
  /** One complete line, without its newline (a `\r` before it stays); not decoded, and possibly blank. */
  line(bytes: Buffer): void;
  /**
   * A line over the limit ended. Its bytes were not kept; `id` is the value of its top-level `"id"` key, wherever in
   * the line it was (see TopLevelIdScanner), so the peer waiting for that id can be answered; undefined when none.
   */
  oversized(id: unknown): void;
}

/**
 * Splits the bytes written to it into lines, handing on each line as its newline arrives. A line of more than
 * `maxLineBytes` (its newline not counted) is not kept: from the moment it passes the limit its bytes only go
 * through an id scanner, so memory stays bounded whatever a peer sends, and the next line is read as usual. Bytes
 * after the last newline wait for the next write.
 */
export class JsonLineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set once the current line is over the limit: its bytes go through this, to find its id, and are not kept. */
  private oversized: TopLevelIdScanner | undefined;

  constructor(
    private readonly handlers: JsonLineHandlers,
    readonly maxLineBytes: number,
  ) {}

  /**
   * The next bytes of input: every line they complete is handed on before this returns. A chunk is kept by reference
   * until its line ends (a stream's 'data' chunks are its own to give away), not copied.
   */
  write(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.collect(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.collect(chunk.subarray(start));
  }

  private collect(part: Buffer): void {
    if (this.oversized) return this.oversized.feed(part);
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.oversized = new TopLevelIdScanner();
      for (const piece of this.pending) this.oversized.feed(piece);
      this.pending = [];
    }
  }

  private endLine(): void {
    // A line that came in one chunk (the usual case) is handed on where it lies, not copied.
    const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const oversized = this.oversized;
    this.pending = [];
    this.pendingBytes = 0;
    this.oversized = undefined;
    if (oversized) this.handlers.oversized(oversized.id);
    else this.handlers.line(line);
  }
}
