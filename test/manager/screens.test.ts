import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnifiedExecManager } from '../../src/manager/manager.js';
import type { ManagerOptions } from '../../src/index.js';
import { callTool } from '../../src/tools/run-tool.js';
import type { ExecResult } from '../../src/tools/output-schemas.js';
import { BACKENDS, useWorkspace } from '../sandbox/sandbox-helpers.js';

// The screen scenarios, through the tools as a model calls them: each step's reply must show the screen a person
// would see, and the text must carry it as a marked section. They run twice: without a sandbox, and in the sandbox
// mcp and serve use by default (workspace-write, network off), in a fresh workspace.

let dir: string;
let manager: UnifiedExecManager;
/** The options of every manager the scenarios make, beside `cwd`. */
let managerOptions: ManagerOptions;

async function call(name: 'exec_command' | 'write_stdin', args: Record<string, unknown>) {
  const outcome = await callTool(manager, name, args);
  if (outcome.isError) throw new Error(outcome.text);
  return { text: outcome.text, result: outcome.structured as ExecResult };
}

const exec = (cmd: string, extra: Record<string, unknown> = {}) =>
  call('exec_command', { cmd, tty: true, login: false, yield_time_ms: 10_000, workdir: dir, ...extra });
const write = (sessionId: number, extra: Record<string, unknown>) =>
  call('write_stdin', { session_id: sessionId, yield_time_ms: 5_000, ...extra });

/** The screen section of a reply's text, rows only. */
function screenRows(text: string): string[] {
  const match = /^Screen \d+x\d+ \(.*\):\n```\n([\s\S]*?)\n?```\nOutput:/m.exec(text);
  if (!match) throw new Error(`no screen section in:\n${text}`);
  return match[1] === '' ? [] : match[1]!.split('\n');
}

