// Properties of the parsers that read what a model or a program sends, checked on generated input (fast-check): they
// never throw an unexpected error, round-trip what they frame, and agree with a plain reference on small inputs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDangerousCommand, isKnownSafeCommand } from '../src/approval/command-safety.js';
import { parseShellScript } from '../src/approval/shell-script.js';
import { HeadTailBuffer } from '../src/buffer/head-tail-buffer.js';
import { truncateForModel } from '../src/buffer/truncate.js';
import { Utf8StreamDecoder } from '../src/buffer/utf8-decoder.js';
import { parseInvocation } from '../src/patch/invocation.js';
import { PatchParseError, parsePatch } from '../src/patch/parse-patch.js';
import { splitCursorDrawing } from '../src/screen/cursor-address.js';
import { TerminalModes } from '../src/screen/terminal-modes.js';
import { nestsDeeperThan } from '../src/util/json-depth.js';
import { scanTopLevelId } from '../src/util/json-id-scanner.js';
import { JsonLineFramer } from '../src/util/json-lines.js';

/** A few hundred runs each: enough to find what the pieces below combine into, fast enough for every CI run. */
const RUNS = { numRuns: 300 };

/** Text made of the given pieces: small inputs that reach the parsers' corners. */
const textOf = (pieces: string[], maxLength = 30) =>
  fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(''));

/** Cuts `bytes` at the given points into the chunks a stream might deliver. */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of at) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

describe('the patch parsers', () => {
  const commandPieces = ['apply_patch', 'applypatch', ' ', '\t', '<<', "'EOF'", '"EOF"', 'EOF', '\n', 'x', 'cd a && '];

  it('parseInvocation agrees with a line-splitting reference', () => {
    // The reading it replaced (split into lines, a regex for the final newlines), fine on small inputs.
    const reference = (command: string) => {
      const head =
        /^[ \t]*(?:cd[ \t]+(\S+)[ \t]*&&[ \t]*)?(?:apply_patch|applypatch)[ \t]*<<[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([A-Za-z0-9_]+))[ \t]*\n/.exec(
          command,
        );
      if (!head) return undefined;
      const lines = command.slice(head[0].length).split('\n');
      const end = lines.indexOf(head[2] ?? head[3] ?? head[4]!);
      if (end < 0 || lines.slice(end + 1).some((line) => line.trim() !== '')) return undefined;
      const patch = lines.slice(0, end).join('\n').replace(/\n+$/, '');
      return { patch, ...(head[1] !== undefined ? { cd: head[1] } : {}) };
    };
    fc.assert(
      fc.property(textOf(commandPieces), (command) => {
        expect(parseInvocation(command)).toEqual(reference(command));
      }),
      RUNS,
    );
  });

  it('parseInvocation gives back the heredoc it was given', () => {
    const line = textOf(['a', ' ', '*', '+', '-', '@@', 'EO', 'F'], 8).filter((l) => l !== 'EOF');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const patch = lines.join('\n').replace(/\n+$/, '');
        expect(parseInvocation(`apply_patch <<'EOF'\n${lines.join('\n')}\nEOF\n`)).toEqual({ patch });
      }),
      RUNS,
    );
  });

  it('parsePatch throws only PatchParseError, and reads back the files a patch adds', () => {
    const pieces = ['*** Begin Patch', '*** End Patch', '*** Add File: a', '*** Update File: b', '*** Delete File: c'];
    const linePieces = [...pieces, '*** Move to: d', '@@', '@@ x', '+y', '-z', ' w', '', '*** End of File', '\r'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...linePieces), { maxLength: 20 }), (lines) => {
        try {
          parsePatch(lines.join('\n'));
        } catch (error) {
          expect(error).toBeInstanceOf(PatchParseError);
        }
      }),
      RUNS,
    );
    const file = fc.record({
      path: textOf(['a', 'b', '/', '.'], 6).filter((p) => p !== ''),
      lines: fc.array(textOf(['x', ' ', '+'], 5), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(file, { minLength: 1, maxLength: 4 }), (files) => {
        const body = files.flatMap((f) => [`*** Add File: ${f.path}`, ...f.lines.map((l) => `+${l}`)]);
        const hunks = parsePatch(['*** Begin Patch', ...body, '*** End Patch'].join('\n'));
        expect(hunks).toEqual(
          files.map((f) => ({ kind: 'add', path: f.path, contents: f.lines.map((l) => `${l}\n`).join('') })),
        );
      }),
      RUNS,
    );
  });
});

