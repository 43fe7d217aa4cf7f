/**
 * The login profiles of the login-shell figure, given to every row as HOME: a fixture home whose ~/.bashrc costs
 * ~300 ms (a `sleep 0.3`, an export, a function and an alias; ~/.bash_profile sources it, as a login bash reads it),
 * or this machine's own (the user's home from the password database, whatever HOME the bench was started with).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { trackFolder } from './cleanup.mjs';

/** The fixture's ~/.bashrc: as slow as a pyenv, nvm or conda init, and leaving one of each kind of definition. */
const FIXTURE_BASHRC = `# unified-exec bench: a profile that takes ~300 ms
sleep 0.3
export UE_BENCH_PROFILE=loaded
ue_bench_greet() { echo "hello from the profile"; }
alias ue_bench_ll='ls -l'
`;
/** A login bash reads the first of ~/.bash_profile, ~/.bash_login, ~/.profile; this one brings in ~/.bashrc. */
const FIXTURE_BASH_PROFILE = '[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n';

/** Prints which of the fixture profile's export, function and alias a command sees ("nothing" when none). */
const FIXTURE_PROBE = [
  "seen=''",
  '[ -n "${UE_BENCH_PROFILE-}" ] && seen="$seen export"',
  '[ "$(type -t ue_bench_greet)" = function ] && seen="$seen function"',
  'alias ue_bench_ll >/dev/null 2>&1 && seen="$seen alias"',
  'echo "${seen:- nothing}"',
].join('\n');

/** A profile as slow as a conda or nvm init on a loaded machine: what a first call must not wait for. */
const SLOW_BASH_PROFILE = '# unified-exec bench: a profile that takes 3 s\nsleep 3\nexport UE_BENCH_PROFILE=slow\n';

/** How long the CPU-bound profile's work takes alone: this machine's profile (pyenv init) took 0.34 s. */
const CPU_PROFILE_MS = 340;

/**
 * A ~/.bashrc that costs CPU as pyenv's, nvm's and conda's inits do (they run shell code and programs; a `sleep` would
 * leave the cores free): a loop of shell arithmetic, its count measured here so that it takes CPU_PROFILE_MS alone.
 * Two such shells on two busy cores each take longer, as two real inits do.
 */
function cpuBashrc() {
  const loop = (n) => `i=0; while [ $i -lt ${n} ]; do i=$((i+1)); done`;
  const trial = 100_000;
  const started = performance.now();
  execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', loop(trial)]);
  const perIteration = (performance.now() - started) / trial;
  const count = Math.round(CPU_PROFILE_MS / perIteration);
  return `# unified-exec bench: a profile that costs ~${CPU_PROFILE_MS} ms of CPU\n${loop(count)}\nexport UE_BENCH_PROFILE=cpu\n`;
}

/**
 * The HOME of `profile` ('fixture', 'slow', 'cpu' or 'machine') and, for the fixture, a command that says what of its profile
 * a session sees. The fixture and slow homes are made fresh and removed at cleanup.
 */
export function profileHome(profile) {
  if (profile === 'machine') return { home: userInfo().homedir, probe: undefined };
  if (profile === 'slow') {
    const home = trackFolder(mkdtempSync(join(tmpdir(), 'ue-bench-home-')));
    writeFileSync(join(home, '.bash_profile'), SLOW_BASH_PROFILE);
    return { home, probe: undefined };
  }
  if (profile === 'cpu') {
    const home = trackFolder(mkdtempSync(join(tmpdir(), 'ue-bench-home-')));
    writeFileSync(join(home, '.bashrc'), cpuBashrc());
    writeFileSync(join(home, '.bash_profile'), FIXTURE_BASH_PROFILE);
    return { home, probe: undefined };
  }
  if (profile !== 'fixture') throw new Error(`unknown login profile ${JSON.stringify(profile)}`);
  const home = trackFolder(mkdtempSync(join(tmpdir(), 'ue-bench-home-')));
  writeFileSync(join(home, '.bashrc'), FIXTURE_BASHRC);
  writeFileSync(join(home, '.bash_profile'), FIXTURE_BASH_PROFILE);
  return { home, probe: FIXTURE_PROBE };
}
