import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReturnPolicy, WatchContext } from '../../src/input-wait/return-policy.js';
import { canonicalLineWarning, modeMatters, wakesReader } from '../../src/manager/input-lines.js';
import { UnifiedExecManager } from '../../src/manager/manager.js';
import type { ManagerOptions } from '../../src/manager/types.js';
import { FakeExecutor } from '../helpers/fake-executor.js';

// What the live view builds on: watching a session without taking the model's output, typing for a person, and
// each session's state now.

const managers: UnifiedExecManager[] = [];
const newManager = (options?: ManagerOptions) => {
  const manager = new UnifiedExecManager(options);
  managers.push(manager);
  return manager;
};
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.shutdown()));
});

const shell = { command: "PS1='$ ' bash --norc --noprofile -i", tty: true, login: false } as const;

describe('watchSession', () => {
  it('starts with the latest output, read or not, then streams what comes, and leaves it all to the model', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...shell });
    const id = started.sessionId!;
    await manager.writeStdin({ sessionId: id, chars: 'echo first-$((40+2))\r' });
    const seen: string[] = [];
    const watch = manager.watchSession(id, { output: (text) => seen.push(text), ended: () => undefined });
    expect(watch).toMatchObject({ tty: true, cols: 80, rows: 24 });
    expect(watch.recent).toContain('first-42'); // already read by the model, still in the recent output
    const reply = await manager.writeStdin({ sessionId: id, chars: 'echo second-$((40+3))\r' });
    expect(reply.output).toContain('second-43'); // the watcher took nothing
    await vi.waitFor(() => expect(seen.join('')).toContain('second-43'));
    watch.dispose();
  });

  it('says once how the session ended, and stops', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...shell });
    const ended = vi.fn();
    manager.watchSession(started.sessionId!, { output: () => undefined, ended });
    await manager.writeStdin({ sessionId: started.sessionId!, chars: 'exit 3\r' });
    await vi.waitFor(() => expect(ended).toHaveBeenCalledWith(3));
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it('says when a session closed by the model ended', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ command: 'sleep 60', tty: true, login: false, yieldTimeMs: 250 });
    const ended = vi.fn();
    manager.watchSession(started.sessionId!, { output: () => undefined, ended });
    await manager.closeSession(started.sessionId!);
    await vi.waitFor(() => expect(ended).toHaveBeenCalledTimes(1));
  });

  it('refuses a session it does not hold', () => {
    const manager = newManager();
    expect(() => manager.watchSession(12345, { output: () => undefined, ended: () => undefined })).toThrow(
      /Unknown process id 12345/,
    );
  });
});

describe('sendInput and sessionStates', () => {
  it('types for a person; the model reads the answer in its next reply', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...shell });
    const id = started.sessionId!;
    await manager.sendInput(id, 'echo typed-$((6*7))\r');
    await vi.waitFor(async () => {
      const states = await manager.sessionStates();
      expect(states.get(id)).toBe('waiting_for_input');
    });
    const reply = await manager.writeStdin({ sessionId: id, chars: '', yieldTimeMs: 5000 });
    expect(reply.output).toContain('typed-42');
  });

  it('tells running, waiting for input and exited apart', async () => {
    const manager = newManager();
    const prompt = await manager.execCommand({ ...shell });
    const busy = await manager.execCommand({ command: 'sleep 60', tty: true, login: false, yieldTimeMs: 250 });
    const done = await manager.execCommand({ command: 'sleep 0.3', tty: false, login: false, yieldTimeMs: 250 });
    await vi.waitFor(async () => {
      const states = await manager.sessionStates();
      expect(states.get(prompt.sessionId!)).toBe('waiting_for_input');
      expect(states.get(busy.sessionId!)).toBe('running');
      expect(states.get(done.sessionId!)).toBe('exited');
    });
  });

  it('refuses to type into a session without a terminal', async () => {
    const manager = newManager();
    const pipes = await manager.execCommand({ command: 'sleep 60', login: false, yieldTimeMs: 250 });
    await expect(manager.sendInput(pipes.sessionId!, 'x')).rejects.toThrow(/stdin is closed/);
  });
});

