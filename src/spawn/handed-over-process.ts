import { ProcessCore } from './process-core.js';
import type { ExecProcess, OutputStream } from './types.js';

/**
 * A login shell taken over from a snapshot's capture (see ShellSnapshots.runWithin): the capture's own process,
 * seen from the command it runs after the dump. What the capture printed before is not the command's: output reaches
 * this process's listeners only through `deliver`, which the capture calls for every chunk after its end marker.
 * Exit, input, Ctrl-C and termination are the capture process's own.
 */
export class HandedOverProcess extends ProcessCore implements ExecProcess {
  readonly pid: number | undefined;
  readonly tty = false;
  networkRefusal?: () => string | undefined;

  /** `stdinOpen`: the command reads the pipe (`stdin` asked for); else its stdin is /dev/null and write() rejects. */
  constructor(
    private readonly inner: ExecProcess,
    stdinOpen: boolean,
  ) {
    super(stdinOpen);
    this.pid = inner.pid;
    const refusal = inner.networkRefusal?.bind(inner);
    if (refusal) this.networkRefusal = refusal;
    // The capture delivers every chunk before the inner exit is told (its listener came first).
    inner.onExit((info) => this.finish(info));
    void inner.outputDone.then(() => this.endOutput());
  }

  /** A chunk the command printed. */
  deliver(chunk: Buffer, stream: OutputStream): void {
    this.emitData(chunk, stream);
  }

  protected send(bytes: Uint8Array): Promise<void> {
    return this.inner.write(bytes);
  }

  closeInput(): void {
    this.inner.closeInput?.();
  }

  get pendingInputBytes(): number {
    return this.inner.pendingInputBytes ?? 0;
  }

  resize(_cols: number, _rows: number): void {
    // no terminal to resize
  }

  interrupt(): void {
    this.inner.interrupt?.();
  }

  protected end(options: { force?: boolean }): Promise<void> {
    return this.inner.terminate(options);
  }
}
