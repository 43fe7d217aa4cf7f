import { describe, expect, it } from 'vitest';
import {
  commandArgv,
  commandLine,
  isDangerousCommand,
  isKnownSafeCommand,
  lookupChanges,
  programsOf,
  quoteArgv,
} from '../../src/approval/command-safety.js';
import { parseShellScript } from '../../src/approval/shell-script.js';

const bash = (script: string): string[] => ['bash', '-lc', script];

describe('parseShellScript', () => {
  it.each<[string, string[][]]>([
    ['ls', [['ls']]],
    ['ls -la src', [['ls', '-la', 'src']]],
    ['  ls   -1\t', [['ls', '-1']]],
    ['ls && git status | head -n 5', [['ls'], ['git', 'status'], ['head', '-n', '5']]],
    ['ls || true; pwd', [['ls'], ['true'], ['pwd']]],
    ['ls;pwd', [['ls'], ['pwd']]],
    ['ls;', [['ls']]],
    ['ls\npwd\n', [['ls'], ['pwd']]],
    ['\n\nls\n\n\npwd', [['ls'], ['pwd']]],
    ['ls &&\n  pwd', [['ls'], ['pwd']]],
    ['ls |\n wc -l', [['ls'], ['wc', '-l']]],
    ['echo \'a b\' "c d"', [['echo', 'a b', 'c d']]],
    ["echo '$HOME * ~ `x`'", [['echo', '$HOME * ~ `x`']]],
    ['echo "it\'s (fine) > ok!"', [['echo', "it's (fine) > ok!"]]],
    ['echo a\'b\'"c"d', [['echo', 'abcd']]],
    ['echo \'\' ""', [['echo', '', '']]],
    ['grep -R "Cargo.toml" -n', [['grep', '-R', 'Cargo.toml', '-n']]],
    ["sed -n '1,5p' file.txt", [['sed', '-n', '1,5p', 'file.txt']]],
    ['git log --format=%h@%an,x:y+z ^main', [['git', 'log', '--format=%h@%an,x:y+z', '^main']]],
    [
      '[ -f x ] && cat x',
      [
        ['[', '-f', 'x', ']'],
        ['cat', 'x'],
      ],
    ],
  ])('splits %j', (script, expected) => {
    expect(parseShellScript(script)).toEqual(expected);
  });

  it.each([
    ['', 'an empty script'],
    ['   \n\t ', 'a blank script'],
    ['ls > out.txt', 'a redirection'],
    ['cat < in.txt', 'an input redirection'],
    ['ls >> log', 'an appending redirection'],
    ['ls 2>&1', 'a descriptor redirection'],
    ['cat <<EOF\nhi\nEOF', 'a here-document'],
    ['(ls)', 'a subshell'],
    ['ls || (pwd && echo hi)', 'a nested subshell'],
    ['echo $(whoami)', 'a command substitution'],
    ['echo `whoami`', 'a backtick substitution'],
    ['echo $HOME', 'a variable'],
    ['echo "$HOME"', 'a variable in double quotes'],
    ['echo "`id`"', 'a backtick in double quotes'],
    ['echo "a\\"b"', 'a backslash in double quotes'],
    ['echo a\\ b', 'a backslash escape'],
    ['ls *.ts', 'a * glob'],
    ['ls file?.ts', 'a ? glob'],
    ['ls [ab].ts', 'a [ glob'],
    ['ls ~', 'a tilde'],
    ['echo {a,b}', 'brace expansion'],
    ['sleep 1 &', 'a background job'],
    ['ls & pwd', 'a background job between commands'],
    ['FOO=bar ls', 'an assignment before a command'],
    ['FOO=bar', 'a bare assignment'],
    ['ls # comment', 'a comment'],
    ['ls && && pwd', 'an empty command between operators'],
    ['ls |', 'a trailing pipe'],
    ['ls &&', 'a trailing &&'],
    ['| ls', 'a leading pipe'],
    ['; ls', 'a leading semicolon'],
    ['ls;;', 'a double semicolon'],
    ['ls |& cat', 'a |& pipe'],
    ['ls\n&& pwd', 'an operator at the start of a line'],
    ["echo 'unterminated", 'an unterminated single quote'],
    ['echo "unterminated', 'an unterminated double quote'],
    ['if true; then ls; fi', 'an if statement'],
    ['for f in a b; do cat f; done', 'a for loop'],
    ['time ls', 'the time keyword'],
    ['! ls', 'pipeline negation'],
    ['ls\r', 'a carriage return'],
    ['echo café', 'an unquoted non-ASCII character'],
  ])('refuses %j (%s)', (script) => {
    expect(parseShellScript(script)).toBeUndefined();
  });
});

