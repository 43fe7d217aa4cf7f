// A stdio server fed raw bytes, for what the SDK's Client would never send: garbage, broken JSON, invalid UTF-8.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI, ROOT, cleanEnv, unsandboxed } from '../mcp/cli-process.js';

export interface JsonRpcReply {
  jsonrpc: string;
  id?: string | number;
  result?: { content?: Array<{ text?: string }>; isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string };
}

export class RawStdioServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private pending = '';
  private readonly replies: JsonRpcReply[] = [];
  private wake: (() => void) | undefined;
  private stderrText = '';
  readonly exited: Promise<number | null>;

  /** `cliArgs`: options for `mcp`, e.g. `['--structured-output']` to read the structured fields of results. */
  constructor(cliArgs: string[] = []) {
    this.child = spawn(process.execPath, [CLI, 'mcp', ...unsandboxed(cliArgs)], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString()));
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString();
      for (let nl = this.pending.indexOf('\n'); nl !== -1; nl = this.pending.indexOf('\n')) {
        // Anything on stdout that is not one JSON message per line is itself a failure: let JSON.parse throw.
        this.replies.push(JSON.parse(this.pending.slice(0, nl)) as JsonRpcReply);
        this.pending = this.pending.slice(nl + 1);
      }
      this.wake?.();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  stderr(): string {
    return this.stderrText;
  }

  send(bytes: string | Buffer): void {
    this.child.stdin.write(bytes);
  }

  /** The next message the server writes (in order), or an error after `timeoutMs`. */
  async next(timeoutMs = 30_000): Promise<JsonRpcReply> {
    const until = Date.now() + timeoutMs;
    while (this.replies.length === 0) {
      if (Date.now() > until) throw new Error(`no reply within ${timeoutMs} ms; stderr: ${this.stderrText}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    return this.replies.shift()!;
  }

  /** Sends one line and answers with the server's next message. */
  async exchange(line: string | Buffer): Promise<JsonRpcReply> {
    this.send(Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line), Buffer.from('\n')]));
    return this.next();
  }

  async request(id: number, method: string, params?: unknown): Promise<JsonRpcReply> {
    return this.exchange(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
  }

  async initialize(): Promise<void> {
    const reply = await this.request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw-bytes', version: '1.0.0' },
    });
    if (!reply.result) throw new Error(`initialize failed: ${JSON.stringify(reply)}`);
    this.send(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  /** Hangs up; the server ends its sessions and exits. SIGKILLs it if it has not in 10 s. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
