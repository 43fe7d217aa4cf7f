export * from './manager/index.js';
export * from './buffer/index.js';
export {
  LocalExecutor,
  Watchdog,
  type LocalExecutorOptions,
  buildEnv,
  SESSION_ENV,
  CORE_ENV_NAMES,
  type EnvPolicy,
  type Executor,
  type ExecProcess,
  type ExitInfo,
  type SpawnOptions,
  type Disposable,
} from './process/index.js';
export * from './tools/index.js';
