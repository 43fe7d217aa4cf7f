import { afterEach, expect } from 'vitest';
import { UnifiedExecError, UnifiedExecManager, sequentialIds, type ManagerOptions } from '../../src/index.js';
import type { UnifiedExecErrorCode } from '../../src/index.js';

/** Request fields that keep a spawn fast and predictable: bash named explicitly, no login profile. */
export const BASH = { shell: '/bin/bash', login: false } as const;

/** An interactive bash that reads no startup files. */
export const INTERACTIVE_BASH = '/bin/bash --norc --noprofile -i';

/** A manager with deterministic ids (1000, 1001, …) and bash as its default shell. */
export function newManager(options: ManagerOptions = {}): UnifiedExecManager {
  return new UnifiedExecManager({ idGenerator: sequentialIds(), defaultShell: '/bin/bash', ...options });
}

/**
 * Registers an afterEach that shuts down every manager the returned factory made, so no test leaves a session
 * (or its processes) behind even when it fails half-way.
 */
export function useManagers(): (options?: ManagerOptions) => UnifiedExecManager {
  const live: UnifiedExecManager[] = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((manager) => manager.shutdown()));
  });
  return (options) => {
    const manager = newManager(options);
    live.push(manager);
    return manager;
  };
}

/** Awaits a call that must fail with a UnifiedExecError of `code`, and returns the error for further checks. */
export async function rejection(promise: Promise<unknown>, code: UnifiedExecErrorCode): Promise<UnifiedExecError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected ${code}, but the call succeeded with ${JSON.stringify(value)}`);
    },
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(UnifiedExecError);
  expect((error as UnifiedExecError).code).toBe(code);
  return error as UnifiedExecError;
}

/** The message of the INVALID_ARGUMENT error `fn` throws. */
export function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UnifiedExecError);
    expect((err as UnifiedExecError).code).toBe('INVALID_ARGUMENT');
    return (err as Error).message;
  }
  throw new Error('expected an INVALID_ARGUMENT error, but nothing was thrown');
}