describe('commandArgv', () => {
  it('returns a plain argv as the one command', () => {
    expect(commandArgv(['ls', '-la'])).toEqual([['ls', '-la']]);
  });

  it.each([
    ['bash', '-lc'],
    ['bash', '-c'],
    ['sh', '-c'],
    ['zsh', '-lc'],
    ['/bin/bash', '-lc'],
    ['/usr/bin/zsh', '-c'],
    ['/usr/local/bin/bash', '-c'],
  ])('returns the commands of a %s %s script', (shell, flag) => {
    expect(commandArgv([shell, flag, 'ls && pwd'])).toEqual([['ls'], ['pwd']]);
  });

  it('returns undefined for a shell script that is not plain', () => {
    expect(commandArgv(bash('ls > out'))).toBeUndefined();
  });

  it('treats a shell outside the standard bin directories, extra arguments or other flags as a plain argv', () => {
    expect(commandArgv(['/tmp/bash', '-lc', 'ls'])).toEqual([['/tmp/bash', '-lc', 'ls']]);
    expect(commandArgv(['bash', '-lc', 'ls', 'extra'])).toEqual([['bash', '-lc', 'ls', 'extra']]);
    expect(commandArgv(['bash', '-x', 'ls'])).toEqual([['bash', '-x', 'ls']]);
    expect(commandArgv(['fish', '-c', 'ls'])).toEqual([['fish', '-c', 'ls']]);
  });

  it('returns a copy, not the array it is given', () => {
    const argv = ['ls'];
    expect(commandArgv(argv)?.[0]).not.toBe(argv);
  });
});

const SAFE: string[][] = [
  ['ls'],
  ['ls', '-la', '/etc'],
  ['/bin/ls', '-1'],
  ['/usr/bin/cat', 'x'],
  ['cat', '/etc/passwd'],
  ['cd', 'src'],
  ['echo', 'hi'],
  ['true'],
  ['false'],
  ['pwd'],
  ['grep', '-rn', 'sudo', 'src'],
  ['head', '-n', '5', 'f'],
  ['tail', '-f', 'log'],
  ['wc', '-l', 'f'],
  ['nl', '-nrz', 'Cargo.toml'],
  ['which', 'node'],
  ['whoami'],
  ['id', '-u'],
  ['uname', '-a'],
  ['date'],
  ['date', '+%Y-%m-%d'],
  ['date', '-d', 'yesterday', '+%s'],
  ['date', '-Iseconds'],
  ['date', '-u', '-r', 'file'],
  ['printf', '%s\\n', 'a', '-v'],
  ['basename', '/a/b.ts', '.ts'],
  ['dirname', '/a/b'],
  ['realpath', '.'],
  ['readlink', '-f', 'x'],
  ['stat', 'x'],
  ['file', 'x'],
  ['tr', 'a-z', 'A-Z'],
  ['cut', '-d:', '-f1', '/etc/passwd'],
  ['sort', '-u', 'f'],
  ['sort', '-t', 'o', '-k2', 'f'],
  ['sort', '-to', 'f'],
  ['uniq', '-c', 'f'],
  ['uniq', '-f', '1', 'f'],
  ['diff', '-u', 'a', 'b'],
  ['cmp', 'a', 'b'],
  ['expr', '1', '+', '1'],
  ['seq', '1', '10'],
  ['test', '-f', 'x'],
  ['[', '-d', 'x', ']'],
  ['find', '.', '-name', '*.ts', '-type', 'f'],
  ['rg', '-n', 'TODO', 'src'],
  ['rg', '--pre-glob', '*.gz', 'x'],
  ['sed', '-n', '10p', 'f'],
  ['sed', '-n', '1,5p', 'f'],
  ['sed', '-n', '1,5p'],
  ['base64', 'f'],
  ['base64', '-d', '-w', '0', 'f'],
  ['git', 'status'],
  ['git', 'status', '--short'],
  ['git', 'log', '--oneline', '-5'],
  ['git', 'diff', 'HEAD~1', '--', 'src'],
  ['git', 'diff', '--no-ext-diff'],
  ['git', 'show', 'HEAD:README.md'],
  ['git', 'branch'],
  ['git', 'branch', '--show-current'],
  ['git', 'branch', '-a', '-v'],
  ['git', 'rev-parse', 'HEAD'],
  ['git', 'ls-files'],
  ['git', 'blame', 'README.md'],
  ['git', 'grep', '-n', 'TODO'],
  ['git', '--no-pager', 'log', '-1'],
  bash('ls'),
  bash('ls -1'),
  bash('ls && git status | head -n 5'),
  bash('grep -R "Cargo.toml" -n || true'),
  bash("echo 'hi' ; ls"),
  bash('ls | wc -l'),
  bash("sed -n '1,5p' file.txt"),
  bash('cd src\nls -la\n'),
  bash('echo "rm -rf /"'),
  bash('grep sudo file'),
  bash('echo rm -rf /'),
  bash('[ -f x ] && cat x'),
  ['zsh', '-lc', 'ls'],
  ['/bin/sh', '-c', 'pwd'],
  bash("bash -c 'ls && pwd'"),
  bash('bash -c \'bash -c "bash -c ls"\''),
];

