/**
 * Shell snapshots: a login shell's profile (`/etc/profile`, `~/.profile`, `~/.bashrc`, ...) can take hundreds of
 * milliseconds, and `exec_command` runs every command as a login shell by default. A snapshot runs the login shell
 * once, captures what a command can observe of its profile (exported variables, functions, aliases, shell options)
 * and later runs each login command as a plain `-c` shell that loads the snapshot first.
 *
 * A server starts the capture at start-up (`ShellSnapshots.plan` through the manager's `warmUp`), so its first command
 * usually finds it ready. A command that comes while it is being taken waits for it, as long as its yield allows
 * (`planWithin`): a login shell of its own would run the same profile beside the capture. Past that, or when the
 * snapshot cannot be had, it runs as a real login shell, and the capture goes on in the background.
 *
 * The capture goes through the executor, in the session's sandbox: a profile the sandbox would stop is stopped
 * here too. Its output is parsed here and written by this process (0600 in a 0700 directory), after the environment
 * policy's filter: a variable the policy drops never reaches the disk.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { PROCESS_TAG_VAR } from '../linux/process-tag.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { waitAtMost } from '../util/delay.js';
import { makeProcessDir } from '../util/private-dir.js';
import { HandedOverProcess } from './handed-over-process.js';
import type { ExecProcess, OutputStream, ProcessSpawner } from './types.js';

/** The shells a snapshot can stand in for; any other runs as a real login shell. */
export type SnapshotShell = 'bash' | 'dash' | 'zsh';

/** How long a profile may take before the snapshot is given up (the calls meanwhile run a real login shell). */
const SNAPSHOT_TIMEOUT_MS = 10_000;
/**
 * How long a capture's shell waits for the command it was kept for (see takeShell): the call has it at once, unless
 * the manager's start is held up between (its spawn limit).
 */
