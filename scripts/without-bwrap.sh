#!/bin/sh
# Runs a command as on a machine where bubblewrap was never installed: in a mount namespace of its own, an overlay
# over each system folder that holds bwrap deletes it (a whiteout: absent, not covered by a file bound over it). An
# overlay copies nothing; a hard-linked copy became a full one where the scratch folder is on another file system.
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
    layer=$(mktemp -d "$scratch/bin-XXXXXX")
    mount -t tmpfs -o mode=0755 without-bwrap "$layer"
    mkdir "$layer/upper" "$layer/work"
    mknod "$layer/upper/bwrap" c 0 0
    mount -t overlay without-bwrap -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" "$dir"
  done
  if command -v bwrap >/dev/null; then
    echo "without-bwrap: bwrap is still reachable at $(command -v bwrap)" >&2
    exit 1
  fi
  exec "$@"
' without-bwrap "$scratch" "$@" || status=$?
exit "$status"
