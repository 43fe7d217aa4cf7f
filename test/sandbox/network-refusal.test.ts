// A command refused the network that keeps retrying without printing: the real server (`mcp`, network off by
// default) says so on every reply from then on, running or exited, exec_command and write_stdin alike; never for a
// command that does not touch the network, nor with the network on. Served as root and as nobody, on each backend.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CANNOT_SWITCH_USER, removeMountPoint } from '../helpers/nobody.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { BACKENDS } from './sandbox-helpers.js';

const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
const NOTE = 'Sandbox: network access is off, so the connection failed';
/** TEST-NET-1 (RFC 5737): an address nothing answers on. */
const NOWHERE = '192.0.2.1';
const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** Commands that try to connect again and again and print nothing, whatever happens. */
const SILENT_RETRIES = {
  bash: `while :; do (exec 3<>/dev/tcp/${NOWHERE}/80) 2>/dev/null; sleep 0.2; done`,
  python: `python3 -c "
import time, urllib.request
while True:
    try: urllib.request.urlopen('http://${NOWHERE}/', timeout=1)
    except Exception: pass
    time.sleep(0.2)"`,
  node: `node -e "setInterval(() => require('net').connect(80, '${NOWHERE}').on('error', () => {}), 200)"`,
};

const sessionOf = (reply: string) => Number(/Process running with session ID (\d+)/.exec(reply)?.[1]);
const notes = (reply: string) => reply.split(NOTE).length - 1;

/** What the note names as refused: the supervisor's record (Landlock), the namespace's counter (bubblewrap). */
const EVIDENCE = {
  landlock: /\(socket\(AF_INET\) refused\)/,
  bwrap: /\(\d+ packets? for outside the sandbox found no route\)/,
};

describe.each(BACKENDS)('a command refused the network, on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  const listeners: NetServer[] = [];
  afterEach(() => {
    for (const listener of listeners.splice(0)) listener.close();
  });
  const start = async (user: ServerUser, args: string[] = []) => {
    const cwd = folderOf(user, mkdtempSync('/var/tmp/ue-netref-'));
    cleanup.push(cwd);
    return startMcp(user, cwd, ['--sandbox-backend', backend, ...args]);
  };

  describe.skipIf(skip).each(users)('served as %s', (user) => {
    // One server with the default policy for the cases below (each in sessions of its own): a server's start is most
    // of a case's time.
    let shared: Promise<Server> | undefined;
    const server = () => (shared ??= start(user));
    afterAll(async () => (await shared)?.close());

    it('is told while bash, python and node loops retry in silence, on their first replies and on later polls', async () => {
      const s = await server();
      const loops = Object.entries(SILENT_RETRIES);
      const firsts = await Promise.all(loops.map(([, command]) => s.call(command, { yield_time_ms: 3000 })));
      await Promise.all(
        firsts.map(async (first, i) => {
          const id = sessionOf(first);
          expect(id, `${loops[i]![0]}: ${first}`).toBeGreaterThan(0);
          expect(notes(first), `${loops[i]![0]}: ${first}`).toBe(1);
          expect(first).toMatch(EVIDENCE[backend]);
          const poll = await s.write(id, '');
          expect(sessionOf(poll), poll).toBe(id);
          expect(notes(poll), `${loops[i]![0]}: ${poll}`).toBe(1);
          await s.closeSession(id);
        }),
      );
    });

    it('is told once when the command then exits, however it exits', async () => {
      const s = await server();
      // bubblewrap's counters go with the sandbox's namespace: a silent refusal right before the exit is not seen.
      if (backend === 'landlock') {
        const reply = await s.call(`(exec 3<>/dev/tcp/${NOWHERE}/80) 2>/dev/null; exit 0`);
        expect(reply).toContain('exited with code 0');
        expect(notes(reply), reply).toBe(1);
      }
      // One that prints the refusal itself: its own note, still once.
      const printed = await s.call(`exec 3<>/dev/tcp/${NOWHERE}/80`);
      expect(printed).toMatch(/Operation not permitted|Network is unreachable/);
      expect(notes(printed), printed).toBe(1);
    });

    it('says nothing of a command that never touches the network, nor of an interactive shell starting', async () => {
      const s = await server();
      const [reply, shell] = await Promise.all([
        s.call('sleep 5', { yield_time_ms: 1000 }),
        s.call('bash -i', { tty: true, yield_time_ms: 1500 }),
      ]);
      await Promise.all(
        [reply, shell].map(async (started) => {
          const id = sessionOf(started);
          expect(id, started).toBeGreaterThan(0);
          expect(started).not.toContain('Sandbox:');
          expect(await s.write(id, '')).not.toContain('Sandbox:');
          await s.closeSession(id);
        }),
      );
    });

    // Only on bubblewrap: on Landlock the sandbox has no network of its own, so an IP socket is refused, and said so.
    const onBwrap = backend === 'bwrap' ? it : () => undefined;
    onBwrap('says nothing of a server of its own on the loopback', async () => {
      const s = await server();
      const loopback = await s.call(
        `python3 -c "
import socket, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
while True:
    c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.send(b'x'); a.recv(1); c.close(); a.close()
    time.sleep(0.1)"`,
        { yield_time_ms: 2000 },
      );
      const id = sessionOf(loopback);
      expect(id, loopback).toBeGreaterThan(0);
      expect(loopback).not.toContain('Sandbox:');
      expect(await s.write(id, '')).not.toContain('Sandbox:');
      await s.closeSession(id);
    });

    it('says nothing with the network on, where the connection is made', async () => {
      const listener = createServer((socket) => socket.end('HELLO\n'));
      listeners.push(listener);
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const { port } = listener.address() as AddressInfo;
      const s = await start(user, ['--network', 'on']);
      try {
        const reply = await s.call(
          `exec 3<>/dev/tcp/127.0.0.1/${port}; head -n1 <&3; while :; do (exec 3<>/dev/tcp/${NOWHERE}/80) 2>/dev/null; sleep 0.2; done`,
          { yield_time_ms: 3000 },
        );
        expect(reply).toContain('HELLO');
        expect(reply).not.toContain('Sandbox:');
        await s.closeSession(sessionOf(reply));
      } finally {
        await s.close();
      }
    });
  });
});