describe("the approval's reading of a script", () => {
  const scriptPieces = [
    'ls',
    'rm',
    '-rf',
    '/',
    ' ',
    '&&',
    '||',
    ';',
    '|',
    '\n',
    "'",
    '"',
    '$x',
    'eval',
    'nice',
    'bash -c',
    'find . -exec',
    '\\;',
    '*',
    '(',
    '`',
  ];

  it('never throws, whatever the script', () => {
    fc.assert(
      fc.property(textOf(scriptPieces, 40), (script) => {
        parseShellScript(script);
        isDangerousCommand(['bash', '-lc', script]);
        isKnownSafeCommand(['bash', '-lc', script], 'host');
        isDangerousCommand(script.split(' '));
      }),
      RUNS,
    );
  });

  it('reads back plain words joined by operators', () => {
    const word = textOf(['a', 'b', '-', '.', '/', ','], 5).filter((w) => /^[a-z]/.test(w));
    const command = fc.array(word, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(' && ', ' || ', '; ', ' | ', '\n'),
        (commands, op) => {
          expect(parseShellScript(commands.map((c) => c.join(' ')).join(op))).toEqual(commands);
        },
      ),
      RUNS,
    );
  });
});

describe("the scanners of a session's output", () => {
  const outputPieces = [
    '\x1b',
    '[',
    '2',
    ';',
    '1',
    'H',
    'd',
    'f',
    '\x01',
    '\x07',
    ']',
    '\\',
    'x',
    '\n',
    '?1049h',
    '\x1b[2J',
  ];

  it('splitCursorDrawing agrees with the anchored regex it replaced', () => {
    const invisible =
      // eslint-disable-next-line no-control-regex -- terminal sequences
      /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-B]|[=>78])|[\x00-\x08\x0b-\x1f]/;
    const trailing = new RegExp(`(?:${invisible.source})+$`);
    const cursorAddress = /\x1b\[\d+(?:;\d*)?[Hf]|\x1b\[\d+d/; // eslint-disable-line no-control-regex
    fc.assert(
      fc.property(textOf(outputPieces, 40), textOf(outputPieces, 10), (before, after) => {
        const text = `${before}\x1b[2;1H${after}`; // most then draw
        const at = text.search(cursorAddress);
        const { drawn, text: left } = splitCursorDrawing(text, 24);
        if (!drawn) return;
        const kept = text.slice(0, at).replace(trailing, '');
        const visible = kept.replace(new RegExp(invisible.source, 'g'), '').trim();
        expect(left).toBe(visible === '' ? '' : kept);
      }),
      RUNS,
    );
  });

  it('TerminalModes ends in the same modes however the output is cut', () => {
    const pieces = ['\x1b[?1049h', '\x1b[?1049l', '\x1b[?1h', '\x1b[?1l', '\x1b[?47h', '\x1b', '[', '?', '1', 'x'];
    fc.assert(
      fc.property(textOf(pieces, 30), fc.array(fc.nat(), { maxLength: 8 }), (text, points) => {
        const whole = new TerminalModes();
        whole.feed(Buffer.from(text));
        const pieced = new TerminalModes();
        for (const chunk of cut(Buffer.from(text), points)) pieced.feed(chunk);
        expect([pieced.alternate, pieced.applicationCursorKeys]).toEqual([
          whole.alternate,
          whole.applicationCursorKeys,
        ]);
      }),
      RUNS,
    );
  });
});

