import { TopLevelIdScanner } from '../util/json-id-scanner.js';
import { EXEC_SERVER_MAX_MESSAGE_BYTES, INVALID_REQUEST, UNPARSABLE_MESSAGE_ID } from './protocol.js';
import type { ExecServer } from './server.js';

export interface StdioStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * Serves `server` to one client over newline-delimited JSON: a message per line on `input`, each answer and
 * notification a line on `output` (nothing else may go there; logs go to stderr). A line over 16 MiB is dropped
 * with a -32600 error carrying its id, wherever in the line it is (there is no connection to close but this one, and
 * its client waits for that id). Resolves when `input` ends.
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
  /** Set while the line under way is over the limit: its bytes are only scanned for its id, not kept. */
  let oversized: TopLevelIdScanner | undefined;
  const startOversized = (pieces: Buffer[]) => {
    oversized = new TopLevelIdScanner();
    for (const piece of pieces) oversized.feed(piece);
    pending = [];
  };
  const refuse = (scanner: TopLevelIdScanner) => {
    const error = { code: INVALID_REQUEST, message: `message refused: over ${EXEC_SERVER_MAX_MESSAGE_BYTES} bytes` };
    // As for any message: a number or a string id is echoed, anything else is unparsable.
    const found = scanner.id;
    const id = typeof found === 'number' || typeof found === 'string' ? found : UNPARSABLE_MESSAGE_ID;
    if (open) output.write(`${JSON.stringify({ error, id })}\n`);
  };
  const line = (piece: Buffer) => {
    if (!oversized && pendingBytes + piece.length > EXEC_SERVER_MAX_MESSAGE_BYTES) startOversized(pending);
    if (oversized) {
      oversized.feed(piece);
      refuse(oversized);
    } else {
      const text = Buffer.concat([...pending, piece])
        .toString('utf8')
        .replace(/\r$/, '');
      if (text.trim() !== '') connection.receive(text);
    }
    pending = [];
    pendingBytes = 0;
    oversized = undefined;
  };
  return new Promise<void>((resolve) => {
    input.on('data', (data: Buffer | string) => {
      let buffer = typeof data === 'string' ? Buffer.from(data) : data;
      for (let newline = buffer.indexOf(10); newline >= 0; newline = buffer.indexOf(10)) {
        line(buffer.subarray(0, newline));
        buffer = buffer.subarray(newline + 1);
      }
      if (buffer.length === 0) return;
      if (oversized) return oversized.feed(buffer);
      pendingBytes += buffer.length;
      if (pendingBytes > EXEC_SERVER_MAX_MESSAGE_BYTES) startOversized([...pending, buffer]);
      else pending.push(Buffer.from(buffer));
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
