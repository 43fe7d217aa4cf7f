import { MAX_MESSAGE_BYTES, INVALID_REQUEST, UNPARSABLE_MESSAGE_ID } from './protocol.js';
import type { ExecServer } from './server.js';

export interface StdioStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * Serves `server` to one client over newline-delimited JSON: a message per line on `input`, each answer and
 * notification a line on `output` (nothing else may go there; logs go to stderr). A line over 16 MiB is dropped
 * with a -32600 error (there is no connection to close but this one). Resolves when `input` ends.
 */
export function serveStdio(
  server: ExecServer,
  streams: StdioStreams = { input: process.stdin, output: process.stdout },
) {
  const { input, output } = streams;
  let open = true;
  const connection = server.connect({
    label: 'stdio',
    send: (text) => {
      if (open) output.write(`${text}\n`);
    },
    close: () => {
      open = false;
    },
  });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The line under way is already over the limit: its bytes are not kept. */
  let oversized = false;
  const refuse = () => {
    const error = { code: INVALID_REQUEST, message: `message refused: over ${MAX_MESSAGE_BYTES} bytes` };
    if (open) output.write(`${JSON.stringify({ error, id: UNPARSABLE_MESSAGE_ID })}\n`);
  };
  const line = (piece: Buffer) => {
    if (oversized || pendingBytes + piece.length > MAX_MESSAGE_BYTES) refuse();
    else {
      const text = Buffer.concat([...pending, piece])
        .toString('utf8')
        .replace(/\r$/, '');
      if (text.trim() !== '') connection.receive(text);
    }
    pending = [];
    pendingBytes = 0;
    oversized = false;
  };
  return new Promise<void>((resolve) => {
    input.on('data', (data: Buffer | string) => {
      let buffer = typeof data === 'string' ? Buffer.from(data) : data;
      for (let newline = buffer.indexOf(10); newline >= 0; newline = buffer.indexOf(10)) {
        line(buffer.subarray(0, newline));
        buffer = buffer.subarray(newline + 1);
      }
      if (buffer.length === 0 || oversized) return;
      pendingBytes += buffer.length;
      if (pendingBytes > MAX_MESSAGE_BYTES) {
        oversized = true;
        pending = [];
      } else {
        pending.push(Buffer.from(buffer));
      }
    });
    const done = () => {
      open = false;
      connection.closed();
      resolve();
    };
    input.once('end', done);
    input.once('close', done);
  });
}