const NOT_SAFE: string[][] = [
  [],
  ['foo'],
  ['cargo', 'check'],
  ['./ls'],
  ['/tmp/evil/cat', 'x'],
  ['/usr/bin/../../tmp/ls'],
  ['constructor'],
  ['__proto__'],
  ['rm', 'x'],
  ['printf', '-v', 'x', 'hi'],
  ['printf', '-vx', 'hi'],
  ['date', '-s', '2020-01-01'],
  ['date', '--set=2020-01-01'],
  ['date', '-us', 'now'],
  ['date', '010112002025'],
  ['sort', '-o', 'out', 'f'],
  ['sort', '-uo', 'out', 'f'],
  ['sort', '--output=out', 'f'],
  ['sort', '--out', 'out', 'f'],
  ['sort', '--compress-program=sh', 'f'],
  ['uniq', 'in', 'out'],
  ['file', '-C', '-m', 'magic'],
  ['find', '.', '-name', 'x', '-delete'],
  ['find', '.', '-exec', 'rm', '{}', ';'],
  ['find', '.', '-execdir', 'python3', '{}', ';'],
  ['find', '.', '-ok', 'rm', '{}', ';'],
  ['find', '.', '-okdir', 'rm', '{}', ';'],
  ['find', '.', '-fls', 'out'],
  ['find', '.', '-fprint', 'out'],
  ['find', '.', '-fprint0', 'out'],
  ['find', '.', '-fprintf', 'out', '%p'],
  ['rg', '--pre', 'pwned', 'x'],
  ['rg', '--pre=pwned', 'x'],
  ['rg', '--hostname-bin', 'pwned', 'x'],
  ['rg', '--hostname-bin=pwned', 'x'],
  ['rg', '--search-zip', 'x'],
  ['rg', '-z', 'x'],
  ['rg', '-iz', 'x'],
  ['sed', '-n', 'xp', 'f'],
  ['sed', '-n', '1,2,3p', 'f'],
  ['sed', '-i', 's/a/b/', 'f'],
  ['sed', '-n', '1p', '-i'],
  ['sed', '-n', '1p', 'a', 'b'],
  ['sed', 's/a/b/'],
  ['base64', '-o', 'out', 'f'],
  ['base64', '-oout', 'f'],
  ['base64', '--output', 'out'],
  ['base64', '--output=out'],
  ['git'],
  ['git', 'fetch'],
  ['git', 'push'],
  ['git', 'commit', '-m', 'x'],
  ['git', 'checkout', 'main'],
  ['git', '-c', 'core.pager=x', 'log'],
  ['git', '-C', '/tmp', 'status'],
  ['git', '--git-dir=x', 'status'],
  ['git', '--exec-path=x', 'status'],
  ['git', 'branch', 'new-branch'],
  ['git', 'branch', '-d', 'old'],
  ['git', 'branch', '-D', 'old'],
  ['git', 'branch', '-m', 'a', 'b'],
  ['git', 'branch', '--delete', 'old'],
  ['git', 'diff', '--output=patch'],
  ['git', 'log', '--output', 'patch'],
  ['git', 'diff', '--ext-diff'],
  ['git', 'log', '-p', '--textconv'],
  ['git', 'grep', '-O', 'x'],
  ['git', 'grep', '-nOvim', 'x'],
  ['git', 'grep', '--open-files-in-pager=vim', 'x'],
  // Ways to point a git read at another repository, config or git: none passes.
  ['git', '-c', 'core.fsmonitor=/tmp/x/hook', 'status'],
  ['git', '--no-pager', '-c', 'core.fsmonitor=/tmp/x/hook', 'status'],
  ['git', '-P', '-C', '/tmp/x', 'status'],
  ['git', '--config-env=core.fsmonitor=HOOK', 'status'],
  ['git', '--exec-path', '/tmp/x', 'status'],
  ['git', '--work-tree=/tmp/x', 'status'],
  ['git', '--namespace=x', 'log'],
  ['env', 'GIT_DIR=/tmp/x/.git', 'git', 'status'],
  ['env', 'GIT_CONFIG_PARAMETERS=core.fsmonitor=/tmp/x/hook', 'git', 'status'],
  bash('GIT_DIR=/tmp/x/.git git status'),
  bash('GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=/tmp/x/hook git status'),
  bash('ls && GIT_EXEC_PATH=/tmp/x git status'),
  bash('export GIT_DIR=/tmp/x/.git; git status'),
  ['./git', 'status'],
  ['/tmp/x/git', 'status'],
  bash(''),
  bash('   '),
  bash('ls > out.txt'),
  bash('ls && rm -rf /'),
  bash('(ls)'),
  bash('ls || (pwd && echo hi)'),
  bash('git -c core.pager=x log'),
  bash('find . -name file.txt -delete'),
  bash('cat $HOME/.ssh/id_rsa'),
  bash("'git status'"),
  ['bash', '-lc', 'git', 'status'],
  ['bash', '-lc', 'ls', 'extra'],
  ['/tmp/evil/bash', '-lc', 'ls'],
  ['bash', '-x', 'ls'],
  ['bash', 'script.sh'],
  ['env', 'ls'],
  ['xargs', 'cat'],
  bash("bash -c 'rm x'"),
];

