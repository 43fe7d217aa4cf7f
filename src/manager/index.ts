export { UnifiedExecManager } from './manager.js';
export { UnifiedExecError, type UnifiedExecErrorCode } from './errors.js';
export { formatResponse } from './format.js';
export { pickSessionToPrune, type SessionMeta } from './prune.js';
export { clampPollTime, clampYieldTime } from './timing.js';
export { randomSessionId, sequentialIds, newChunkId } from './ids.js';
export { deadlinePolicy, type ReturnPolicy, type EarlyReturn, type WatchContext } from './return-policy.js';
export * from './constants.js';
export type * from './types.js';