describe('input typed before a poll', () => {
  /** A policy that hands out numbered marks and answers every watch at once, keeping what each watch was given. */
  class RecordingPolicy implements ReturnPolicy {
    private marks = 0;
    readonly watched: Pick<WatchContext, 'trigger' | 'beforeInput'>[] = [];
    beforeInput(): unknown {
      return `mark-${++this.marks}`;
    }
    async watch({ trigger, beforeInput }: WatchContext) {
      this.watched.push({ trigger, beforeInput });
      return { state: 'waiting_for_input' as const };
    }
  }

  it("is a poll's baseline, and sessionStates': the program must have run since to be waiting", async () => {
    const policy = new RecordingPolicy();
    const manager = newManager({ executor: new FakeExecutor(), returnPolicy: policy, shellSnapshot: false });
    const id = (await manager.execCommand({ command: 'repl', tty: true }, {})).sessionId!;
    await manager.sendInput(id, 'typed by a person\r');
    await manager.sessionStates();
    await manager.writeStdin({ sessionId: id, chars: '' });
    expect(policy.watched.slice(-2)).toEqual([
      { trigger: 'poll', beforeInput: 'mark-1' },
      { trigger: 'poll', beforeInput: 'mark-1' },
    ]);
    await manager.writeStdin({ sessionId: id, chars: 'by the model\r' });
    await manager.writeStdin({ sessionId: id, chars: '' });
    expect(policy.watched.slice(-2)).toEqual([
      { trigger: 'input', beforeInput: 'mark-2' },
      { trigger: 'poll', beforeInput: 'mark-2' },
    ]);
  });

  it('is not waited for when it cannot wake the reader: part of a line in canonical mode', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ command: 'read line; echo "got $line"', tty: true, login: false });
    expect(started.state).toBe('waiting_for_input');
    const id = started.sessionId!;
    await manager.sendInput(id, 'abc');
    // `read` waits on for the rest of its line, and says so.
    expect((await manager.sessionStates()).get(id)).toBe('waiting_for_input');
    await manager.sendInput(id, 'def\r');
    const reply = await manager.writeStdin({ sessionId: id, chars: '', yieldTimeMs: 5_000 });
    expect(reply).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(reply.output).toContain('got abcdef');
  });

  it('wakes a reader in canonical mode only with the end of a line, EOF or a signal', () => {
    expect(wakesReader('abc', false)).toBe(true);
    expect(wakesReader('abc', undefined)).toBe(true);
    expect(wakesReader('abc', true)).toBe(false);
    for (const end of ['\n', '\r', '\x04', '\x03', '\x1a', '\x1c']) expect(wakesReader(`abc${end}`, true)).toBe(true);
    expect(wakesReader('', false)).toBe(false);
  });

  it("reads the terminal's mode only for input whose answers depend on it (a property of any input)", () => {
    const waking = fc.constantFrom('\n', '\r', '\x04', '\x03', '\x1a', '\x1c');
    const input = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), waking).map(([text, end]) => text + end),
      fc
        .tuple(fc.string({ unit: 'binary', maxLength: 2000 }), waking, fc.nat(5000))
        .map(([text, end, repeat]) => text.repeat(1 + (repeat % 4)) + end + 'x'.repeat(repeat)),
    );
    fc.assert(
      fc.property(input, (chars) => {
        if (modeMatters(chars)) return;
        for (const canonical of [true, false, undefined]) {
          expect(wakesReader(chars, canonical)).toBe(wakesReader(chars, undefined));
          expect(canonicalLineWarning(chars, canonical)).toBe(undefined);
        }
      }),
      { numRuns: 5_000 },
    );
    expect(modeMatters('echo hi\r')).toBe(false); // the usual command: no tcgetattr
    expect(modeMatters('abc')).toBe(true);
    expect(modeMatters(`${'x'.repeat(5000)}\r`)).toBe(true);
  });
});

describe("a call's wait signal", () => {
  /** Keeps each watch's signal; `leave` adds a listener it never removes; `answer` false waits to be aborted. */
  class SignalPolicy implements ReturnPolicy {
    readonly signals: AbortSignal[] = [];
    constructor(private readonly options: { leave?: boolean; answer?: boolean } = {}) {}
    watch({ signal }: WatchContext) {
      this.signals.push(signal);
      if (this.options.leave) signal.addEventListener('abort', () => undefined);
      if (this.options.answer === false)
        return new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined)));
      return Promise.resolve({ state: 'waiting_for_input' as const });
    }
  }
  const calls = async (policy: SignalPolicy, yieldTimeMs = 250) => {
    const manager = newManager({ executor: new FakeExecutor(), returnPolicy: policy, shellSnapshot: false });
    const id = (await manager.execCommand({ command: 'repl', tty: true, yieldTimeMs })).sessionId!;
    for (let i = 0; i < 3; i++) await manager.writeStdin({ sessionId: id, chars: `${i}\r`, yieldTimeMs });
    return policy.signals;
  };

  it('serves the next call when the policy answered and left no listener on it, never aborted', async () => {
    const signals = await calls(new SignalPolicy());
    expect(signals).toHaveLength(4);
    expect(new Set(signals).size).toBe(1);
    expect(signals[0]!.aborted).toBe(false);
  });

  it('is a new one after a policy left a listener on it, or was aborted at the deadline', async () => {
    const left = await calls(new SignalPolicy({ leave: true }));
    expect(new Set(left).size).toBe(4);
    const aborted = await calls(new SignalPolicy({ answer: false }), 20);
    expect(new Set(aborted).size).toBe(4);
    expect(aborted.every((signal) => signal.aborted)).toBe(true);
  });
});
