// Reads exec_command and write_stdin replies as the model does: from the compat text, with no structured fields.

/** The fields a model can read off one reply's text. */
export interface ExecText {
  chunkId: string;
  /** Present once the process has exited. */
  exitCode?: number;
  /** Present while the process runs. */
  sessionId?: number;
  originalTokenCount: number;
  /** Everything after the `Output:` line. */
  output: string;
}

/** Splits a reply at its `Output:` line and reads the header lines above it; throws on text that is not a reply. */
export function readExecText(text: string): ExecText {
  const at = text.indexOf('\nOutput:\n');
  if (!text.startsWith('Chunk ID: ') || at < 0) throw new Error(`not an exec reply: ${JSON.stringify(text)}`);
  const header = text.slice(0, at);
  const field = (pattern: RegExp) => pattern.exec(header)?.[1];
  const exitCode = field(/^Process exited with code (-?\d+)$/m);
  const sessionId = field(/^Process running with session ID (\d+)$/m);
  return {
    chunkId: field(/^Chunk ID: (\S+)$/m) ?? '',
    ...(exitCode !== undefined ? { exitCode: Number(exitCode) } : {}),
    ...(sessionId !== undefined ? { sessionId: Number(sessionId) } : {}),
    originalTokenCount: Number(field(/^Original token count: (\d+)$/m) ?? NaN),
    output: text.slice(at + '\nOutput:\n'.length),
  };
}

/** One line of list_sessions' text. */
export interface ListedSession {
  sessionId: number;
  running: boolean;
  pid?: number;
  command: string;
}

/** The sessions list_sessions' text names, in its order. */
export function readSessionList(text: string): ListedSession[] {
  return [
    ...text.matchAll(/^Session ID (\d+): (running|exited[^;]*);.*?(?:; pid (\d+))?; started .*; command: (.*)$/gm),
  ].map((m) => ({
    sessionId: Number(m[1]),
    running: m[2] === 'running',
    ...(m[3] !== undefined ? { pid: Number(m[3]) } : {}),
    command: m[4] ?? '',
  }));
}
