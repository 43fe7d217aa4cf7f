// Every parser that runs on the server's event loop over bytes a model or a program controls, fed adversarial input
// at the size limit it can meet: the time bounds are for a loaded 2-core machine (seconds), and where a parser's work
// is measured at two sizes, twice the input must cost about twice the time, not four times.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { isDangerousCommand, isKnownSafeCommand } from '../src/approval/command-safety.js';
import { gitPlaces } from '../src/approval/git-places.js';
import { parseShellScript } from '../src/approval/shell-script.js';
import { HeadTailBuffer, OUTPUT_MAX_BYTES } from '../src/buffer/head-tail-buffer.js';
import { truncateForModel } from '../src/buffer/truncate.js';
import { Utf8StreamDecoder } from '../src/buffer/utf8-decoder.js';
import { JsonRpcLineGuard, MCP_MAX_MESSAGE_BYTES, checkLine } from '../src/mcp/line-guard.js';
import { checkRequest } from '../src/mcp/request-guard.js';
import { parseInvocation } from '../src/patch/invocation.js';
import { parsePatch } from '../src/patch/parse-patch.js';
import { detectDenial } from '../src/sandbox/denial.js';
import type { SandboxPolicy } from '../src/sandbox/policy.js';
import { splitCursorDrawing } from '../src/screen/cursor-address.js';
import { Screen } from '../src/screen/screen.js';
import { RECENT_OUTPUT_BYTES } from '../src/screen/session-screen.js';
import { TerminalModes, outsideAlternateScreen } from '../src/screen/terminal-modes.js';
import { MarkerScanner } from '../src/spawn/marker-scanner.js';
import { scanTopLevelId } from '../src/util/json-id-scanner.js';

/**
 * Whole seconds: these inputs took minutes to hours before, and take milliseconds to a second now; the bound leaves
 * room for a 2-core machine running the rest of the suite beside (one took 7 s there against an earlier 3 s bound).
 */
const BOUND_MS = 10_000;

/** `unit` repeated to `bytes` characters (about), with `tail` after it. */
const fill = (unit: string, bytes: number, tail = '') => unit.repeat(Math.ceil(bytes / unit.length)) + tail;

/** How long `work` takes, in ms: the fastest of `runs`, the least disturbed by the rest of the machine. */
function fastestMs(work: () => unknown, runs = 1): number {
  let best = Infinity;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/**
 * Work at the size limit stays under BOUND_MS, and work on an eighth of it is within ~3x of the work on a sixteenth
 * (a quadratic parser would take 4x; these took minutes at the limit before).
 */
function expectBoundedAndLinear<T>(make: (bytes: number) => T, parse: (input: T) => unknown, limit: number) {
  const input = make(limit);
  expect(fastestMs(() => parse(input))).toBeLessThan(BOUND_MS);
  const small = make(limit / 16);
  const large = make(limit / 8);
  // Measured up to three times: a busy machine can slow one measure down, a quadratic parser slows all three.
  let ratio = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const smallMs = fastestMs(() => parse(small), 5);
    const largeMs = fastestMs(() => parse(large), 5);
    if (largeMs < 3 * smallMs + 25) return; // + 25 ms: timer and GC noise at small sizes
    ratio = `${largeMs.toFixed(1)} ms for twice the input of ${smallMs.toFixed(1)} ms`;
  }
  expect.fail(`work grows faster than the input: ${ratio}`);
}

const heredoc = (body: string) => `apply_patch <<'EOF'\n${body}\nEOF\n`;

// A `cmd` is at most as long as a stdio message (10 MiB); the HTTP body limit (4 MiB) is below it.
describe('the patch parsers, on a `cmd` as long as a stdio message allows', () => {
  it.each([
    ['blank lines, then a line of text', (n: number) => heredoc(fill('\n', n, 'x'))],
    ['blank lines only', (n: number) => heredoc(fill('\n', n))],
    ['spaces and tabs before the delimiter', (n: number) => heredoc(fill(' \t', n))],
    ['a cd with a long word', (n: number) => `cd ${fill('a', n)} && apply_patch <<'EOF'\nx\nEOF\n`],
    ['an unterminated heredoc', (n: number) => `apply_patch <<'EOF'\n${fill('EOF \n', n)}`],
  ])('parseInvocation: %s', (_, make) => {
    expectBoundedAndLinear(make, parseInvocation, MCP_MAX_MESSAGE_BYTES);
  });

  it.each([
    ['many Delete File hunks', (n: number) => `*** Begin Patch\n${fill('*** Delete File: a\n', n)}*** End Patch`],
    ['one long update chunk', (n: number) => `*** Begin Patch\n*** Update File: a\n@@\n${fill('+x\n-y\n', n)}`],
    ['carriage returns', (n: number) => `*** Begin Patch\n${fill('\r', n)}\n*** End Patch`],
    ['blank lines between chunks', (n: number) => `*** Begin Patch\n*** Update File: a\n${fill('\n \n', n)}`],
  ])('parsePatch: %s', (_, make) => {
    const parse = (text: string) => {
      try {
        return parsePatch(text);
      } catch {
        return undefined;
      }
    };
    expectBoundedAndLinear(make, parse, MCP_MAX_MESSAGE_BYTES);
  });
});

