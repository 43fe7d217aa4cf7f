#!/usr/bin/env bash
# Fuzzes the Landlock supervisor's pure decisions (native/decide.c) with libFuzzer: native/fuzz/decide-fuzz.c, built
# with clang -fsanitize=fuzzer,address,undefined. First builds and runs the unit tests of the same decisions on fixed
# inputs (native/fuzz/decide-test.c, gcc with ASan and UBSan). `npm run fuzz:native` runs it for ten minutes;
# test/package/native-fuzz.test.ts for a few seconds. Needs clang and libFuzzer (Debian 12: clang, libclang-rt-14-dev).
#
# Usage: scripts/fuzz-native.sh [SECONDS] [WORK_DIR]
#   SECONDS   how long to fuzz (default 600)
#   WORK_DIR  the builds and the corpus (default .fuzz/ in the checkout, kept between runs, so that each run goes on
#             from what the last one found); an input that breaks a check is left there as crash-*, and the run fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
work="${2:-$root/.fuzz}"
mkdir -p "$work/corpus"
cd "$root"
# The build's own warnings (scripts/prebuild.sh); ASan replaces _FORTIFY_SOURCE's checks, and clang 14 takes
# -ftrivial-auto-var-init=zero only behind a flag of its own: the sanitizers need no backstop.
mapfile -t warnings < <(scripts/prebuild.sh --flags | grep '^-W')
sanitize=(-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all)
gcc "${sanitize[@]}" -fsanitize=address,undefined "${warnings[@]}" -o "$work/decide-test" native/fuzz/decide-test.c native/decide.c
"$work/decide-test"
clang "${sanitize[@]}" -fsanitize=fuzzer,address,undefined "${warnings[@]}" -o "$work/decide-fuzz" \
  native/fuzz/decide-fuzz.c native/decide.c
"$work/decide-fuzz" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus"