describe('isKnownSafeCommand', () => {
  it.each(SAFE)('accepts %j in the sandbox', (...argv) => {
    expect(isKnownSafeCommand(argv, 'sandbox')).toBe(true);
  });

  it.each(NOT_SAFE)('does not accept %j anywhere', (...argv) => {
    expect(isKnownSafeCommand(argv, 'sandbox')).toBe(false);
    expect(isKnownSafeCommand(argv, 'host')).toBe(false);
  });

  it('outside a sandbox, does not accept git: a repository it reads can make it run programs', () => {
    for (const argv of [['git', 'status'], ['/usr/bin/git', 'log', '-1'], bash('ls && git status | head -n 5')]) {
      expect(isKnownSafeCommand(argv, 'sandbox'), JSON.stringify(argv)).toBe(true);
      expect(isKnownSafeCommand(argv, 'host'), JSON.stringify(argv)).toBe(false);
    }
  });

  it('outside a sandbox, still accepts the other read-only programs', () => {
    for (const argv of SAFE.filter((argv) => !JSON.stringify(argv).includes('git'))) {
      expect(isKnownSafeCommand(argv, 'host'), JSON.stringify(argv)).toBe(true);
    }
  });
});

const DANGEROUS: string[][] = [
  ['rm', '-rf', 'build'],
  ['find', 'sub', '-name', 'x', '-delete'],
  ['bash', '-lc', 'x=rm; $x -rf sub'],
  ['bash', '-lc', '"$RM" -rf sub'],
  ['bash', '-lc', '$(echo rm) -rf sub'],
  ['bash', '-lc', '`echo rm` -rf sub'],
  ['bash', '-lc', 'eval "rm -rf sub"'],
  ['eval', 'rm', '-rf', 'sub'],
  ['rm', '-fr', 'build'],
  ['rm', '-Rf', 'build'],
  ['rm', '-r', '-f', 'build'],
  ['rm', '-v', '-r', '-i', '-f', 'build'],
  ['rm', '--recursive', '--force', 'build'],
  ['rm', '--rec', '--for', 'build'],
  ['rm', 'build', '-rf'],
  ['/bin/rm', '-rf', 'build'],
  ['rm', '-r', '/'],
  ['rm', '-f', '/'],
  ['rm', '-r', '/*'],
  ['rm', '-r', '/etc/'],
  ['rm', '-r', '~'],
  ['rm', '-r', '~/'],
  ['rm', '-f', '~/*'],
  ['rm', '-r', '$HOME'],
  ['rm', '-r', '${HOME}'],
  ['rm', '-r', '/home/me'],
  ['rm', '-r', '*'],
  ['rm', '-r', '--', '/'],
  ['rm', '--no-preserve-root', '/'],
  ['sudo', 'ls'],
  ['sudo', '-u', 'root', 'cat', 'x'],
  ['doas', 'ls'],
  ['su', '-c', 'ls'],
  ['pkexec', 'ls'],
  ['git', 'reset', '--hard'],
  ['git', 'reset', '--hard', 'HEAD~1'],
  ['git', '-C', 'repo', 'reset', '--hard'],
  ['git', '-c', 'x=y', '--no-pager', 'reset', '--hard'],
  ['git', 'clean', '-f'],
  ['git', 'clean', '-fdx'],
  ['git', 'clean', '-d', '--force'],
  ['git', 'push', '--force'],
  ['git', 'push', '-f', 'origin', 'main'],
  ['git', 'push', '-uf', 'origin', 'main'],
  ['git', 'push', '--force-with-lease'],
  ['git', 'push', '--force-with-lease=main:abc'],
  ['git', 'push', 'origin', '+main'],
  ['git', 'push', 'origin', '--delete', 'main'],
  ['git', 'push', 'origin', ':main'],
  ['git', 'checkout', '--', '.'],
  ['git', 'checkout', '.'],
  ['git', 'checkout', '-f', 'main'],
  ['git', 'restore', '.'],
  ['git', 'restore', '--staged', '--worktree', '.'],
  ['dd', 'if=/dev/zero', 'of=/dev/sda'],
  ['mkfs', '/dev/sda1'],
  ['mkfs.ext4', '/dev/sda1'],
  ['/sbin/mkfs.xfs', '/dev/sda1'],
  ['wipefs', '-a', '/dev/sda'],
  ['shutdown', '-h', 'now'],
  ['reboot'],
  ['poweroff'],
  ['halt'],
  ['systemctl', 'reboot'],
  ['chmod', '-R', '777', '/'],
  ['chown', '-R', 'me', '/'],
  ['chgrp', '--recursive', 'staff', '~'],
  ['env', 'FOO=1', 'rm', '-rf', 'x'],
  ['nice', '-n', '5', 'rm', '-rf', 'x'],
  ['timeout', '-s', 'KILL', '5', 'rm', '-rf', 'x'],
  ['xargs', '-n', '1', 'rm', '-rf'],
  ['command', 'sudo', 'ls'],
  ['env', 'nohup', 'sudo', 'ls'],
  ['zsh', '-c', 'noglob rm -rf x'],
  ['find', '.', '-exec', 'rm', '-rf', '{}', ';'],
  ['find', '/', '-name', 'x', '-delete'],
  bash('rm -rf /tmp/x'),
  bash('ls && sudo ls'),
  bash('cd x && rm -rf $HOME'),
  bash('find . | xargs rm -rf'),
  bash('printf x | rm -rf /tmp/example'),
  bash('if test -d /tmp/x; then rm --force -r /tmp/x; fi'),
  bash('rm -rf "$TARGET" >/dev/null'),
  bash('for t in /tmp/a /tmp/b; do rm -r -f "$t"; done'),
  bash('echo "$(rm -rf /tmp/x)"'),
  bash('echo `sudo id`'),
  bash('X=1 sudo ls'),
  bash('{ git reset --hard; }'),
  bash('\\rm -rf x'),
  bash('find . -exec rm -rf {} \\;'),
  bash("bash -c 'rm -rf x'"),
  bash("bash -c 'cd / && sudo ls > /dev/null'"),
  ['/tmp/x/bash', '-c', 'rm -rf x'],
  ['sh', '-ec', 'rm -rf x'],
  ['bash', '-c', 'rm -rf "$1"', 'sh', 'x'],
  ['bash', '-o', 'pipefail', '-c', 'sudo ls'],
  ['dash', '-c', 'sudo ls'],
];