function screenScenarios(): void {
  describe('screens of full-screen programs', () => {
    it('edits a file in vim: open, i, type, Esc, :wq, and every reply shows the screen', async () => {
      const file = join(dir, 'notes.txt');
      const opened = await exec('vim -i NONE notes.txt', { screen: true });
      expect(opened.result.state).toBe('waiting_for_input');
      expect(opened.result.screen).toMatchObject({ cols: 80, rows: 24, alternate: true });
      const rows = opened.result.screen!.lines;
      // A failure shows the whole screen: what vim had drawn when the reply came.
      expect(rows[1], rows.join('\n')).toBe('~');
      expect(rows[23], rows.join('\n')).toMatch(/^"notes\.txt" \[New\]/);
      // The text shows the same screen and leaves vim's drawing out of Output.
      expect(screenRows(opened.text)[1]).toBe('~');
      expect(opened.text).toMatch(/\nOutput:\n$/);
      expect(opened.result.output).toBe('');
      const id = opened.result.session_id!;

      const insert = await write(id, { chars: 'i' });
      expect(insert.result.screen!.lines[23]).toMatch(/-- INSERT --/);

      // Esc is a named key; vim waits a moment to tell it from the start of a key's sequence, then redraws.
      const typed = await write(id, { chars: 'hello from vim', keys: ['Esc'] });
      expect(typed.result.state).toBe('waiting_for_input');
      expect(typed.result.screen!.lines[0]).toBe('hello from vim');
      expect(typed.result.screen!.lines[23]).not.toMatch(/INSERT/);

      const saved = await write(id, { chars: ':wq', keys: ['Enter'] });
      expect(saved.result.exit_code).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('hello from vim\n');
    });

    it('shows the screen of vim under the default TERM=dumb, which draws by moving the cursor', async () => {
      const file = join(dir, 'dumb.txt');
      // No `screen`, no TERM: vim draws on the normal screen with ESC [ row ; col H.
      const opened = await exec('vim -i NONE dumb.txt');
      expect(opened.result.state).toBe('waiting_for_input');
      expect(opened.result.screen).toMatchObject({ cols: 80, rows: 24, alternate: false, cursorAddressed: true });
      const rows = opened.result.screen!.lines;
      expect(rows[1], rows.join('\n')).toBe('~');
      expect(rows[23], rows.join('\n')).toMatch(/^"dumb\.txt" \[New\]/);
      expect(opened.text).toContain('the program draws by moving the cursor, so Output leaves out what it drew');
      expect(opened.result.output).toBe('');
      const id = opened.result.session_id!;

      const insert = await write(id, { chars: 'i' });
      expect(insert.result.screen!.lines[23]).toMatch(/-- INSERT --/);
      const typed = await write(id, { chars: 'typed under dumb', keys: ['Esc'] });
      expect(typed.result.screen!.lines[0]).toBe('typed under dumb');
      expect(typed.result.output).not.toContain('\x1b[');

      const saved = await write(id, { chars: ':wq', keys: ['Enter'] });
      expect(saved.result.exit_code).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('typed under dumb\n');
    });

    it('leaves line output as raw text: a shell, a build log in colour, less under TERM=dumb', async () => {
      const shell = await exec("PS1='$ ' bash --norc --noprofile -i");
      const id = shell.result.session_id!;
      const log = await write(id, {
        chars: "printf '\\033[01;35mwarning:\\033[m unused\\n\\033[1m\\033[32m   Compiling\\033[0m demo\\n'\r",
      });
      expect(log.result.screen).toBeUndefined();
      expect(log.result.output).toContain('\x1b[01;35mwarning:\x1b[m unused\r\n');

      writeFileSync(join(dir, 'plain.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n'));
      const less = await write(id, { chars: 'less plain.txt\r' });
      expect(less.result.output).toContain('terminal is not fully functional');
      const page = await write(id, { keys: ['Enter'] });
      expect(page.result.screen).toBeUndefined();
      expect(page.result.output).toContain('line 1\r\nline 2\r\n');
      const quit = await write(id, { chars: 'q' });
      expect(quit.result.screen).toBeUndefined();
      expect(quit.result.output).toContain('$ ');
      await write(id, { chars: 'exit\r' });
    });

    it('pages through less with named keys, without screen: true once TERM is a real terminal', async () => {
      writeFileSync(join(dir, 'numbers.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n'));
      // No `screen`: the reply shows the screen because less is in the alternate screen.
      const first = await exec('TERM=xterm-256color less numbers.txt', { rows: 10 });
      expect(first.result.state).toBe('waiting_for_input');
      expect(first.result.screen).toMatchObject({ rows: 10, alternate: true });
      expect(first.result.screen!.lines.slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `line ${i + 1}`));
      const id = first.result.session_id!;

      const down = await write(id, { keys: ['PageDown'] });
      expect(down.result.screen!.lines[0]).toBe('line 10');
      const arrow = await write(id, { keys: ['Down', 'Down'] });
      expect(arrow.result.screen!.lines[0]).toBe('line 12');
      const end = await write(id, { chars: 'G' });
      expect(end.result.screen!.lines[8]).toBe('line 100');

      const quit = await write(id, { chars: 'q' });
      expect(quit.result.exit_code).toBe(0);
      expect(quit.result.screen).toBeUndefined(); // back on the normal screen: no screen unless asked
      expect(quit.result.output).not.toContain('line 5');
    });

    it("reads top's header and quits it", async () => {
      const top = await exec('top -d 5', { screen: true, rows: 15 });
      expect(top.result.state).toBe('waiting_for_input');
      const rows = top.result.screen!.lines;
      expect(rows[0]).toMatch(/^top - \d\d:\d\d:\d\d up /);
      expect(rows[1]).toMatch(/^Tasks: +\d+ total/);
      expect(rows.some((row) => /PID USER/.test(row))).toBe(true);
      expect(screenRows(top.text)[0]).toBe(rows[0]);
      const quit = await write(top.result.session_id!, { chars: 'q' });
      expect(quit.result.exit_code).toBe(0);
    });
  });

  describe('terminal size, keys and the screen choice', () => {
    it('starts a terminal of the size asked for, and resizes it', async () => {
      const started = await exec('stty size; read line; stty size; read line', { cols: 100, rows: 30 });
      expect(started.result.output).toContain('30 100');
      const id = started.result.session_id!;
      const resized = await write(id, { cols: 120, rows: 40, chars: '\r', screen: true });
      expect(resized.result.output).toContain('40 120');
      expect(resized.result.screen).toMatchObject({ cols: 120, rows: 40 });
      expect(resized.result.screen!.lines).toHaveLength(40);
      await write(id, { chars: '\r' });
    });

    it('sends cursor keys as the terminal mode asks: ESC [ A for a shell, ESC O A in application mode', async () => {
      // The program turns application cursor keys on (DECCKM), as full-screen programs do, and shows what it reads.
      const started = await exec("stty -echo -icanon; printf '\\033[?1h'; head -c 3 | od -An -c", { screen: false });
      const keyed = await write(started.result.session_id!, { keys: ['Up'] });
      expect(keyed.result.exit_code).toBe(0);
      expect(keyed.result.output.replace(/\s+/g, ' ')).toContain('033 O A');
      const plain = await exec('stty -echo -icanon; head -c 3 | od -An -c', { screen: false });
      const other = await write(plain.result.session_id!, { keys: ['Up'] });
      expect(other.result.output.replace(/\s+/g, ' ')).toContain('033 [ A');
    });

    it('shows the screen of a normal-screen session when asked, and raw bytes with screen: false', async () => {
      const shell = await exec("PS1='$ ' bash --norc --noprofile -i");
      const id = shell.result.session_id!;
      expect(shell.result.screen).toBeUndefined();
      const asked = await write(id, { chars: 'echo one\r', screen: true });
      expect(asked.result.screen!.lines.slice(0, 3)).toEqual(['$ echo one', 'one', '$']);
      expect(asked.result.screen!.alternate).toBe(false);
      expect(asked.text).toContain('Screen 80x24 (cursor at row 3, column 3; rows 4-24 blank):');
      const raw = await write(id, { chars: "printf '\\033[?1049hdrawn'\r", screen: false });
      expect(raw.result.screen).toBeUndefined();
      expect(raw.result.output).toContain('\x1b[?1049hdrawn');
      await write(id, { chars: 'exit\r' });
    });

    it('refuses terminal fields without a terminal, and unknown keys by name', async () => {
      const refused = await callTool(manager, 'exec_command', { cmd: 'true', tty: false, cols: 100, screen: true });
      expect(refused).toMatchObject({ isError: true });
      expect(refused.text).toContain('`cols`, `screen` need a terminal: start the session with tty=true');
      const shell = await exec('cat');
      const unknown = await callTool(manager, 'write_stdin', { session_id: shell.result.session_id, keys: ['Hyper'] });
      expect(unknown.text).toMatch(/`keys`: unknown key "Hyper": use one of Up, Down, .*F12/);
      const tooWide = await callTool(manager, 'write_stdin', { session_id: shell.result.session_id, cols: 501 });
      expect(tooWide.text).toContain('`cols`: expected a whole number from 1 to 500, got 501');
      const pipes = await call('exec_command', { cmd: 'sleep 30', yield_time_ms: 250 });
      const typed = await callTool(manager, 'write_stdin', { session_id: pipes.result.session_id, keys: ['Enter'] });
      expect(typed.text).toContain('stdin is closed for this session');
    });

    it('keeps no screens on a server started with screens off', async () => {
      const plain = new UnifiedExecManager({ ...managerOptions, cwd: dir, screens: false });
      try {
        const refused = await callTool(plain, 'exec_command', { cmd: 'true', tty: true, screen: true });
        expect(refused.text).toContain('this server keeps no screens');
        const less = await callTool(plain, 'exec_command', {
          cmd: 'TERM=xterm-256color bash -c "printf \'\\033[?1049hdrawn\'; read x"',
          tty: true,
          login: false,
        });
        const result = (less as { structured: ExecResult }).structured;
        expect(result.screen).toBeUndefined();
        expect(result.output).toContain('drawn');
      } finally {
        await plain.shutdown();
      }
    });
  });
}

describe('screens, no sandbox', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ue-screens-'));
    managerOptions = {};
    manager = new UnifiedExecManager({ cwd: dir });
  });
  afterAll(async () => {
    await manager.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  screenScenarios();
});

// The default sandbox on each backend (CI has both: there a backend that cannot run fails instead of skipping).
describe.each(BACKENDS)('screens in the default sandbox (workspace-write) on $backend', ({ backend, skip }) => {
  if (skip) {
    it.skip(`skipped: ${skip}`, () => undefined);
    return;
  }
  const ws = useWorkspace();
  beforeAll(() => {
    // The files go in a folder of the workspace, as a project's do (Landlock makes nothing new at its top).
    dir = join(ws.dir, 'project');
    mkdirSync(dir);
    managerOptions = { sandbox: 'workspace-write', sandboxBackend: backend };
    manager = new UnifiedExecManager({ cwd: ws.dir, ...managerOptions });
  });
  afterAll(() => manager.shutdown());
  screenScenarios();
});