describe('the JSON-RPC framing', () => {
  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }));

  it('finds the top-level id wherever it is, however the bytes are cut', () => {
    const other = fc.dictionary(
      fc.string({ maxLength: 4 }).filter((k) => k !== 'id'),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(id, other, fc.nat(), fc.array(fc.nat(), { maxLength: 6 }), (value, rest, where, points) => {
        const entries = Object.entries(rest);
        entries.splice(where % (entries.length + 1), 0, ['id', value]);
        const text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
        expect(scanTopLevelId(text)).toEqual(value);
        const lines: Buffer[] = [];
        const framer = new JsonLineFramer(
          { line: (bytes) => lines.push(Buffer.from(bytes)), oversized: () => {} },
          1 << 20,
        );
        for (const chunk of cut(Buffer.from(`${text}\n${text}\n`), points)) framer.write(chunk);
        expect(lines.map((line) => line.toString())).toEqual([text, text]);
      }),
      RUNS,
    );
  });

  it('never throws on any bytes, and hands on every line, kept or over-long', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 6 }), (bytes, points) => {
        scanTopLevelId(bytes);
        let count = 0;
        const framer = new JsonLineFramer({ line: () => count++, oversized: () => count++ }, 16);
        for (const chunk of cut(Buffer.from(bytes), points)) framer.write(chunk);
        expect(count).toBe(bytes.filter((b) => b === 10).length);
      }),
      RUNS,
    );
  });

  it('nestsDeeperThan agrees with the depth of what JSON.parse reads', () => {
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 6 }), (value, max) => {
        expect(nestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
      RUNS,
    );
  });
});

describe('the output buffer, truncation and decoding', () => {
  it('the head/tail buffer keeps every byte while under its budget, and head, tail and the gap add up past it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 200 }),
        (chunks, max) => {
          const buffer = new HeadTailBuffer(max);
          for (const chunk of chunks) buffer.push(chunk);
          const all = Buffer.concat(chunks);
          const { head, tail, omittedBytes, totalBytes } = buffer.drain();
          expect(totalBytes).toBe(all.length);
          expect(head.length + tail.length + omittedBytes).toBe(all.length);
          expect(Buffer.concat([head, tail]).equals(all)).toBe(omittedBytes === 0);
          expect(head.equals(all.subarray(0, head.length))).toBe(true);
          expect(tail.equals(all.subarray(all.length - tail.length))).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('truncateForModel keeps text within budget as it is and cuts longer text near the budget', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), fc.integer({ min: 0, max: 60 }), (text, tokens) => {
        const result = truncateForModel(text, tokens);
        const bytes = Buffer.byteLength(text);
        if (bytes <= tokens * 4)
          expect(result).toEqual({ text, truncated: false, originalTokenCount: Math.ceil(bytes / 4) });
        else expect(Buffer.byteLength(result.text)).toBeLessThan(tokens * 4 + 120);
      }),
      RUNS,
    );
  });

  it('the UTF-8 decoder gives back any text however its bytes are cut, and never throws on garbage', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60, unit: 'binary' }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, points) => {
          const decoder = new Utf8StreamDecoder();
          const decoded =
            cut(Buffer.from(text), points)
              .map((chunk) => decoder.write(chunk))
              .join('') + decoder.end();
          expect(decoded).toBe(text);
        },
      ),
      RUNS,
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const decoder = new Utf8StreamDecoder();
        expect(decoder.write(bytes) + decoder.end()).toBe(Buffer.from(bytes).toString('utf8'));
      }),
      RUNS,
    );
  });

  it('the UTF-8 decoder reads bytes cut anywhere, ASCII runs and garbage, as the streaming TextDecoder does', () => {
    const byte = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xff }));
    fc.assert(
      fc.property(
        fc.array(byte, { maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.nat(10),
        (list, points, endAt) => {
          const decoder = new Utf8StreamDecoder();
          const reference = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
          const chunks = cut(Buffer.from(list), points);
          for (const [i, chunk] of chunks.entries()) {
            expect(decoder.write(chunk)).toBe(reference.decode(chunk, { stream: true }));
            if (i === endAt) expect(decoder.end()).toBe(reference.decode());
          }
          expect(decoder.end()).toBe(reference.decode());
        },
      ),
      RUNS,
    );
  });
});
