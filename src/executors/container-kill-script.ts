/**
 * Ending a session's process tree inside a container. The Docker API has no way to signal an exec, so a second exec
 * runs this POSIX sh script in the same pid namespace. It works like linux/process-tree.ts does here:
 *
 * - every process of the session carries `UNIFIED_EXEC_TAG=<tag>` in its environment (set on the exec), so even
 *   ones that left the session (setsid, double fork) are found; grep reads /proc/PID/environ;
 * - the runtime makes each exec a session leader (runc calls setsid), so every process in a session led by a tagged
 *   process belongs too, including children that cleared their environment;
 * - and every descendant (by parent pid) of those.
 *
 * The first signals go to all of them, then a grace period polled every 50 ms, then SIGKILL until none is left.
 * Zombies do not count (the container's init reaps them), nor does the script's own session. Needs only sh, grep
 * and sleep, which every image with a shell has (busybox included).
 */
import { PROCESS_TAG_VAR } from '../linux/process-tag.js';

/** How long the first signals get before SIGKILL, in 50 ms polls (250 ms, as for local sessions). */
const GRACE_POLLS = 5;
/** SIGKILL rounds before giving up on a process that will not die (uninterruptible sleep). */
const KILL_ROUNDS = 20;

const SCRIPT = `
tag=$1; shift
me=$$
members() {
  table='' tagged=' ' sids=' '
  for d in /proc/[0-9]*; do
    read -r stat 2>/dev/null <"$d/stat" || continue
    set -- \${stat##*) }
    [ "$1" = Z ] && continue
    [ "$4" = "$me" ] && continue
    p=\${d#/proc/}
    table="$table $p,$2,$4"
    if grep -qsF "${PROCESS_TAG_VAR}=$tag" "$d/environ"; then
      tagged="$tagged$p "
      [ "$4" -gt 1 ] && sids="$sids$4 "
    fi
  done
  out=' '
  for e in $table; do
    p=\${e%%,*}; s=\${e##*,}
    case "$tagged$sids" in *" $p "*|*" $s "*) out="$out$p " ;; esac
  done
  grew=1
  while [ $grew = 1 ]; do
    grew=0
    for e in $table; do
      p=\${e%%,*}; r=\${e#*,}; pp=\${r%%,*}
      case "$out" in *" $p "*) continue ;; esac
      case "$out" in *" $pp "*) out="$out$p "; grew=1 ;; esac
    done
  done
  echo $out
}
nap() { sleep 0.05 2>/dev/null || sleep 1; }
pids=$(members)
[ -n "$pids" ] || exit 0
for sig in "$@"; do kill -s "$sig" $pids 2>/dev/null; done
n=0
while [ $n -lt ${GRACE_POLLS} ]; do
  nap
  pids=$(members)
  [ -n "$pids" ] || exit 0
  n=$((n + 1))
done
n=0
while [ -n "$pids" ] && [ $n -lt ${KILL_ROUNDS} ]; do
  kill -s KILL $pids 2>/dev/null
  nap
  pids=$(members)
  n=$((n + 1))
done
[ -z "$pids" ]
`;

/**
 * The argv of an exec that ends every process tagged `tag` and their sessions: `first` signals (names without SIG),
 * a grace period, then SIGKILL. Exits 0 once nothing of the tree is left.
 */
export function killTreeArgv(tag: string, first: readonly string[]): string[] {
  return ['/bin/sh', '-c', SCRIPT, 'unified-exec-kill', tag, ...first];
}
