import { writeSync } from 'node:fs';

/**
 * How long to back off when the kernel's input queue is full (the reader is busy or does not read at all): from the
 * first to the last, doubling while no byte goes in, so a program that never reads costs next to nothing.
 */
const FIRST_BACKOFF_MS = 2;
const MAX_BACKOFF_MS = 64;

interface Task {
  buffer: Buffer;
  offset: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Ordered, back-pressured writes to a non-blocking fd. Each write resolves once all its bytes are in the kernel;
 * a full queue (EAGAIN) is retried after a short backoff instead of spinning or blocking the event loop.
 * Writes are synchronous (the fd is non-blocking, so none ever blocks): a write queued on libuv's thread pool could
 * run after its fd was closed and its number reused, landing in another session's terminal.
 */
export class FdWriter {
  private readonly queue: Task[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closedWith: Error | undefined;
  private backoffMs = FIRST_BACKOFF_MS;
  /** Bytes queued and not yet taken by the kernel. */
  private queuedBytes = 0;

  constructor(private readonly fd: number) {}

  write(data: string | Uint8Array): Promise<void> {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (buffer.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ buffer, offset: 0, resolve, reject });
      this.queuedBytes += buffer.length;
      if (this.queue.length === 1) this.pump();
    });
  }

  /** Bytes written but not yet taken by the kernel: the reader has not caught up. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  /** Fails every queued write; later writes fail at once. */
  close(reason: Error): void {
    this.closedWith = reason;
    this.queuedBytes = 0;
    clearTimeout(this.timer);
    for (const task of this.queue.splice(0)) task.reject(reason);
  }

  private pump(): void {
    this.timer = undefined;
    for (let task = this.queue[0]; task && !this.closedWith; task = this.queue[0]) {
      let written: number;
      try {
        written = writeSync(this.fd, task.buffer, task.offset, task.buffer.length - task.offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EINTR') {
          this.close(err as Error);
          return;
        }
        written = 0;
      }
      if (written === 0) {
        this.timer = setTimeout(() => this.pump(), this.backoffMs);
        this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
        return;
      }
      this.backoffMs = FIRST_BACKOFF_MS;
      this.queuedBytes -= written;
      task.offset += written;
      if (task.offset >= task.buffer.length) {
        this.queue.shift();
        task.resolve();
      }
    }
  }
}