describe("the approval's reading of a model's `cmd`", () => {
  /** Just under the longest script it reads (Linux's one-argument limit); longer ones are asked about unread. */
  const READ_BYTES = 120 * 1024;
  it.each([
    ['a long plain word', (n: number) => `ls ${fill('a', n)}`],
    ['many commands', (n: number) => fill('ls && ', n, 'ls')],
    ['a run of slashes in an rm path', (n: number) => `rm -r ${fill('/', n, 'x')}`],
    ['an unterminated quote', (n: number) => `echo '${fill("a'b", n)}`],
    ['many quoted words', (n: number) => fill(`"a" 'b' `, n)],
    ['evals in evals', (n: number) => fill('eval ', n, 'ls')],
    ['evals and wrappers', (n: number) => fill('eval nice ', n, 'ls $x')],
    ['wrappers', (n: number) => fill('nice env A=1 ', n, 'ls')],
    ['find -exec find', (n: number) => `find ${fill('. -exec find ', n, '. ;')}`],
    ['relative cds, each from every folder before', (n: number) => fill('cd a; cd .; ', n, 'git status')],
    ['git -C and env -C', (n: number) => fill('git -C a -C b env -C c ', n)],
    ['folders picked at run time', (n: number) => fill('cd $a; GIT_DIR=$(pwd) ', n)],
  ])('%s', (_, make) => {
    const judge = (script: string) => [
      isDangerousCommand(['bash', '-lc', script]),
      isKnownSafeCommand(['bash', '-lc', script], 'sandbox'),
      gitPlaces(['bash', '-lc', script], '/w', { HOME: '/h' }),
    ];
    const read = (script: string) => [
      ...judge(script),
      parseShellScript(script),
      isDangerousCommand(script.split(' ')),
    ];
    expectBoundedAndLinear(make, read, READ_BYTES);
    const longest = make(MCP_MAX_MESSAGE_BYTES);
    expect(fastestMs(() => judge(longest))).toBeLessThan(BOUND_MS);
  });
});

describe("a session's output, 1 MiB of it (the most a session keeps unread)", () => {
  const outputs: [string, (n: number) => string][] = [
    ['controls, a letter, then a cursor address', (n) => fill('\x01', n, 'x\x1b[2;1H')],
    ['escapes that open sequences never closed', (n) => fill('\x1b[1', n, 'x\x1b[2;1H')],
    ['OSC openings', (n) => fill('\x1b]', n, 'x\x1b[2;1H')],
    ['alternate-screen switches', (n) => fill('\x1b[?1049h\x1b[?1049l', n)],
    ['cursor-address openings', (n) => fill('\x1b[9', n, ';')],
  ];

  it.each(outputs)('splitCursorDrawing and outsideAlternateScreen: %s', (_, make) => {
    const read = (text: string) => splitCursorDrawing(outsideAlternateScreen(text, false), 24);
    expectBoundedAndLinear(make, read, OUTPUT_MAX_BYTES);
  });

  it.each(outputs)('TerminalModes, fed in 4 KiB chunks: %s', (_, make) => {
    const feed = (bytes: Buffer) => {
      const modes = new TerminalModes();
      for (let at = 0; at < bytes.length; at += 4096) modes.feed(bytes.subarray(at, at + 4096));
    };
    expectBoundedAndLinear((n) => Buffer.from(make(n), 'latin1'), feed, OUTPUT_MAX_BYTES);
  });

  it.each([
    ['/dev/tcp paths', (n: number) => fill('/dev/tcp/', n, ' Permission denied')],
    ['socket call names', (n: number) => fill('connect', n, ': Operation not permitted')],
    ['blocked-domain openings', (n: number) => fill('unified-exec sandbox: network access to ', n, 'x')],
    ['lines of carriage returns', (n: number) => fill('\r', n, '\n')],
  ])('detectDenial: %s', (_, make) => {
    const policy: SandboxPolicy = {
      ...{ mode: 'workspace-write', network: 'off', backend: 'landlock' },
      ...{ allowedDomains: [], workspace: '/w', writableRoots: [] },
    };
    expectBoundedAndLinear(make, (text) => detectDenial(policy, 1, text), OUTPUT_MAX_BYTES);
  });

  it('the head/tail buffer, truncation and the UTF-8 decoder', () => {
    const garbage = (n: number) => Buffer.from(fill('\xe2\x82\xff\xc0', n), 'latin1');
    const keep = (bytes: Buffer) => {
      const buffer = new HeadTailBuffer();
      for (let at = 0; at < bytes.length; at += 64) buffer.push(bytes.subarray(at, at + 64));
      return buffer.drain();
    };
    expectBoundedAndLinear(garbage, keep, OUTPUT_MAX_BYTES);
    const decode = (bytes: Buffer) => new Utf8StreamDecoder().write(bytes);
    expectBoundedAndLinear(garbage, decode, OUTPUT_MAX_BYTES);
    const truncate = (text: string) => truncateForModel(text, 10_000);
    expectBoundedAndLinear((n) => fill('\u2603\n', n), truncate, MCP_MAX_MESSAGE_BYTES);
  });

  it('the marker scanner, fed chunks that each end in most of the marker', () => {
    const marker = Buffer.from('__unified_exec_marker_0123456789__');
    const chunk = Buffer.concat([Buffer.alloc(4096, 0x61), marker.subarray(0, marker.length - 1)]);
    const scan = (chunks: number) => {
      const scanner = new MarkerScanner(marker);
      for (let i = 0; i < chunks; i++) scanner.push(chunk);
    };
    expectBoundedAndLinear((n) => Math.ceil(n / chunk.length), scan, OUTPUT_MAX_BYTES);
  });
});

