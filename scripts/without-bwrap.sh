#!/bin/sh
# Runs a command as on a machine where bubblewrap was never installed: in a mount namespace of its own, each system
# folder that holds bwrap is replaced by a hard-linked copy without it (absent, not covered by a file bound over it).
# The server then picks the Landlock backend by itself, as it would there. Needs root (a mount namespace).
set -eu
if [ "$(id -u)" != 0 ]; then
  if [ -n "${CI:-}" ]; then
    echo "without-bwrap: needs root for a mount namespace of its own" >&2
    exit 1
  fi
  echo "without-bwrap: skipped (needs root for a mount namespace of its own): $*" >&2
  exit 0
fi
scratch=$(mktemp -d /var/tmp/unified-exec-without-bwrap-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
status=0
unshare -m --propagation private sh -c '
  scratch=$1
  shift
  for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    [ -L "$dir" ] || [ ! -e "$dir/bwrap" ] && continue
    copy=$(mktemp -d "$scratch/bin-XXXXXX")
    cp -al "$dir/." "$copy/" 2>/dev/null || cp -a "$dir/." "$copy/"
    rm -f "$copy/bwrap"
    mount --bind "$copy" "$dir"
  done
  if command -v bwrap >/dev/null; then
    echo "without-bwrap: bwrap is still reachable at $(command -v bwrap)" >&2
    exit 1
  fi
  exec "$@"
' without-bwrap "$scratch" "$@" || status=$?
exit "$status"
