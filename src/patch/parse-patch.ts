/**
 * Codex's patch format, as models trained on Codex write it:
 *
 *     *** Begin Patch
 *     *** Add File: path        then the new file's lines, each after a `+`
 *     *** Delete File: path
 *     *** Update File: path     optionally `*** Move to: new path`, then chunks:
 *     @@ optional context line  (may be left out before the first chunk)
 *      unchanged / -removed / +added lines
 *     *** End of File           (optional: the chunk's old lines end the file)
 *     *** End Patch
 *
 * Parsing is lenient where models are sloppy (padding around markers, blank lines between chunks, a heredoc wrapper
 * left around the patch) and strict elsewhere; errors name the patch line they are about.
 */

export interface UpdateChunk {
  /** A line (a function or class header, say) the chunk's old lines come after. */
  context?: string;
  oldLines: string[];
  newLines: string[];
  /** The old lines are the last lines of the file. */
  endOfFile: boolean;
}

export type Hunk =
  | { kind: 'add'; path: string; contents: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; chunks: UpdateChunk[] };

/** A patch that is not in the format; `message` is worded as Codex words it, so a model knows what to fix. */
export class PatchParseError extends Error {
  override readonly name = 'PatchParseError';
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const HEREDOC_STARTS = ['<<EOF', "<<'EOF'", '<<"EOF"'];

const invalidPatch = (message: string) => new PatchParseError(`invalid patch: ${message}`);
const invalidHunk = (line: number, message: string) => new PatchParseError(`invalid hunk at line ${line}, ${message}`);

/** The hunks of a patch, in order; throws PatchParseError. An empty patch (markers only) has none. */
export function parsePatch(text: string): Hunk[] {
  // Lines as Rust's str::lines cuts them: on \n, a \r before it dropped.
  const lines = text
    .trim()
    .split('\n')
    .map((line) => line.replace(/\r$/, ''));
  const body = patchBody(lines);
  const hunks: Hunk[] = [];
  let at = 0;
  // Every step reads `body` by index, never a copy of its rest: a patch of many hunks costs its length, not its square.
  while (at < body.length) {
    const { hunk, used } = parseHunk(body, at, at + 2);
    hunks.push(hunk);
    at += used;
  }
  return hunks;
}

/** The lines between the markers. A patch a model left inside its `<<'EOF'` … `EOF` wrapper is unwrapped. */
function patchBody(lines: string[]): string[] {
  const marked = (inner: string[]) => inner[0]?.trim() === BEGIN && inner[inner.length - 1]?.trim() === END;
  if (marked(lines) && lines.length >= 2) return lines.slice(1, -1);
  const inner = lines.slice(1, -1);
  if (lines.length >= 4 && HEREDOC_STARTS.includes(lines[0]!) && lines[lines.length - 1]!.endsWith('EOF')) {
    if (marked(inner)) return inner.slice(1, -1);
    lines = inner;
  }
  if (lines[0]?.trim() !== BEGIN) throw invalidPatch(`The first line of the patch must be '${BEGIN}'`);
  throw invalidPatch(`The last line of the patch must be '${END}'`);
}

/** One hunk from `lines[from]` on (`lineNumber`: the patch line of lines[from]) and how many lines it took. */
function parseHunk(all: string[], from: number, lineNumber: number): { hunk: Hunk; used: number } {
  const lines = { length: all.length - from, at: (i: number) => all[from + i] };
  const header = lines.at(0)!.trim();
  if (header.startsWith(ADD)) {
    let used = 1;
    let contents = '';
    while (used < lines.length && lines.at(used)!.startsWith('+')) contents += `${lines.at(used++)!.slice(1)}\n`;
    return { hunk: { kind: 'add', path: header.slice(ADD.length), contents }, used };
  }
  if (header.startsWith(DELETE)) return { hunk: { kind: 'delete', path: header.slice(DELETE.length) }, used: 1 };
  if (!header.startsWith(UPDATE)) {
    throw invalidHunk(
      lineNumber,
      `'${header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    );
  }
  const path = header.slice(UPDATE.length);
  let used = 1;
  let moveTo: string | undefined;
  const second = lines.at(1);
  if (second?.startsWith(MOVE)) {
    moveTo = second.slice(MOVE.length);
    used++;
  }
  const chunks: UpdateChunk[] = [];
  while (used < lines.length) {
    const line = lines.at(used)!;
    if (line.trim() === '') {
      used++; // blank lines between chunks
      continue;
    }
    if (line.startsWith('*')) break; // the next hunk, or the end
    const parsed = parseChunk(all, from + used, lineNumber + used, chunks.length === 0);
    chunks.push(parsed.chunk);
    used += parsed.used;
  }
  if (chunks.length === 0) throw invalidHunk(lineNumber, `Update file hunk for path '${path}' is empty`);
  return { hunk: { kind: 'update', path, ...(moveTo !== undefined ? { moveTo } : {}), chunks }, used };
}

/** One `@@` chunk from `all[from]` on; the first of a file may leave out its `@@` line. */
function parseChunk(
  all: string[],
  from: number,
  lineNumber: number,
  mayOmitHeader: boolean,
): { chunk: UpdateChunk; used: number } {
  const lines = { length: all.length - from };
  const first = all[from]!;
  let start = 1;
  let context: string | undefined;
  if (first.startsWith('@@ ')) context = first.slice(3);
  else if (first !== '@@') {
    if (!mayOmitHeader) {
      throw invalidHunk(lineNumber, `Expected update hunk to start with a @@ context marker, got: '${first}'`);
    }
    start = 0;
  }
  if (start >= lines.length) throw invalidHunk(lineNumber + 1, 'Update hunk does not contain any lines');
  const chunk: UpdateChunk = {
    ...(context !== undefined ? { context } : {}),
    oldLines: [],
    newLines: [],
    endOfFile: false,
  };
  let taken = 0;
  for (let i = from + start; i < all.length; i++) {
    const line = all[i]!;
    if (line === END_OF_FILE) {
      if (taken === 0) throw invalidHunk(lineNumber + 1, 'Update hunk does not contain any lines');
      chunk.endOfFile = true;
      taken++;
      break;
    }
    const mark = line[0];
    const rest = line.slice(1);
    if (mark === undefined) {
      // An empty line: an unchanged empty line whose leading space was lost.
      chunk.oldLines.push('');
      chunk.newLines.push('');
    } else if (mark === ' ') {
      chunk.oldLines.push(rest);
      chunk.newLines.push(rest);
    } else if (mark === '+') chunk.newLines.push(rest);
    else if (mark === '-') chunk.oldLines.push(rest);
    else {
      if (taken === 0) {
        throw invalidHunk(
          lineNumber + 1,
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
        );
      }
      break; // the next chunk's `@@`
    }
    taken++;
  }
  return { chunk, used: start + taken };
}
