import type { ServeSettings } from './cli-settings.js';
import { resolveTokenAuth, type AuthSources, type TokenAuth } from './token-auth.js';

export { MIN_TOKEN_BYTES, type AuthSources, type TokenFile } from './token-auth.js';

/** Where serve's token comes from when no --token-file is given. */
export const TOKEN_ENV = 'UNIFIED_EXEC_TOKEN';

export type ServeAuth = TokenAuth;

/** `--token-file`, else $UNIFIED_EXEC_TOKEN, else a random token; none with --no-auth (loopback only). */
export function resolveServeAuth(
  settings: Pick<ServeSettings, 'host' | 'noAuth' | 'tokenFile'>,
  env: Record<string, string | undefined>,
  sources: AuthSources = {},
): ServeAuth {
  return resolveTokenAuth(settings, env, { command: 'serve', tokenEnv: TOKEN_ENV }, sources);
}