const NOT_DANGEROUS: string[][] = [
  [],
  ['bash', '-lc', '$PY -m pip install -q ./pkg'],
  ['bash', '-lc', '"$CC" -o prog main.c'],
  ['bash', '-lc', 'eval "$(ssh-agent -s)"'],
  ['ls'],
  ['rm', 'x'],
  ['rm', '-r', 'build'],
  ['rm', '-f', 'build/x.o'],
  ['rm', '-r', '/tmp/x'],
  ['rm', '--', '-rf'],
  ['rm', '-i', 'x'],
  ['echo', 'rm', '-rf', '/'],
  ['grep', 'sudo', 'file'],
  ['cat', 'sudo'],
  ['git', 'status'],
  ['git', 'reset', 'HEAD~1'],
  ['git', 'reset', '--soft', 'HEAD~1'],
  ['git', 'clean', '-n'],
  ['git', 'clean', '-e', 'f'],
  ['git', 'push'],
  ['git', 'push', 'origin', 'main'],
  ['git', 'push', '--force-if-includes'],
  ['git', 'push', 'origin', 'main:main'],
  ['git', 'checkout', 'main'],
  ['git', 'checkout', '-b', 'feature'],
  ['git', 'checkout', '--', 'src/a.ts'],
  ['git', 'restore', 'src/a.ts'],
  ['git', 'restore', '--staged', '.'],
  ['git', 'log', '--', 'reset', '--hard'],
  ['dd', 'if=/dev/zero', 'bs=1', 'count=1'],
  ['chmod', '-R', '755', 'build'],
  ['chmod', '777', '/'],
  ['chown', 'me', 'file'],
  ['systemctl', 'status'],
  ['find', '.', '-exec', 'cat', '{}', ';'],
  ['env', 'FOO=1', 'ls'],
  ['timeout', '5', 'ls'],
  bash('echo "rm -rf /"'),
  bash("echo 'sudo ls'"),
  bash('echo rm -rf /'),
  bash('echo sudo rm -rf / > log'),
  bash('grep sudo file'),
  bash('grep -r "rm -rf" . > hits.txt'),
  bash('ls && git status | head -n 5'),
  bash('cat x > out.txt'),
  bash('echo $HOME'),
  ['bash', 'script.sh'],
  ['bash', '-x', 'sudo'],
];

