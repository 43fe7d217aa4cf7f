/**
 * Everything a bench worker starts is registered here and ended by its own handle: managers are shut down, raw
 * ptys are killed by process group (node-pty makes each child a session leader, so its pgid is its pid), each
 * tmux server is stopped through its private socket, what a driver set up elsewhere (exec-servers, a Podman
 * service, a container) is ended by its own stop function, and folders the drivers made (the sandbox drivers'
 * workspaces, the login figure's fixture HOME) are removed.
 * Nothing is killed by name.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { killGroup } from './proc.mjs';

const managers = new Set();
const ptys = new Set();
const tmuxSockets = new Set();
const folders = new Set();
/** Stop functions of what the drivers of sessions elsewhere started, in the order they started. */
const stops = [];

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

/**
 * Registers `stop` (async) to end something a driver started: an exec-server, a Podman service, a container.
 * They run after the managers have shut down, the latest first (a container before the service it runs on).
 */
export function trackStop(stop) {
  stops.push(stop);
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

/** Registers a folder a driver made, removed (with what it holds) by cleanupAll. */
export function trackFolder(dir) {
  folders.add(dir);
  return dir;
}

/** A fresh folder under /var/tmp (outside /tmp, itself a writable root of the sandbox), removed by cleanupAll. */
export function makeWorkspace() {
  return trackFolder(mkdtempSync('/var/tmp/ue-bench-workspace-'));
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
  // One at a time, newest first: each may depend on what was started before it.
  while (stops.length > 0)
    await Promise.resolve()
      .then(stops.pop())
      .catch(() => undefined);
  // Last: a sandbox binds its workspace, so a folder goes once what ran in it has ended.
  for (const dir of [...folders]) {
    folders.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** On SIGTERM/SIGINT (the runner's timeout, Ctrl-C): clean up, then leave. */
export function cleanupOnSignals() {
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      void cleanupAll().finally(() => process.exit(130));
    });
  }
}
