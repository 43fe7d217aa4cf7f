import { join } from 'node:path';

/**
 * Files that hold the token of a server in this process (its --token-file, and the client configs that may store
 * it): no sandboxed command may read them, or it could connect to the server as a client of its own. The bubblewrap
 * backend hides each one that exists when a sandbox starts; Landlock cannot (see docs/sandbox.md), and there the
 * server's refusal of sandboxed connections (src/linux/sandboxed-peer.ts) is what holds.
 */
const secrets = new Set<string>();

/** Adds `paths` (absolute) to the files every later sandbox of this process hides. */
export function hideFromSandboxes(paths: readonly string[]): void {
  for (const path of paths) secrets.add(path);
}

/** The files hideFromSandboxes was given, in the order given. */
export function hiddenFiles(): string[] {
  return [...secrets];
}

/**
 * Where MCP clients keep a server's URL with its token: `claude mcp add --header` (user and local scope) in
 * ~/.claude.json and its backup, `--scope project` in the project's .mcp.json, and Codex's config.toml
 * (`http_headers`) and environments.toml (an exec-server's token) in $CODEX_HOME, default ~/.codex.
 */
export function clientConfigFiles(home: string, codexHome: string | undefined, workspace: string): string[] {
  const codex = codexHome || join(home, '.codex');
  return [
    join(home, '.claude.json'),
    join(home, '.claude.json.backup'),
    join(workspace, '.mcp.json'),
    join(codex, 'config.toml'),
    join(codex, 'environments.toml'),
  ];
}
