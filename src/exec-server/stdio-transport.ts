import { JsonLineFramer } from '../util/json-lines.js';
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
  const framer = new JsonLineFramer(
    {
      line: (bytes) => {
        const text = bytes.toString('utf8').replace(/\r$/, '');
        if (text.trim() !== '') connection.receive(text);
      },
      oversized: (found) => {
        const error = {
          code: INVALID_REQUEST,
          message: `message refused: over ${EXEC_SERVER_MAX_MESSAGE_BYTES} bytes`,
        };
        // As for any message: a number or a string id is echoed, anything else is unparsable.
        const id = typeof found === 'number' || typeof found === 'string' ? found : UNPARSABLE_MESSAGE_ID;
        if (open) output.write(`${JSON.stringify({ error, id })}\n`);
      },
    },
    EXEC_SERVER_MAX_MESSAGE_BYTES,
  );
  return new Promise<void>((resolve) => {
    input.on('data', (data: Buffer | string) => framer.write(typeof data === 'string' ? Buffer.from(data) : data));
    const done = () => {
      open = false;
      connection.closed();
      resolve();
    };
    input.once('end', done);
    input.once('close', done);
  });
}
