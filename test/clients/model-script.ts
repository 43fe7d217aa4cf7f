// The script both fake models play: find the deferred tools, run `echo hello`, type into a tty session, then ask to
// run a command outside the sandbox. What the client hands back for each call is recorded as it came, for the tests
// to read as the model would.

/** One tool call of the script; the string "$SESSION" in `args` becomes the session the previous results opened. */
export interface ScriptCall {
  readonly name: 'exec_command' | 'write_stdin';
  readonly args: Readonly<Record<string, unknown>>;
}

const CLIENT_SCRIPT: readonly ScriptCall[] = [
  { name: 'exec_command', args: { cmd: 'echo hello' } },
  // cat echoes what is typed at it; Ctrl-D at the start of a line ends it (exit code 0).
  { name: 'exec_command', args: { cmd: 'cat', tty: true, yield_time_ms: 500 } },
  { name: 'write_stdin', args: { session_id: '$SESSION', chars: 'hi there\n\u0004', yield_time_ms: 3000 } },
  // Outside the sandbox: the server asks the client's person first (an MCP elicitation), whom the client stands for.
  {
    name: 'exec_command',
    args: { cmd: 'echo approved', sandbox_permissions: 'require_escalated', justification: 'the README test asks' },
  },
];

/** What the client sent back for one call, exactly as it sent it (a string or content parts), with the call. */
export interface RecordedResult {
  readonly call: ScriptCall;
  readonly content: unknown;
}

/** The session id the latest result that reported one ("Process running with session ID N") names. */
function latestSessionId(results: readonly RecordedResult[]): number | undefined {
  for (const result of [...results].reverse()) {
    const match = /session ID (\d+)/.exec(JSON.stringify(result.content));
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}

/** The script's call `index` with "$SESSION" filled in from the results so far. */
export function scriptCall(index: number, results: readonly RecordedResult[]): ScriptCall | undefined {
  const call = CLIENT_SCRIPT[index];
  if (!call) return undefined;
  const session = latestSessionId(results);
  const args = Object.fromEntries(
    Object.entries(call.args).map(([key, value]) => [key, value === '$SESSION' ? session : value]),
  );
  return { name: call.name, args };
}
