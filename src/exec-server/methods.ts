/** Every method a session answers after the handshake, by wire name, with the handshake gate it belongs to. */

import * as fs from './fs-methods.js';
import type { EnvironmentInfo, ProcessTerminateResult } from './protocol.js';
import { unknownProcess } from './rpc-error.js';
import {
  fsCopyParams,
  fsCreateDirectoryParams,
  fsPathParams,
  fsRemoveParams,
  fsWriteFileParams,
  readParams,
  resizeParams,
  signalParams,
  startParams,
  terminateParams,
  writeParams,
} from './schemas.js';
import type { ExecServerSession } from './session.js';
import { terminalSize } from './start-process.js';

/** What a method runs against. */
interface MethodContext {
  session: ExecServerSession;
  environmentInfo(): EnvironmentInfo;
}

/** A result whose `afterSent` runs once the response is on the wire (a write's follow-up input-wait watch). */
export class AfterReply {
  constructor(
    readonly result: unknown,
    readonly afterSent: () => void,
  ) {}
}

interface Method {
  /** Named in the handshake errors: `client must call initialize before using <gate> methods`. */
  gate: 'exec' | 'filesystem' | 'environment info' | 'environment status';
  run(params: unknown, context: MethodContext): unknown;
}

const exec = (run: Method['run']): Method => ({ gate: 'exec', run });
const files = (run: (params: unknown) => unknown): Method => ({ gate: 'filesystem', run });

function record(context: MethodContext, processId: string) {
  const found = context.session.process(processId);
  if (found === undefined) throw unknownProcess(processId);
  return found;
}

export const METHOD_TABLE: Readonly<Record<string, Method>> = {
  'process/start': exec((raw, context) => context.session.start(startParams(raw))),
  'process/read': exec((raw, context) => {
    const { processId, ...rest } = readParams(raw);
    return record(context, processId).read(rest);
  }),
  'process/write': exec((raw, context) => {
    const { processId, chunk, writeId } = writeParams(raw);
    const { status, afterReply } = context.session.write(processId, chunk, writeId);
    return afterReply === undefined ? { status } : new AfterReply({ status }, afterReply);
  }),
  'process/signal': exec((raw, context) => {
    const { processId } = signalParams(raw);
    context.session.process(processId)?.interrupt();
    return {};
  }),
  'process/terminate': exec((raw, context) => {
    const { processId } = terminateParams(raw);
    const result: ProcessTerminateResult = { running: context.session.process(processId)?.terminate() ?? false };
    return result;
  }),
  'process/resize': exec((raw, context) => {
    const { processId, cols, rows } = resizeParams(raw);
    record(context, processId).resize(terminalSize(cols, cols, 'cols'), terminalSize(rows, rows, 'rows'));
    return {};
  }),
  'environment/info': { gate: 'environment info', run: (_raw, context) => context.environmentInfo() },
  'environment/status': { gate: 'environment status', run: () => ({ status: 'ready' }) },
  'fs/getMetadata': files((raw) => fs.getMetadata(fsPathParams(raw))),
  'fs/readFile': files((raw) => fs.readFileBase64(fsPathParams(raw))),
  'fs/writeFile': files((raw) => fs.writeFileBase64(fsWriteFileParams(raw))),
  'fs/createDirectory': files((raw) => fs.createDirectory(fsCreateDirectoryParams(raw))),
  'fs/readDirectory': files((raw) => fs.readDirectory(fsPathParams(raw))),
  'fs/remove': files((raw) => fs.remove(fsRemoveParams(raw))),
  'fs/copy': files((raw) => fs.copy(fsCopyParams(raw))),
  'fs/canonicalize': files((raw) => fs.canonicalize(fsPathParams(raw))),
};
