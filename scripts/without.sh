#!/bin/sh
# Runs a command as on a machine where the named programs were never installed: `without.sh PROGRAM... -- COMMAND...`.
# In a mount namespace of its own, an overlay over each system folder that holds one of them deletes it (a whiteout:
# absent, not covered by a file bound over it). An overlay copies nothing; a hard-linked copy became a full one where
# the scratch folder is on another file system. Needs root (a mount namespace).
set -eu
programs=
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
  programs="$programs $1"
  shift
done
if [ "$#" -lt 2 ] || [ -z "$programs" ]; then
  echo "usage: without.sh PROGRAM... -- COMMAND..." >&2
  exit 2
fi
shift
if [ "$(id -u)" != 0 ]; then
  if [ -n "${CI:-}" ]; then
    echo "without:$programs: needs root for a mount namespace of its own" >&2
    exit 1
  fi
  echo "without:$programs: cannot remove them (needs root for a mount namespace of its own); runs with them: $*" >&2
  exec "$@"
fi
scratch=$(mktemp -d /var/tmp/unified-exec-without-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
status=0
unshare -m --propagation private sh -c '
  scratch=$1
  programs=$2
  shift 2
  for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    [ -L "$dir" ] && continue
    found=
    for program in $programs; do
      [ -e "$dir/$program" ] || [ -L "$dir/$program" ] && found="$found $program"
    done
    [ -z "$found" ] && continue
    layer=$(mktemp -d "$scratch/bin-XXXXXX")
    mount -t tmpfs -o mode=0755 without "$layer"
    mkdir "$layer/upper" "$layer/work"
    for program in $found; do mknod "$layer/upper/$program" c 0 0; done
    mount -t overlay without -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" "$dir"
  done
  for program in $programs; do
    for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin; do
      if [ -e "$dir/$program" ]; then
        echo "without: $program is still reachable at $dir/$program" >&2
        exit 1
      fi
    done
  done
  exec "$@"
' without "$scratch" "$programs" "$@" || status=$?
exit "$status"