const HAND_OVER_HOLD_MS = 1_000;
/** How long a capture that printed its snapshot has to exit before it is ended. */
const DUMPED_EXIT_MS = 1_000;
/** After a profile timed out, how long before it is captured again; doubled after each further timeout. */
const SNAPSHOT_RETRY_MS = 30_000;
/** The longest wait between two captures of a profile that keeps timing out. */
const SNAPSHOT_RETRY_MAX_MS = 15 * 60_000;
/** Variables every shell sets for itself: what a snapshot must not fix. */
const OWN_VARIABLES = new Set([
  'SHLVL',
  '_',
  'PWD',
  'OLDPWD',
  'SHELLOPTS',
  'BASHOPTS',
  'ZSH_EXECUTION_STRING',
  PROCESS_TAG_VAR,
]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Which snapshot `shell` can have (by the program it really is: /bin/sh is dash on Debian), if any. */
export function snapshotShell(shellPath: string): SnapshotShell | undefined {
  let real: string;
  try {
    real = realpathSync(shellPath);
  } catch {
    return undefined;
  }
  const name = basename(real);
  if (name === 'bash' || name === 'dash' || name === 'zsh') return name;
  return undefined;
}

/** The files a login shell of `kind` reads (the ones that exist are fingerprinted; what they source is not). */
export function profileFiles(kind: SnapshotShell, home: string): string[] {
  const etcProfileD = (() => {
    try {
      return readdirSync('/etc/profile.d').map((name) => join('/etc/profile.d', name));
    } catch {
      return [];
    }
  })();
  const common = ['/etc/profile', ...etcProfileD];
  switch (kind) {
    case 'bash':
      return [
        ...common,
        '/etc/bash.bashrc',
        join(home, '.bash_profile'),
        join(home, '.bash_login'),
        join(home, '.profile'),
        join(home, '.bashrc'),
      ];
    case 'dash':
      return [...common, join(home, '.profile')];
    case 'zsh':
      return [
        ...common,
        '/etc/zsh/zshenv',
        '/etc/zsh/zprofile',
        '/etc/zsh/zlogin',
        join(home, '.zshenv'),
        join(home, '.zprofile'),
        join(home, '.zlogin'),
      ];
  }
}

/** A profile's `umask 077` is part of what later commands inherit (bash's `umask -p` says it without a subshell). */
const UMASK = `printf 'umask %s\\n' "$(umask)"`;
/**
 * The descriptor the capture's sections go through. The profile itself writes to /dev/null: its output (a warning on
 * stderr, a background job's late line) would otherwise interleave with the sections and end up in the snapshot.
 */
const CAPTURE_FD = 7;
/**
 * A bash capture's stdin and stderr, kept from the profile (which reads /dev/null and writes there) for the login
 * command it may run after its dump (see runWithin): the pipe its command text comes through, then the command's own
 * stdin when it asked for one; and the stderr the command's errors go to.
 */
const COMMAND_FD = 8;
const STDERR_FD = 9;
/** How a capture's shell starts: the pipes kept aside, the profile's output sent to /dev/null, then the login shell. */
const CAPTURE_START = `exec ${CAPTURE_FD}>&1 >/dev/null 2>&1; exec "$0" -l -c "$1"`;
const HAND_OVER_START = `exec ${CAPTURE_FD}>&1 ${STDERR_FD}>&2 ${COMMAND_FD}<&0 </dev/null >/dev/null 2>&1; exec "$0" -l -c "$1"`;
/**
 * After a bash capture's dump: the lines we hand it, up to a NUL byte (none: we closed the pipe, and the script ends,
 * without the `exit` that would run ~/.bash_logout), run by `eval` in this shell (see handOverText). Quoted, so no
 * alias of the profile's applies.
 */
const HAND_OVER_TAIL = `if IFS= \\builtin read -r -d '' __ue_lines <&${COMMAND_FD}; then \\builtin eval "$__ue_lines"; fi`;
/** What a kept shell runs its command through: it clears the environment it is given the starting one of. */
const ENV_PROGRAM = '/usr/bin/env';
/** Which of a bash capture's options says how it started: it cannot be set, so the snapshot leaves it out. */
const LOGIN_SHELL_OPTION = /^shopt -[su] login_shell$/;

/** What the capture prints after the profile ran, between markers no profile can guess. */
function captureScript(kind: SnapshotShell, marker: string): string {
  const section = (name: string) => `printf '\\n%s\\n' '${marker}:${name}'`;
  const definitions =
    kind === 'bash'
      ? [
          section('aliases'),
          'alias -p',
          section('functions'),
          'declare -f',
          section('options'),
          // login_shell, which says how this shell started, is left out when the snapshot is written.
          'shopt -p',
          'set +o',
          // Without a subshell: forking the shell the profile made big costs more than the rest of the dump.
          'umask -p',
        ]
      : kind === 'zsh'
        ? [
            section('aliases'),
            'alias -L',
            section('functions'),
            'typeset -f',
            section('options'),
            // Options the profile turned on or off, against a plain -c shell's defaults.
            'setopt | while read -r o; do case $o in login|interactive|shinstdin) ;; *) print -r -- "setopt $o";; esac; done',
            UMASK,
          ]
        : // dash lists no functions: a profile's functions are not carried over (see docs).
          [section('aliases'), "alias | sed 's/^/alias /'", section('options'), 'set +o', UMASK];
  // The profile's own output went to /dev/null (see capture): only these sections reach the pipe, through fd 7.
  const dump = [`exec >&${CAPTURE_FD} ${CAPTURE_FD}>&-`, ...definitions, section('env'), 'env -0', section('end')];
  return [...dump, ...(kind === 'bash' ? [HAND_OVER_TAIL] : [])].join('\n');
}

/** A shell word that is `value` exactly, for any POSIX shell. */
function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The pieces of a capture's output; undefined when it is not a whole capture (a profile that exited early). */
export function parseCapture(
  output: string,
  marker: string,
): { aliases: string; functions: string; options: string; env: Map<string, string> } | undefined {
  const sections = new Map<string, string>();
  const at = (name: string) => output.indexOf(`\n${marker}:${name}\n`);
  const names = ['aliases', 'functions', 'options', 'env', 'end'].filter((name) => at(name) >= 0);
  if (!names.includes('env') || !names.includes('end')) return undefined;
  for (let i = 0; i < names.length - 1; i++) {
    const start = at(names[i]!) + marker.length + names[i]!.length + 3;
    sections.set(names[i]!, output.slice(start, at(names[i + 1]!)));
  }
  const env = new Map<string, string>();
  for (const entry of (sections.get('env') ?? '').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return {
    aliases: sections.get('aliases') ?? '',
    functions: sections.get('functions') ?? '',
    options: sections.get('options') ?? '',
    env,
  };
}

/** The snapshot file's text: sourced by a plain `-c` shell, it leaves it as the login shell left itself. */
export function snapshotText(
  capture: NonNullable<ReturnType<typeof parseCapture>>,
  before: Readonly<Record<string, string>>,
  keep: (name: string, value: string) => boolean,
): string {
  const lines = ['# unified-exec shell snapshot: what the login profile left behind'];
  for (const name of Object.keys(before)) {
    if (!capture.env.has(name) && NAME.test(name) && !OWN_VARIABLES.has(name)) lines.push(`unset ${name}`);
  }
  for (const [name, value] of capture.env) {
    if (!NAME.test(name) || OWN_VARIABLES.has(name) || !keep(name, value)) continue;
    if (before[name] === value) continue;
    lines.push(`export ${name}=${quote(value)}`);
  }
  const options = capture.options.split('\n').filter((line) => !LOGIN_SHELL_OPTION.test(line));
  lines.push(capture.functions.trim(), options.join('\n').trim(), capture.aliases.trim());
  return `${lines.filter((line) => line !== '').join('\n')}\n`;
}

export interface SnapshotRequest {
  shell: string;
  /** The environment the login shell would start with (the policy applied). */
  env: Readonly<Record<string, string>>;
  cwd: string;
  sandbox?: SandboxPolicy;
  /** Whether a variable the profile sets may be kept (the environment policy's filter). */
  keep: (name: string, value: string) => boolean;
}

/** How to run one login command: through a snapshot, or as a real login shell (with why, when it failed). */
export type LoginPlan =
  | {
      /** The argv of `cmd`; with `path`, PATH is set to it after the snapshot (see LocalExecutor.start). */
      argv: (cmd: string, path?: string) => string[];
      /** The PATH the profile left, when it set one. */
      path?: string;
      warning?: undefined;
    }
  | { argv?: undefined; path?: undefined; warning?: string };

/**
 * One fingerprint's snapshot: being taken, ready in `file`, failed for good (until a profile file changes), or timed
 * out (taken again in the background by the first call after `retryAt`, a performance.now() time).
 */
type Snapshot =
  | { state: 'taking'; settled: Promise<Snapshot>; handOver: HandOver | undefined }
  | { state: 'ready'; file: string }
  | { state: 'failed'; reason: string }
  | { state: 'timed-out'; reason: string; retryAt: number; timeouts: number };

/**
 * A capture's shell that has printed the snapshot and waits for the one login command it was kept for (see
 * takeShell). It waits HAND_OVER_HOLD_MS at most, then ends as any capture does.
 */
export interface WaitingShell {
  /**
   * Has the shell exec `argv` (the command as a snapshot runs it: see LoginPlan), from now on a session's process:
   * its stdin the pipe when `pipeStdin`, else /dev/null. Resolves once the shell has taken it; undefined when it no
   * longer waits (held too long, or ended) or could not take it, and then nothing of the command ran.
   */
  run(argv: readonly string[], pipeStdin: boolean): Promise<HandedOverProcess | undefined>;
  /** Lets the shell end now: no command comes for it. */
  release(): void;
}

/**
 * A bash capture's offer to keep its shell for one login command once the dump is printed: `open` until then, with
 * the call that waits for it, if any (see takeShell).
 */
interface HandOver {
  readonly cwd: string;
  open: boolean;
  waiting?: (shell: WaitingShell | undefined) => void;
}

/** How long to wait before the next capture of a profile that timed out `timeouts` times in a row. */
function retryDelayMs(timeouts: number, firstMs: number): number {
  return Math.min(firstMs * 2 ** Math.max(0, timeouts - 1), Math.max(firstMs, SNAPSHOT_RETRY_MAX_MS));
}

/** Snapshots of one manager, by what they depend on; their directory is removed by close(). */
export class ShellSnapshots {
  private dir: string | undefined;
  private readonly taken = new Map<string, Snapshot>();
  /** The PATH each snapshot file sets, by file. */
  private readonly paths = new Map<string, string>();
  /** Capture processes still running, ended by close(). */
  private readonly capturing = new Set<ExecProcess>();

  constructor(
    private readonly executor: ProcessSpawner,
    private readonly timeoutMs = SNAPSHOT_TIMEOUT_MS,
    /** The wait before a profile that timed out is captured again (doubled per further timeout). */
    private readonly retryMs = SNAPSHOT_RETRY_MS,
  ) {}

  /**
   * Where snapshots are written (made on first use): a folder of this manager's own in the user's private root,
   * which every sandbox keeps read-only (see private-dir.ts).
   */
  get directory(): string {
    // Made again when a /tmp cleaner removed it.
    if (!this.dir || !existsSync(this.dir)) this.dir = makeProcessDir('snapshots-');
    return this.dir;
  }

  /**
   * How to run a login command of `request.shell` now, without waiting: through the snapshot when it is ready, else
   * as a real login shell while the snapshot is taken in the background (started here when none is under way).
   */
  planNow(request: SnapshotRequest): LoginPlan {
    const kind = snapshotShell(request.shell);
    if (!kind) return {};
    return this.planOf(kind, request.shell, this.current(kind, request));
  }

  /**
   * Like planNow, but a capture under way (or started here) is waited for, at most `waitMs`: a real login shell
   * started beside it would run the same profile on the same cores, and seldom end first (two pyenv or nvm inits
   * racing for two cores each take longer than one). Past `waitMs`, a real login shell; the capture goes on.
   */
  async planWithin(request: SnapshotRequest, waitMs: number): Promise<LoginPlan> {
    const kind = snapshotShell(request.shell);
    if (!kind) return {};
    const snapshot = this.current(kind, request);
    if (snapshot.state !== 'taking' || waitMs <= 0) return this.planOf(kind, request.shell, snapshot);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
    const settled = await Promise.race([snapshot.settled, late]);
    clearTimeout(timer);
    if (settled === undefined) return {};
    // Gone as soon as it was made: a real login shell now, the snapshot taken again meanwhile.
    if (settled.state === 'ready' && !existsSync(settled.file)) return this.planNow(request);
    return this.planOf(kind, request.shell, settled);
  }

  /**
   * Like planNow, but waits for a capture under way (or started here) to end: what a start-up hook awaits, so the
   * calls after it find the snapshot ready.
   */
  async plan(request: SnapshotRequest): Promise<LoginPlan> {
    const kind = snapshotShell(request.shell);
    if (!kind) return {};
    const snapshot = this.current(kind, request);
    if (snapshot.state !== 'taking') return this.planOf(kind, request.shell, snapshot);
    const settled = await snapshot.settled;
    // Gone (a /tmp cleaner, a command that removed it) as soon as it was made: take it again.
    if (settled.state === 'ready' && !existsSync(settled.file)) return this.plan(request);
    return this.planOf(kind, request.shell, settled);
  }

  /** The snapshot of `request`'s fingerprint, a capture started when there is none, or its file is gone, or it is time to retry. */
  private current(kind: SnapshotShell, request: SnapshotRequest): Snapshot {
    const key = fingerprint(kind, request);
    const known = this.taken.get(key);
    // Gone (a /tmp cleaner, a command that removed it): `. FILE` would fail the command, so take it again.
    const stale =
      known === undefined ||
      (known.state === 'ready' && !existsSync(known.file)) ||
      (known.state === 'timed-out' && performance.now() >= known.retryAt);
    if (!stale) return known;
    const timeouts = known?.state === 'timed-out' ? known.timeouts : 0;
    const handOver = kind === 'bash' ? { cwd: request.cwd, open: true } : undefined;
    const taking: Snapshot = {
      state: 'taking',
      handOver,
      settled: this.capture(kind, request, key, handOver).then(
        (file): Snapshot => ({ state: 'ready', file }),
        (err: unknown): Snapshot =>
          err instanceof CaptureTimeout
            ? {
                state: 'timed-out',
                reason: err.message,
                retryAt: performance.now() + retryDelayMs(timeouts + 1, this.retryMs),
                timeouts: timeouts + 1,
              }
            : { state: 'failed', reason: (err as Error).message },
      ),
    };
    this.taken.set(key, taking);
    // Settled in the map only while it is still this capture's place (not after close() or a newer capture).
    void taking.settled.then((settled) => {
      if (this.taken.get(key) === taking) this.taken.set(key, settled);
    });
    return taking;
  }

  /** The login plan a snapshot in this state gives. */
  private planOf(kind: SnapshotShell, shell: string, snapshot: Snapshot): LoginPlan {
    if (snapshot.state === 'taking') return {};
    if (snapshot.state !== 'ready') {
      return { warning: `Warning: ran a real login shell: the shell snapshot failed (${snapshot.reason})` };
    }
    const { file } = snapshot;
    // zsh parses a whole -c string before running any of it: the snapshot's aliases apply only to what eval parses.
    const path = this.paths.get(file);
    const source = (setPath: string | undefined) =>
      `. ${quote(file)}\n${setPath === undefined ? '' : `export PATH=${quote(setPath)}\n`}`;
    return {
      argv: (cmd, setPath) => [
        shell,
        '-c',
        kind === 'zsh' ? `${source(setPath)}eval ${quote(cmd)}` : `${source(setPath)}${cmd}`,
      ],
      ...(path !== undefined ? { path } : {}),
    };
  }

  /** Removes the snapshots and ends captures still running (their snapshots are not written); resolves once ended. */
  close(): Promise<void> {
    const ending = Promise.all([...this.capturing].map((proc) => proc.terminate()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.taken.clear();
    this.paths.clear();
    return ending.then(() => undefined);
  }

  /** Runs the capture and writes the snapshot file; rejects with CaptureTimeout when the profile took too long. */
  private async capture(
    kind: SnapshotShell,
    request: SnapshotRequest,
    key: string,
    handOver: HandOver | undefined,
  ): Promise<string> {
    const marker = `__UNIFIED_EXEC_SNAPSHOT_${randomBytes(8).toString('hex')}__`;
    // Chosen before the capture: after a close() meanwhile, the write fails instead of making a directory again.
    const dir = this.directory;
    const output = await this.run(request, captureScript(kind, marker), marker, handOver);
    const capture = parseCapture(output, marker);
    if (!capture) throw new Error('the profile ended the shell before it could be captured');
    const file = join(dir, `${kind}-${key.slice(0, 16)}.sh`);
    writeFileSync(file, snapshotText(capture, request.env, request.keep), { mode: 0o600, flag: 'wx' });
    const path = capture.env.get('PATH');
    if (path !== undefined) this.paths.set(file, path);
    return file;
  }

  /**
   * Runs the login shell with the capture script, in the session's sandbox, until it has printed its end marker (at most
   * timeoutMs); resolves with what it printed up to there. A bash capture's shell is then kept for the call that
   * waits on its `handOver`, if any (see takeShell); else it ends, and whatever the profile left running is ended.
   */
  private async run(
    request: SnapshotRequest,
    script: string,
    marker: string,
    handOver: HandOver | undefined,
  ): Promise<string> {
    const options = {
      // The login shell's stdout and stderr go to /dev/null, its fd 7 to the pipe: see CAPTURE_FD.
      argv: ['/bin/sh', '-c', handOver ? HAND_OVER_START : CAPTURE_START, request.shell, script],
      cwd: request.cwd,
      env: request.env,
      tty: false,
      ...(handOver ? { pipeStdin: true } : {}),
      ...(request.sandbox ? { sandbox: request.sandbox } : {}),
    };
    let proc: ExecProcess;
    try {
      await this.executor.prepareSpawn?.(options);
      proc = await this.executor.spawn(options);
    } catch (err) {
      if (handOver) closeHandOver(handOver);
      throw err;
    }
    this.capturing.add(proc);
    proc.onExit(() => this.capturing.delete(proc));
    const exited = new Promise<'exited'>((resolve) => proc.onExit(() => resolve('exited')));
    /** Whether the shell is kept for a command (see takeShell); starting once it has been sent one; handedTo once it runs it. */
    let held = false;
    let starting: Starting | undefined;
    let handedTo: HandedOverProcess | undefined;
    // Dumped, and no command for it: its stdin closed (see HAND_OVER_TAIL), the shell exits; then whatever the profile
    // left running is ended.
    const letGo = () => {
      held = false;
      proc.closeInput?.();
      void waitAtMost(exited, DUMPED_EXIT_MS).then(() => proc.terminate());
    };
    const dump = new DumpReader(Buffer.from(`\n${marker}:end\n`, 'latin1'));
    let dumped!: () => void;
    const done = new Promise<'dumped'>((resolve) => (dumped = () => resolve('dumped')));
    proc.onData((chunk, stream) => {
      if (handedTo) return handedTo.deliver(chunk, stream);
      if (starting) {
        // Its command's stderr may come before the line that says the shell took it (see handOverText).
        if (stream === 'stderr') return void starting.early.push(chunk);
        const after = starting.reader.add(chunk, stream);
        if (after === undefined) return;
        handedTo = starting.process;
        this.capturing.delete(proc);
        for (const early of starting.early) handedTo.deliver(early, 'stderr');
        if (after.length > 0) handedTo.deliver(after, stream);
        starting.taken(true);
        return;
      }
      if (dump.ended) return; // a background job of the profile, after the dump: nobody's
      const after = dump.add(chunk, stream);
      if (after === undefined) return;
      dumped();
      const waiting = handOver && closeHandOver(handOver);
      if (!waiting) return;
      // Kept for the call that waits, until it runs its command here or HAND_OVER_HOLD_MS are over.
      held = true;
      const hold = setTimeout(letGo, HAND_OVER_HOLD_MS);
      waiting({
        run: async (argv, pipeStdin) => {
          if (!held || proc.exitInfo !== undefined) return undefined;
          held = false;
          clearTimeout(hold);
          let taken!: (yes: boolean) => void;
          const told = new Promise<boolean>((resolve) => (taken = resolve));
          // From the line that says it took the command, the process is the session's: its output, its end.
          const process = new HandedOverProcess(proc, pipeStdin);
          starting = { reader: new DumpReader(Buffer.from(`\n${marker}:run\n`, 'latin1')), early: [], process, taken };
          const gone = proc.onExit(() => taken(false));
          proc.write(`${handOverText(marker, handOver.cwd, argv, pipeStdin)}\0`).catch(() => taken(false));
          if (!pipeStdin) proc.closeInput?.();
          const yes = await told;
          gone.dispose();
          starting = undefined;
          if (yes) return process;
          // It did not take it (the profile had put a descriptor of ours to another use): the caller spawns it.
          void proc.terminate();
          return undefined;
        },
        release: () => {
          if (!held) return;
          clearTimeout(hold);
          letGo();
        },
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), this.timeoutMs)),
    );
    const ended = await Promise.race([done, exited, timedOut]);
    clearTimeout(timer);
    // Nothing waits on a capture that ended without its dump.
    if (handOver) closeHandOver(handOver)?.(undefined);
    if (ended === 'timeout') {
      await proc.terminate();
      throw new CaptureTimeout(`the login profile took longer than ${this.timeoutMs / 1000} s`);
    }
    // Ended either way, so nothing of the capture is left and the watchdog lets go of it. A shell that dumped ends
    // meanwhile: the snapshot need not wait for that.
    if (ended === 'exited') await proc.terminate();
    else if (!held && !handedTo) letGo();
    return dump.text();
  }

  /**
   * The shell of the capture under way for `request` (started here when none is), kept for one login command once it
   * has printed the snapshot: the command is then exec'd in its place (see handOverText), in the sandbox the capture
   * runs in, instead of a new process and sandbox started for it after the capture ended. At most `waitMs`; undefined
   * when no capture can keep its shell for it (bash only; for a command in the directory the capture runs in; one per
   * capture; none under way, or already dumped) or it did not dump in time, and the command is then planned as usual
   * (planWithin).
   */
  async takeShell(request: SnapshotRequest, cwd: string, waitMs: number): Promise<WaitingShell | undefined> {
    const kind = snapshotShell(request.shell);
    if (kind !== 'bash' || waitMs <= 0 || !existsSync(ENV_PROGRAM)) return undefined;
    const snapshot = this.current(kind, request);
    const handOver = snapshot.state === 'taking' ? snapshot.handOver : undefined;
    if (!handOver?.open || handOver.waiting || handOver.cwd !== cwd) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const shell = await new Promise<WaitingShell | undefined>((resolve) => {
      handOver.waiting = resolve;
      timer = setTimeout(() => {
        // Too late to answer within its yield: no longer waiting, so the dump, when it comes, ends the capture.
        if (handOver.waiting === resolve) handOver.waiting = undefined;
        resolve(undefined);
      }, waitMs);
    });
    clearTimeout(timer);
    return shell;
  }
}

/**
 * What a kept shell runs to become its command (see HAND_OVER_TAIL): the command as a snapshot runs it (`argv`, a
 * plain `bash -c` that loads the snapshot), exec'd in this shell's place, so it starts as one spawned through the
 * snapshot does, in the same sandbox, without a sandbox of its own to set up. First it says on stdout that it took the
 * command (`<marker>:run`, which the session does not see), unless the stderr pipe kept for the command is no longer
 * there (a profile that used the descriptor for a file of its own): then it ends and the caller spawns the command.
 * Nothing of the shell the profile made is left to the command: its background jobs are ended, options, traps and
 * signal dispositions are reset, it goes to the directory asked for, every descriptor but stdin, stdout and stderr is
 * closed, and its environment is the one the shell started with (/proc/self/environ), not the profile's. Its `ulimit`s
 * stay, as they would in a real login shell. The profile's options come off first, while
 * stderr is still /dev/null: `set -x` would trace the rest.
 */
function handOverText(marker: string, cwd: string, argv: readonly string[], pipeStdin: boolean): string {
  return [
    '\\builtin set +euxv',
    // Unless the profile put the stderr kept for the command to another use: then nothing runs, and the caller spawns it.
    // Node's pipes to a child are sockets: a file, a FIFO or a terminal there is the profile's.
    `[ -S /proc/self/fd/${STDERR_FD} ] || \\builtin exec /bin/sh -c :`,
    // The profile's background jobs end here, as they do with a capture that is not kept (stderr is still /dev/null).
    '{ \\builtin kill -KILL $(\\builtin jobs -p) && \\builtin wait; } 2>/dev/null',
    `\\builtin printf '\\n%s\\n' '${marker}:run'`,
    '\\builtin trap - EXIT ERR DEBUG RETURN HUP INT QUIT PIPE TERM',
    `exec 2>&${STDERR_FD}${pipeStdin ? ` <&${COMMAND_FD}` : ''}`,
    `\\builtin cd -- ${quote(cwd)} || \\builtin exec /bin/sh -c 'exit 126'`,
    'for __ue_fd in /proc/self/fd/*; do __ue_fd=${__ue_fd##*/}; case $__ue_fd in 0|1|2) ;; *) { exec {__ue_fd}>&-; } 2>/dev/null;; esac; done',
    '__ue_env=(); while IFS= \\builtin read -r -d \'\' __ue_kv; do __ue_env+=("$__ue_kv"); done </proc/self/environ',
    `(( \${#__ue_env[@]} )) || \\builtin exec /bin/sh -c 'echo "unified-exec: the login shell could not read its environment (/proc/self/environ)" >&2; exit 126'`,
    `\\builtin exec ${ENV_PROGRAM} -i -- "\${__ue_env[@]}" ${argv.map(quote).join(' ')}`,
  ].join('\n');
}

/** A kept shell sent its command, until it says it took it (see handOverText). */
interface Starting {
  /** Finds the line that says so. */
  reader: DumpReader;
  /** stderr that came before that line. */
  early: Buffer[];
  process: HandedOverProcess;
  taken: (yes: boolean) => void;
}

/** Closes a capture's offer; returns the command that was waiting for it, if any. */
function closeHandOver(handOver: HandOver): HandOver['waiting'] {
  const { waiting } = handOver;
  handOver.open = false;
  handOver.waiting = undefined;
  return waiting;
}

/** Collects a capture's output up to the end of its dump, the line `endLine` on stdout. */
class DumpReader {
  private readonly chunks: Buffer[] = [];
  /** The last bytes before the newest chunk, for an end line split between two chunks. */
  private carry: Buffer = Buffer.alloc(0);
  ended = false;

  constructor(private readonly endLine: Buffer) {}

  /** Takes a chunk; once the end line is in, returns what came after it in that chunk. */
  add(chunk: Buffer, stream: OutputStream): Buffer | undefined {
    if (stream !== 'stdout') return undefined;
    const window = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const at = window.indexOf(this.endLine);
    if (at < 0) {
      this.chunks.push(chunk);
      this.carry = window.subarray(Math.max(0, window.length - this.endLine.length + 1));
      return undefined;
    }
    const cut = at + this.endLine.length - this.carry.length;
    this.chunks.push(chunk.subarray(0, cut));
    this.ended = true;
    return chunk.subarray(cut);
  }

  /** What was printed up to the end line (all of it when the shell ended before it). */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** A capture that ran out of time: tried again later, unlike a profile that failed. */
class CaptureTimeout extends Error {}

/** What a snapshot depends on: the shell, its starting environment, the sandbox, and the profile files as they are. */
function fingerprint(kind: SnapshotShell, request: SnapshotRequest): string {
  const hash = createHash('sha256');
  // Not the working directory: profiles seldom depend on it, and one capture serves every workdir.
  hash.update(JSON.stringify([realpathSync(request.shell), request.sandbox ?? null]));
  hash.update(JSON.stringify(Object.entries(request.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  const home = request.env.HOME ?? homedir();
  for (const path of profileFiles(kind, home)) {
    try {
      const st = statSync(path);
      hash.update(`${path}:${st.ino}:${st.size}:${st.mtimeMs}\n`);
    } catch {
      hash.update(`${path}:-\n`);
    }
  }
  return hash.digest('hex');
}
