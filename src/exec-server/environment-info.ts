import { homedir, tmpdir } from 'node:os';
import { basename } from 'node:path';
import { findExecutable } from '../util/executable.js';
import { pathToFileUri, type EnvironmentInfo } from './protocol.js';

/**
 * What `environment/info` answers: the shell, the server's working directory, home and temp directories. No
 * `capabilities`: a Codex client then skips the methods we do not implement (`fs/watchMissing`,
 * `environmentConfig/read`). No `executorVersion`: that names a Codex release; ours is in `unifiedExec.version`.
 */
export function environmentInfo(env: Readonly<Record<string, string | undefined>>, cwd: string): EnvironmentInfo {
  const shell = (env.SHELL && findExecutable(env.SHELL, env.PATH)) || '/bin/bash';
  return {
    shell: { name: basename(shell), path: shell },
    cwd: pathToFileUri(cwd),
    userHomeDir: pathToFileUri(homedir()),
    platformOs: process.platform,
    temporaryDirectories: env.TMPDIR ? [pathToFileUri(env.TMPDIR)] : [],
    tempDir: pathToFileUri(tmpdir()),
  };
}
