import type { EnvPolicy } from '../process/env.js';
import type { Executor } from '../process/types.js';
import type { ReturnPolicy } from './return-policy.js';

/** exec_command, in camelCase. Fields are checked at run time too: callers often pass what a model typed. */
export interface ExecCommandRequest {
  cmd: string;
  workdir?: string;
  shell?: string;
  login?: boolean;
  tty?: boolean;
  yieldTimeMs?: number;
  maxOutputTokens?: number;
}

export interface WriteStdinRequest {
  sessionId: number;
  chars?: string;
  yieldTimeMs?: number;
  maxOutputTokens?: number;
}

export type SessionState = 'exited' | 'waiting_for_input' | 'running';

export interface ExecResponse {
  /** 6 lowercase hex characters naming this response. */
  chunkId: string;
  wallTimeSeconds: number;
  /** What the program printed during the call, truncated for the model. */
  output: string;
  /** ceil(bytes / 4) of everything printed during the call, dropped bytes included. */
  originalTokenCount: number;
  /** Present when the process has exited (and the session is gone). */
  exitCode?: number;
  /** Present while the process still runs. */
  sessionId?: number;
  state: SessionState;
  /** The terminal has echo off in canonical mode: a password prompt. */
  secretPrompt?: boolean;
  /** Lines for the model, e.g. the 60-session warning. */
  warnings: string[];
}

export interface SessionInfo {
  sessionId: number;
  command: string;
  tty: boolean;
  pid: number;
  startedAt: Date;
  lastUsedAt: Date;
  exited: boolean;
  exitCode?: number;
  bufferedBytes: number;
}

export interface ManagerOptions {
  /** How programs are started. Default: this machine (PTY or pipes). */
  executor?: Executor;
  /** Session id generator; ids in use are skipped. Default: random 5-digit numbers. */
  idGenerator?: () => number;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
  /** Live sessions kept before pruning. Default 64. */
  maxSessions?: number;
  /** Upper bound of an empty poll's wait. Default 300000, never below 5000. */
  maxBackgroundPollMs?: number;
  /** Per-session output budget in bytes. Default 1 MiB. */
  outputMaxBytes?: number;
  /** Base for relative workdirs and the default workdir. Default process.cwd(). */
  cwd?: string;
  /** Which variables sessions inherit. Default: all but names containing KEY/SECRET/TOKEN/PASSWORD. */
  env?: EnvPolicy;
  /** Shell when a request names none. Default $SHELL, else /bin/bash. */
  defaultShell?: string;
  /**
   * When a live tty call returns early: 'input-wait' (default) as soon as the program is blocked reading its
   * terminal and its output is delivered; 'deadline' only at the yield deadline or exit, as Codex does.
   */
  returnOn?: 'input-wait' | 'deadline';
  /** Spawns in flight at once. Default 4. */
  maxConcurrentSpawns?: number;
  /** New sessions are refused while the sessions together hold this much unread output. Default 64 MiB. */
  maxTotalBufferedBytes?: number;
  /** Largest `chars` of one write_stdin, in UTF-8 bytes. Default 1 MiB. */
  maxWriteBytes?: number;
  /** A custom policy; overrides `returnOn`. */
  returnPolicy?: ReturnPolicy;
}
