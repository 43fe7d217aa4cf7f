import { randomUUID } from 'node:crypto';
import type { ReturnPolicy } from '../input-wait/return-policy.js';
import type { ProcessSpawner } from '../spawn/types.js';
import type { OutputFrame, ProcessStartResult } from './protocol.js';
import { invalidRequest } from './rpc-error.js';
import type { StartParams } from './schemas.js';
import { startProcess } from './start-process.js';
import { WireProcess, type WriteOutcome } from './wire-process.js';

/** Where a session's notifications go while a connection is attached. */
export interface SessionSink {
  notify(method: string, params: unknown): void;
  /** The chunks of one read of a process's output, in seq order: each told as `process/output`. */
  output(chunks: readonly OutputFrame[]): void;
  /** The connection asked for `process/inputWait` notifications. */
  readonly inputWait: boolean;
  /** Whether its client still answers (see Transport.isAlive). */
  isAlive(timeoutMs: number): Promise<boolean>;
  /** Ends its connection: another one takes the session over. */
  close(): void;
}

/** What sessions share with the server that holds them. */
export interface SessionHost {
  readonly executor: ProcessSpawner;
  readonly serverEnv: Readonly<Record<string, string | undefined>>;
  readonly inputWaitPolicy: ReturnPolicy | undefined;
  readonly graceMs: number;
  readonly retentionMs: number;
  readonly retainedBytes: number | undefined;
  readonly maxProcessesPerSession: number;
  readonly maxProcesses: number;
  readonly maxRetainedPerSession: number;
  /** Processes not yet closed, across every session. */
  liveProcesses(): number;
  /** The session ended (its grace period ran out, or the server closes). */
  ended(session: ExecServerSession): void;
}

/**
 * An exec-server session: the processes started under one `sessionId`, which outlive the connection. Detached
 * (its connection gone) it keeps running and retaining output, tells nobody, and ends with its processes once
 * `graceMs` passes without a resume. A closed process stays readable, its id taken, for `retentionMs`.
 */
export class ExecServerSession {
  readonly id = randomUUID();
  private sink: SessionSink | undefined;
  private readonly processes = new Map<string, WireProcess>();
  /** Ids reserved by a `process/start` that has not finished spawning. */
  private readonly starting = new Set<string>();
  /** Ids of processes not yet closed (starting ones included). */
  private readonly live = new Set<string>();
  /** Closed processes' eviction timers, oldest first. */
  private readonly retained = new Map<string, NodeJS.Timeout>();
  private expiry: NodeJS.Timeout | undefined;
  /** When the connection went away; undefined while attached. */
  detachedAt: number | undefined = Date.now();
  private over = false;

  constructor(private readonly host: SessionHost) {}

  get liveCount(): number {
    return this.live.size;
  }

  get attachedSink(): SessionSink | undefined {
    return this.sink;
  }

  attach(sink: SessionSink): void {
    clearTimeout(this.expiry);
    this.sink = sink;
    this.detachedAt = undefined;
    for (const record of this.processes.values()) record.watchInput(sink.inputWait);
  }

  /** The connection went away: keep everything for the grace period. */
  detach(): void {
    this.sink = undefined;
    this.detachedAt = Date.now();
    for (const record of this.processes.values()) record.watchInput(false);
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => void this.end(), this.host.graceMs);
    this.expiry.unref();
  }

  /** Ends every process of the session and forgets it. */
  async end(): Promise<void> {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.expiry);
    for (const timer of this.retained.values()) clearTimeout(timer);
    this.retained.clear();
    const records = [...this.processes.values()];
    this.processes.clear();
    this.live.clear();
    this.host.ended(this);
    await Promise.all(records.map((record) => record.dispose()));
  }

  async start(params: StartParams): Promise<ProcessStartResult> {
    const id = params.processId;
    if (this.processes.has(id) || this.starting.has(id)) throw invalidRequest(`process ${id} already exists`);
    if (this.live.size >= this.host.maxProcessesPerSession) {
      throw invalidRequest(
        `too many processes in this exec-server session: ${this.live.size} have not closed yet (the limit is ${this.host.maxProcessesPerSession}); terminate some first`,
      );
    }
    if (this.host.liveProcesses() >= this.host.maxProcesses) {
      throw invalidRequest(
        `too many processes on this exec-server: ${this.host.liveProcesses()} have not closed yet (the limit is ${this.host.maxProcesses})`,
      );
    }
    this.starting.add(id);
    this.live.add(id);
    let started;
    try {
      started = await startProcess(params, this.host.executor, this.host.serverEnv);
    } catch (error) {
      this.live.delete(id);
      throw error;
    } finally {
      this.starting.delete(id);
    }
    if (this.over) {
      void started.process.terminate();
      throw invalidRequest(`session ${this.id} has ended`);
    }
    const record = new WireProcess({
      id,
      process: started.process,
      pipeStdin: !params.tty && params.pipeStdin === true,
      ...(started.sandbox !== undefined ? { sandbox: started.sandbox } : {}),
      ...(this.host.inputWaitPolicy !== undefined ? { inputWaitPolicy: this.host.inputWaitPolicy } : {}),
      ...(this.host.retainedBytes !== undefined ? { retainedBytes: this.host.retainedBytes } : {}),
      emit: (event) => this.sink?.notify(event.method, event.params),
      output: (chunks) => this.sink?.output(chunks),
      closed: () => this.retain(id),
    });
    this.processes.set(id, record);
    record.watchInput(this.sink?.inputWait ?? false, 'start');
    const pid = started.process.pid;
    return { processId: id, sandboxType: started.sandboxType, ...(pid !== undefined ? { pid } : {}) };
  }

  /** The process, or undefined when the id is unknown (never used, or forgotten after its retention). */
  process(id: string): WireProcess | undefined {
    return this.processes.get(id);
  }

  /** `starting` while the id's spawn is under way, `unknownProcess` for an unknown id. */
  write(id: string, bytes: Buffer, writeId: string): WriteOutcome {
    if (this.starting.has(id)) return { status: 'starting' };
    return this.processes.get(id)?.write(bytes, writeId) ?? { status: 'unknownProcess' };
  }

  /** Keeps a closed process readable for retentionMs (fewer when too many are kept), then forgets it. */
  private retain(id: string): void {
    this.live.delete(id);
    const timer = setTimeout(() => this.evict(id), this.host.retentionMs);
    timer.unref();
    this.retained.set(id, timer);
    if (this.retained.size > this.host.maxRetainedPerSession) this.evict(this.retained.keys().next().value!);
  }

  private evict(id: string): void {
    clearTimeout(this.retained.get(id));
    this.retained.delete(id);
    const record = this.processes.get(id);
    this.processes.delete(id);
    void record?.dispose();
  }
}
