/**
 * Everything a bench worker starts is registered here and ended by its own handle: managers are shut down, raw
 * ptys are killed by process group (node-pty makes each child a session leader, so its pgid is its pid), and each
 * tmux server is stopped through its private socket. Nothing is killed by name.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { killGroup } from './proc.mjs';

const managers = new Set();
const ptys = new Set();
const tmuxSockets = new Set();

export function trackManager(manager) {
  managers.add(manager);
  return manager;
}

export function trackPty(pty) {
  ptys.add(pty);
  return pty;
}

export function trackTmux(socket) {
  tmuxSockets.add(socket);
  return socket;
}

export function killPty(pty) {
  ptys.delete(pty);
  killGroup(pty.pid, 'SIGKILL');
  try {
    pty.kill('SIGKILL');
  } catch {
    // already gone
  }
}

export function killTmux(socket) {
  tmuxSockets.delete(socket);
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no server left on that socket
  }
  // tmux leaves the socket file of a killed server behind; it is ours, by its name.
  rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, socket), { force: true });
}

export async function shutdownManager(manager) {
  managers.delete(manager);
  await manager.shutdown();
}

/** Ends everything still registered. */
export async function cleanupAll() {
  await Promise.allSettled([...managers].map(shutdownManager));
  for (const pty of [...ptys]) killPty(pty);
  for (const socket of [...tmuxSockets]) killTmux(socket);
}

/** On SIGTERM/SIGINT (the runner's timeout, Ctrl-C): clean up, then leave. */
export function cleanupOnSignals() {
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      void cleanupAll().finally(() => process.exit(130));
    });
  }
}
