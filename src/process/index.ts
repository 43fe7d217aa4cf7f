export type {
  Disposable,
  ExecProcess,
  Executor,
  ExitInfo,
  LifetimeHooks,
  SpawnOptions,
  TerminalHandle,
} from './types.js';
export { LocalExecutor, type LocalExecutorOptions } from './local-executor.js';
export { Watchdog } from './watchdog.js';
export { PtyProcess, DEFAULT_COLS, DEFAULT_ROWS } from './pty-process.js';
export { PipeProcess } from './pipe-process.js';
export { buildEnv, SESSION_ENV, CORE_ENV_NAMES, type EnvPolicy } from './env.js';
export {
  killSessionTree,
  listProcesses,
  readProcStat,
  selectSessionTree,
  parseProcStat,
  type ProcStat,
} from './process-tree.js';
export { findExecutable, resolveWorkdir } from './resolve.js';
