#!/bin/sh
# Runs a command as on a machine where bubblewrap was never installed (see without.sh): the server then picks the
# Landlock backend by itself, as it would there.
exec "$(dirname "$0")/without.sh" bwrap -- "$@"
