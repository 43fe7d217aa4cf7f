/** What every driver runs: the same programs, inputs and prompts, so only the way of driving them differs. */

/**
 * Interactive programs for the round-trip figure. The prompt is '$ ': raw spawns bash directly with PS1 in its
 * environment; drivers that go through `sh -c`/`bash -c` set it in the command line, because a non-interactive
 * bash drops PS1 from the environment it passes on.
 */
export const REPLS = {
  bash: {
    file: '/bin/bash',
    args: ['--norc', '--noprofile', '-i'],
    cmd: "PS1='$ ' exec /bin/bash --norc --noprofile -i",
    input: 'echo hi',
    /** The reply line as it appears in raw terminal output (after the echoed input). */
    reply: 'hi',
    prompt: '$ ',
  },
  python: {
    file: 'python3',
    args: ['-q', '-i'],
    cmd: 'python3 -q -i',
    input: 'print(1)',
    reply: '1',
    prompt: '>>> ',
  },
};

/** Raw terminal output that ends with the reply line and the prompt back: the round trip is complete. */
export function replyThenPrompt(repl) {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\r\\n${escape(repl.reply)}\\r\\n${escape(repl.prompt)}$`);
}

/** A flood without newlines, so the terminal's CRLF translation does not dominate: pure PTY throughput. */
export const floodCommand = (bytes) => `head -c ${bytes} /dev/zero | tr '\\0' a`;

/**
 * The flood inside the alternate screen: the program first switches to it (`ESC [ ? 1049 h`, as vim and less do), so
 * a session's screen is live and parses what follows (figure 14b).
 */
export const alternateFloodCommand = (bytes) => `printf '\\033[?1049h'; ${floodCommand(bytes)}`;

/** Output a shell prints before it sits idle (figure 14c): `bytes` of `a`, then a line break. */
export const historyCommand = (bytes) => `${floodCommand(bytes)}; echo`;

/** A newline-heavy flood (y\n…), the kind of output that loads the terminal line discipline and the reader. */
export const lagFloodCommand = (bytes) => `yes | head -c ${bytes}`;

/** The short command of the exec-latency figure. */
export const SHORT_COMMAND = 'echo hi';

/** The command of the login-shell figure: it does nothing, so the shell's start (and its profile) is all it costs. */
export const LOGIN_COMMAND = 'true';

/**
 * The sandbox of the sandbox drivers: what `new UnifiedExecManager({ sandbox: 'workspace-write', cwd: workspace })`
 * runs its sessions in (network off, no allowed domains, no extra writable roots), given to raw bwrap as is.
 */
export const sandboxPolicy = (workspace) => ({
  mode: 'workspace-write',
  network: 'off',
  allowedDomains: [],
  workspace,
  writableRoots: [],
});

/** bash as the session shell, no login profile: measures the library, not the user's dotfiles. */
export const BASH = { shell: '/bin/bash', login: false };

/**
 * Inputs that once held the server's event loop (figure 17), each at the size limit it can meet: a `cmd` as long as
 * an HTTP body (4 MiB), and a session's unread output (1 MiB). `cmd`: what the attacking client sends; `tty`: run
 * on a terminal, so the screen and the cursor scanners read it.
 */
export const ADVERSARIAL_INPUTS = {
  'heredoc-blank-lines': {
    label: '`apply_patch` heredoc of 4 MiB of blank lines, then a line',
    // One flat string, as a server gets it from JSON.parse: `repeat` builds a tree of halves, which the first read
    // of it would flatten on the loop, a cost of how the bench builds it.
    cmd: Buffer.from(`apply_patch <<'EOF'\n${'\n'.repeat(4 * 1024 * 1024 - 32)}x\nEOF\n`).toString('latin1'),
    tty: false,
  },
  'controls-then-cursor': {
    label: '1 MiB of `\\x01`, a letter, then a cursor address',
    cmd: `head -c 1048576 /dev/zero | tr '\\0' '\\1'; printf 'x\\033[2;1H'`,
    tty: true,
  },
  'rep-flood': {
    label: '`\\e[?1049h`, then 1 MiB of `a\\e[30000000b` (xterm REP)',
    cmd: `printf '\\033[?1049h'; yes 'a\x1b[30000000b' | tr -d '\\n' | head -c 1048576; sleep 0.5`,
    tty: true,
  },
};