describe('isDangerousCommand', () => {
  it('reads eval, shells and find -exec at most 8 deep, and answers dangerous past that', () => {
    expect(isDangerousCommand(['bash', '-lc', `${'eval '.repeat(20_000)}rm -rf /`])).toBe(true);
    expect(isDangerousCommand(['bash', '-lc', `${'eval '.repeat(20_000)}ls`])).toBe(false); // leading evals: one level
    expect(isDangerousCommand(['bash', '-lc', `${'eval nice '.repeat(4)}ls`])).toBe(false);
    expect(isDangerousCommand(['bash', '-lc', `${'eval nice '.repeat(20)}ls`])).toBe(true);
    expect(isDangerousCommand(['find', ...Array<string[]>(20).fill(['.', '-exec', 'find']).flat(), '.'])).toBe(true);
    expect(isDangerousCommand(['find', '.', '-exec', 'echo', '-exec', 'rm', '-rf', '/', ';'])).toBe(false);
  });

  it('asks about a command too long to run (over 128 KiB) without reading it; it is never known-safe', () => {
    const script = `ls ${'a'.repeat(128 * 1024)}`;
    expect(isDangerousCommand(['bash', '-lc', script])).toBe(true);
    expect(isKnownSafeCommand(['bash', '-lc', script], 'sandbox')).toBe(false);
    expect(isDangerousCommand(['bash', '-lc', `ls ${'a'.repeat(1000)}`])).toBe(false);
  });

  it.each(DANGEROUS)('flags %j', (...argv) => {
    expect(isDangerousCommand(argv)).toBe(true);
  });

  it.each(NOT_DANGEROUS)('does not flag %j', (...argv) => {
    expect(isDangerousCommand(argv)).toBe(false);
  });
});

describe('safe and dangerous', () => {
  it('never calls a dangerous command known-safe', () => {
    for (const argv of DANGEROUS) expect(isKnownSafeCommand(argv, 'sandbox'), JSON.stringify(argv)).toBe(false);
  });

  it('never calls a known-safe command dangerous', () => {
    for (const argv of SAFE) expect(isDangerousCommand(argv), JSON.stringify(argv)).toBe(false);
  });
});

