import type { UpdateChunk } from './parse-patch.js';
import { seekLines } from './seek-lines.js';

/** The chunks of an update do not fit the file; the message names the file and what was looked for. */
export class PatchMismatchError extends Error {
  override readonly name = 'PatchMismatchError';
}

/**
 * A file's contents after an update's chunks, which must come in file order. `shownPath` names the file in errors.
 * The result always ends with a newline.
 */
export function updatedContents(original: string, chunks: readonly UpdateChunk[], shownPath: string): string {
  const lines = original.split('\n');
  if (lines[lines.length - 1] === '') lines.pop(); // the final newline ends a line; it starts none
  const replacements = findReplacements(lines, chunks, shownPath);
  // From the bottom up, so each replacement leaves the positions of the ones above it alone.
  for (const { at, remove, insert } of replacements.reverse()) lines.splice(at, remove, ...insert);
  if (lines[lines.length - 1] !== '') lines.push('');
  return lines.join('\n');
}

interface Replacement {
  at: number;
  remove: number;
  insert: string[];
}

function findReplacements(lines: string[], chunks: readonly UpdateChunk[], shownPath: string): Replacement[] {
  const found: Replacement[] = [];
  let next = 0;
  for (const chunk of chunks) {
    if (chunk.context !== undefined) {
      const at = seekLines(lines, [chunk.context], next, false);
      if (at < 0) throw new PatchMismatchError(`Failed to find context '${chunk.context}' in ${shownPath}`);
      next = at + 1;
    }
    if (chunk.oldLines.length === 0) {
      // Only additions: they go at the end of the file.
      const end = lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
      found.push({ at: end, remove: 0, insert: chunk.newLines });
      continue;
    }
    let pattern = chunk.oldLines;
    let insert = chunk.newLines;
    let at = seekLines(lines, pattern, next, chunk.endOfFile);
    // A trailing empty old line stands for the file's final newline, which `lines` does not hold: try without it.
    if (at < 0 && pattern[pattern.length - 1] === '') {
      pattern = pattern.slice(0, -1);
      if (insert[insert.length - 1] === '') insert = insert.slice(0, -1);
      at = seekLines(lines, pattern, next, chunk.endOfFile);
    }
    if (at < 0) {
      throw new PatchMismatchError(`Failed to find expected lines in ${shownPath}:\n${chunk.oldLines.join('\n')}`);
    }
    found.push({ at, remove: pattern.length, insert });
    next = at + pattern.length;
  }
  return found.sort((a, b) => a.at - b.at);
}