describe('JSON-RPC framing, at the stdio message limit and past it', () => {
  it.each([
    ['deep nesting', (n: number) => `{"params":${fill('[', n)}`],
    ['escapes', (n: number) => `{"x":"${fill('\\"', n)}","id":1}`],
    ['keys that begin like "id"', (n: number) => `{${fill('"i":0,', n)}"id":1}`],
  ])('%s', (_, make) => {
    expectBoundedAndLinear(make, scanTopLevelId, MCP_MAX_MESSAGE_BYTES);
    expectBoundedAndLinear(make, checkLine, MCP_MAX_MESSAGE_BYTES);
    const frame = (text: string) => {
      const guard = new JsonRpcLineGuard({ message: () => {}, reply: () => {} });
      const bytes = Buffer.from(`${text}\n${text}\n`);
      for (let at = 0; at < bytes.length; at += 65536) guard.write(bytes.subarray(at, at + 65536));
    };
    expectBoundedAndLinear(make, frame, MCP_MAX_MESSAGE_BYTES);
  });

  it('the HTTP guard, on headers as long as Node takes', () => {
    const policy = { allowedHosts: new Set(['127.0.0.1:1']), token: 'x'.repeat(32) };
    const headers = (n: number) => ({
      host: '127.0.0.1:1',
      origin: `http://[${fill(':', n)}`,
      authorization: `Bearer ${fill(' \t', n, 'x')}`,
    });
    expectBoundedAndLinear(headers, (h) => checkRequest(h, policy), 16 * 1024);
  });
});

describe("the screen's emulator, replaying the history a session keeps", () => {
  /** The longest the event loop waited while `screen` parsed `bytes`, in ms. */
  async function loopLagWhileParsing(bytes: Buffer): Promise<number> {
    const screen = new Screen(80, 24);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    screen.write(bytes);
    await screen.snapshot();
    delay.disable();
    screen.dispose();
    return delay.max / 1e6;
  }

  it.each([
    ['REP of 30 000 000', 'a\x1b[30000000b'],
    ['SU of 2 000 000 000', '\x1b[2000000000S'],
    ['IL of 2 000 000 000', '\x1b[2000000000L'],
    ['DL of 2 000 000 000', '\x1b[2000000000M'],
    ['SD of 2 000 000 000', '\x1b[2000000000T'],
    ['CHT of 2 000 000 000', '\x1b[2000000000I'],
    ['CBT of 2 000 000 000', '\x1b[2000000000Z'],
    ['full resets', '\x1bc'],
    ['erases', '\x1b[2J'],
  ])('%s, repeated over the whole history, holds the loop briefly', async (_, unit) => {
    const bytes = Buffer.from(fill(unit, RECENT_OUTPUT_BYTES), 'latin1').subarray(0, RECENT_OUTPUT_BYTES);
    const start = performance.now();
    const lagMs = await loopLagWhileParsing(Buffer.concat([Buffer.from('\x1b[?1049h'), bytes]));
    expect(performance.now() - start).toBeLessThan(3 * BOUND_MS);
    // Unbounded, one control held the loop for seconds to hours; a loaded machine alone can add a few hundred ms.
    expect(lagMs).toBeLessThan(1_000);
  });
});
