// Replays the scripts the real `codex exec-server` was recorded with (codex-reference/exec-server: transcripts of
// 0.169.0; the pinned release, test/clients/package.json, answered the same scripts alike but for what
// conformance-session.test.ts notes) against our server and asserts the facts its transcripts show: results, errors,
// seq order, decoded output, exit codes.
// Ids, pids, paths and timings are normalised away; where we differ on purpose (terminate's SIGTERM first, the
// process tag in the environment) the test says so.
import { describe, expect, it } from 'vitest';
import { decode, useExecServer } from './client.js';
import { replay, seqs } from './replay.js';

const start = useExecServer();

/** 128 + SIGTERM (our terminate's first signal) or 128 + SIGKILL (the real server's). */
const KILLED = [143, 137];

describe('conformance: pipes, tty, read, write, terminate', () => {
  it('02-pipes-basic: separate streams, one seq counter, closed only after exit and EOF', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '02-pipes-basic', { cwd: dir });
    expect(t.result(1)).toMatchObject({ processId: 'p1', sandboxType: 'none' });
    expect(seqs(t.events('p1'))).toEqual({ kinds: ['output', 'output', 'exited', 'closed'], seqs: [1, 2, 3, 4] });
    expect(t.output('p1', ['stdout'])).toBe('out\n');
    expect(t.output('p1', ['stderr'])).toBe('err\n');
    expect(t.exited('p1')).toEqual({ processId: 'p1', seq: 3, exitCode: 3, sandboxDenied: false });
    const read = t.result(2);
    expect(read).toMatchObject({ nextSeq: 5, exited: true, exitCode: 3, closed: true, failure: null });
    expect(read.chunks.map((c: { chunk: string }) => decode(c.chunk)).sort()).toEqual(['err\n', 'out\n']);
    // A background child keeps stdout open: exited, then its late output, then closed.
    expect(seqs(t.events('p2'))).toEqual({ kinds: ['output', 'exited', 'output', 'closed'], seqs: [1, 2, 3, 4] });
    expect(t.output('p2')).toBe('main-done\nlate-from-child\n');
    expect(t.result(4)).toMatchObject({ nextSeq: 3, exited: true, exitCode: 0, closed: false });
    expect(t.result(4).chunks.map((c: { chunk: string }) => decode(c.chunk))).toEqual(['main-done\n']);
    // stdin is /dev/null; the child leads its own session and group.
    const [stdin, ids] = t.output('p3').split('\n');
    expect(stdin).toBe('/dev/null');
    const [pid, pgid, sid] = ids!.trim().split(/\s+/).map(Number);
    expect({ pgid, sid }).toEqual({ pgid: pid, sid: pid });
    expect(t.result(5).pid).toBe(pid);
  });

  it('03-tty: one pty stream, 24x80, SHELL added, a signal death reports 1 (pipes 128+n)', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '03-tty', { cwd: dir });
    // env {} on a pty: only SHELL is added (and our process tag, which finds escaped children).
    const lines = t.output('t1').split('\r\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith('UNIFIED_EXEC_TAG='))).toEqual(['SHELL=/bin/bash']);
    expect(
      t
        .events('t2')
        .filter((m) => m.method === 'process/output')
        .map((m) => m.params.stream),
    ).toEqual(expect.arrayContaining(['pty']));
    expect(t.output('t2')).toMatch(/^\/dev\/pts\/\d+\r\n24 80\r\na\tb\r\n$/);
    expect(t.exited('t2')).toMatchObject({ exitCode: 42, sandboxDenied: false });
    expect(t.exited('t3')).toMatchObject({ exitCode: 1, signal: 'SIGTERM' });
    expect(t.exited('t4')).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
    // pty: closed follows the exit at once.
    expect(seqs(t.events('t5'))).toEqual({ kinds: ['output', 'exited', 'closed'], seqs: [1, 2, 3] });
    expect(t.output('t5')).toBe('main-done\r\n');
  });

  it('04-read: afterSeq, whole-chunk maxBytes, nextSeq, long polls, retention of everything', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '04-read', { cwd: dir });
    const chunks = (id: number) =>
      t
        .result(id)
        .chunks.map((c: { seq: number; stream: string; chunk: string }) => [c.seq, c.stream, decode(c.chunk)]);
    const all = [
      [1, 'stdout', 'AAAA'],
      [2, 'stdout', 'BBBBBBBB'],
      [3, 'stderr', 'CC'],
    ];
    expect(chunks(2)).toEqual(all);
    expect(t.result(2)).toMatchObject({ nextSeq: 4, exited: false, exitCode: null, closed: false, failure: null });
    expect(chunks(3)).toEqual(all.slice(1));
    expect(chunks(4)).toEqual(all.slice(0, 1));
    expect(t.result(4).nextSeq).toBe(2);
    expect(chunks(5)).toEqual(all.slice(0, 1)); // maxBytes 0: still one chunk
    expect(t.result(6)).toMatchObject({ chunks: [], nextSeq: 4 });
    expect(chunks(7)).toEqual([[4, 'stdout', 'done\n']]); // the long poll returned with the new chunk
    expect(t.result(7).nextSeq).toBe(5);
    for (const id of [8, 9]) {
      const read = t.result(id);
      expect(read).toMatchObject({ chunks: [], exited: true, exitCode: 0 });
      expect(read.nextSeq).toBe(read.closed ? 7 : 6);
    }
    expect(t.result(11)).toMatchObject({ chunks: [], nextSeq: 1, exited: false });
    expect(t.result(12)).toEqual({ running: true });
    expect(KILLED).toContain(t.exited('r2').exitCode);
    expect(t.error(13)).toEqual({ code: -32600, message: 'unknown process id nope' });
    expect(chunks(14)).toEqual([...all, [4, 'stdout', 'done\n']]);
    expect(t.result(14)).toMatchObject({ nextSeq: 7, exited: true, closed: true });
  });

  it('05-write: writeId dedupe, statuses as results, bad params, pty line discipline', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '05-write', { cwd: dir });
    for (const id of [2, 3, 4, 5, 6, 13, 14]) expect(t.result(id)).toEqual({ status: 'accepted' });
    expect(t.output('c1')).toBe('one\ntwo\nfour\n'); // "three" reused writeId w1: never written
    expect(t.error(7)).toEqual({ code: -32602, message: 'missing field `writeId`' });
    expect(t.error(8)).toEqual({ code: -32602, message: 'Invalid symbol 33, offset 0.' });
    expect(t.result(9)).toEqual({ status: 'unknownProcess' });
    expect(t.result(11)).toEqual({ status: 'stdinClosed' });
    expect(t.output('c3')).toBe('hello\r\nread:hello\r\n^Cgot-INT\r\n');
    expect(t.exited('c3')).toMatchObject({ exitCode: 7 });
    expect(t.result(15)).toEqual({ running: true });
    expect(t.error(16)).toEqual({ code: -32603, message: 'failed to write to process stdin' });
  });

  it('06-terminate-signal: terminate ends the whole tree, interrupt reaches the group', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '06-terminate-signal', { cwd: dir });
    expect(t.result(2)).toEqual({ running: true });
    expect(KILLED).toContain(t.exited('g1').exitCode);
    expect(seqs(t.events('g1'))).toEqual({ kinds: ['exited', 'closed'], seqs: [1, 2] });
    expect(t.result(3)).toEqual({ running: false });
    expect(t.result(4)).toEqual({ running: false });
    // Same-group child died, as on the real server; the setsid child too, unlike there (found by its tag).
    expect(t.output('g2')).toContain("cannot access 'sameGroupChildSurvived'");
    expect(t.output('g2')).toContain("cannot access 'setsidChildSurvived'");
    expect(t.result(7)).toEqual({});
    expect(t.output('s1')).toBe('ready\nchild-got-INT\nparent-saw-3\n');
    expect(t.exited('s1')).toMatchObject({ exitCode: 0 });
    expect(t.error(8)).toEqual({ code: -32602, message: 'unknown variant `kill`, expected `interrupt`' });
    expect(t.result(9)).toEqual({});
  });
});