describe('commandLine', () => {
  it('shows a shell invocation as its script, exactly as it runs', () => {
    expect(commandLine(bash('  ls   -la \t&&  pwd  '))).toBe('  ls   -la \t&&  pwd  ');
    expect(commandLine(['/bin/bash', '-c', 'ls  -la'])).toBe('ls  -la');
  });

  it('keeps the indentation inside a heredoc, which is part of the program', () => {
    const script = "python3 - <<'EOF'\nfor i in range(2):\n    print(i)\n    print('done')\nEOF";
    expect(commandLine(bash(script))).toBe(script);
  });

  it('joins a plain argv with spaces, quoting arguments that need it', () => {
    expect(commandLine(['ls', '-la', 'src/x.ts'])).toBe('ls -la src/x.ts');
    expect(commandLine(['echo', 'a b', '', "it's", '$HOME', '*'])).toBe(`echo 'a b' '' 'it'\\''s' '$HOME' '*'`);
    expect(commandLine([])).toBe('');
  });

  it('shows a shell outside the standard bin directories with its whole argv', () => {
    expect(commandLine(['/tmp/bash', '-lc', 'ls'])).toBe('/tmp/bash -lc ls');
  });
});

describe('programsOf', () => {
  it('names the first word of each simple command of a shell’s script, past wrappers, once each', () => {
    expect(
      programsOf(['/usr/bin/bash', '-lc', 'git status --short && env FOO=1 nice -n 5 make test | tee log; git log']),
    ).toEqual(['git', 'make', 'tee']);
  });

  it('leaves out builtins, keywords and words that expand, and reads a script that is not plain loosely', () => {
    expect(programsOf(['bash', '-c', 'cd sub && echo hi > out.txt && if true; then ./build.sh; fi; $CC x.c'])).toEqual([
      './build.sh',
    ]);
  });

  it('names nothing for an argv that is no shell’s script', () => {
    expect(programsOf(['git', 'status'])).toEqual([]);
  });
});

describe('quoteArgv', () => {
  it('quotes each argument that needs it, whole', () => {
    expect(quoteArgv(['/usr/bin/bash', '-lc', "git status --short && echo 'it''s'"])).toBe(
      `/usr/bin/bash -lc 'git status --short && echo '\\''it'\\'''\\''s'\\'''`,
    );
    expect(quoteArgv(['echo', 'a b', ''])).toBe("echo 'a b' ''");
  });
});

describe('lookupChanges', () => {
  const of = (script: string) => lookupChanges(['/usr/bin/bash', '-lc', script]);

  it.each([
    ['PATH=b:$PATH git status', ['PATH=']],
    ['cd b; PATH=.:$PATH; git status', ['cd', 'PATH=']],
    ['hash -p b/git git; git status', ['hash']],
    ['export PATH="./node_modules/.bin:$PATH" && npm test', ['PATH=']],
    ['LD_PRELOAD=./x.so ls', ['LD_PRELOAD=']],
    ['BASH_ENV=./e bash -c ls', ['BASH_ENV=']],
    ['path=(b $path); git status', ['path=']],
    ['alias git=./b/git; git status', ['alias']],
    ['source ./env.sh && make', ['source']],
    ['. ./env.sh && make', ['.']],
    ['eval "$X"', ['eval']],
    ['exec git status', ['exec']],
    ['pushd b && git status', ['pushd']],
    ['enable -n echo', ['enable']],
    ['command -p git status', ['command -p']],
    ['git() { ./b/git "$@"; }; git status', ['a function definition']],
    ['function git { ./b/git; }; git status', ['function']],
    ['declare -n r=PATH; r=b; git status', ['declare of a name made at run time or a reference', 'PATH']],
    ['export "$NAME=b"; git status', ['export of a name made at run time or a reference']],
    [': ${PATH:=b}; git status', ['${PATH=…}']],
    ['bash -c "cd b && git status"', ['cd']],
    ['env -i git status', ['env with options']],
  ])('%s: %j', (script, expected) => {
    expect(of(script)).toEqual(expected);
  });

  it.each(['git status', 'npm test', 'export FOO=1 && npm test', 'echo $PATH', 'command -v git', 'FOO=1 make'])(
    '%s: nothing',
    (script) => {
      expect(of(script)).toEqual([]);
    },
  );

  it('an argv: env with a lookup assignment or options, by any path; a plain program is nothing', () => {
    expect(lookupChanges(['/usr/bin/env', 'PATH=/x', 'git', 'status'])).toEqual(['PATH=']);
    expect(lookupChanges(['env', '-u', 'HOME', 'git'])).toEqual(['env with options']);
    expect(lookupChanges(['/usr/bin/env', 'FOO=1', 'git'])).toEqual([]);
    expect(lookupChanges(['/usr/bin/git', 'status'])).toEqual([]);
  });
});
