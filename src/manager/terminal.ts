import { keyBytes } from '../screen/keys.js';
import type { EnvPolicy } from '../spawn/env.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../spawn/process-core.js';
import { invalidArgument } from './errors.js';
import type { ExecSession } from './exec-session.js';
import type { ScreenView } from './types.js';

// What a tty session's terminal adds to the calls: its size, its screen in replies, and named keys.

/**
 * `screen` of a call: show it when a full-screen program is in the alternate screen or the output since the last
 * reply addressed the cursor (undefined), always, or never.
 */
export type ScreenChoice = boolean | undefined;

/** A call's terminal fields, checked against what the session is: they only mean something with a terminal. */
export function checkTerminalFields(
  fields: { cols?: number | undefined; rows?: number | undefined; screen?: ScreenChoice; keys?: string[] | undefined },
  tty: boolean,
  screens: boolean,
): void {
  const given = [
    ...(['cols', 'rows', 'keys'] as const).filter((name) => fields[name] !== undefined),
    ...(fields.screen === true ? ['screen'] : []),
  ];
  if (!tty && given.length > 0) {
    throw invalidArgument(
      `\`${given.join('`, `')}\` need${given.length === 1 ? 's' : ''} a terminal: start the session with tty=true`,
    );
  }
  if (fields.screen === true && !screens) {
    throw invalidArgument('`screen`: this server keeps no screens (started with --no-screens)');
  }
  for (const name of fields.keys ?? []) {
    try {
      keyBytes(name, { applicationCursorKeys: false });
    } catch (error) {
      throw invalidArgument(`\`keys\`: ${(error as Error).message}`);
    }
  }
}

/** What a session started with `screen: true` is told it runs in: a terminal that shows a full screen. */
const SCREEN_TERM = 'xterm-256color';

/**
 * The environment policy of a new session: sessions say TERM=dumb (as Codex's do) unless started with
 * `screen: true`, which asks for a terminal full-screen programs can draw on. The operator's own `set` still wins.
 */
export function sessionEnvPolicy(policy: EnvPolicy, screen: ScreenChoice): EnvPolicy {
  return screen === true ? { ...policy, set: { TERM: SCREEN_TERM, ...policy.set } } : policy;
}

/** The size a new tty session gets. */
export function terminalSize(fields: { cols?: number | undefined; rows?: number | undefined }): {
  cols: number;
  rows: number;
} {
  return { cols: fields.cols ?? DEFAULT_COLS, rows: fields.rows ?? DEFAULT_ROWS };
}

/** Resizes the session's terminal (and its screen) where the call gave a side; the other side stays. */
export function resizeTerminal(
  session: ExecSession,
  fields: { cols?: number | undefined; rows?: number | undefined },
): void {
  if (fields.cols === undefined && fields.rows === undefined) return;
  const now = session.terminalSize;
  const cols = fields.cols ?? now.cols;
  const rows = fields.rows ?? now.rows;
  session.process.resize(cols, rows);
  session.resize(cols, rows);
}

/**
 * The bytes of `keys`, for the terminal's mode now: cursor keys as a full-screen program that turned on
 * application cursor keys expects them.
 */
export function keysToBytes(session: ExecSession, keys: readonly string[]): string {
  const applicationCursorKeys = session.modes?.applicationCursorKeys ?? false;
  return keys.map((name) => keyBytes(name, { applicationCursorKeys })).join('');
}

/**
 * The screen a reply shows, if any: see ScreenChoice. `cursorAddressed`: the reply's output addressed the cursor
 * outside the alternate screen. Read once the output drained so far is all on it.
 */
export async function screenForReply(
  session: ExecSession,
  choice: ScreenChoice,
  cursorAddressed: boolean,
): Promise<ScreenView | undefined> {
  const screen = session.screen;
  if (!screen || choice === false) return undefined;
  if (choice === undefined && !session.modes?.alternate && !cursorAddressed) return undefined;
  const { cols, rows, lines, cursor, alternate } = await screen.snapshot();
  // Spaces at the end of a row are invisible, however the program put them there.
  return { cols, rows, lines: lines.map((line) => line.trimEnd()), cursor, alternate, cursorAddressed };
}
