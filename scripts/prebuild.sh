#!/usr/bin/env bash
# Builds the prebuilt natives the package ships, from native/, for each platform in prebuilds/: our addon
# (unified_exec_native.node) and the sandbox's launcher (unified-exec-sandbox-exec). Run it after changing native/
# and commit the result; test/package/prebuilds.test.ts checks that the committed files are this script's output.
#
# Reproducible: the same compilers (Debian's gcc and gcc-aarch64-linux-gnu) give the same bytes, wherever the
# checkout is. The launcher is linked statically, so it runs on any Linux libc (glibc of any version, musl); the
# addon is loaded into Node, so it links glibc dynamically (symbols from GLIBC_2.2.5 on x64, 2.17 on arm64). The
# addon uses Node-API version 8 only, which every Node from 16 on provides: one build for every Node version.
#
# Hardened as a security monitor should be (docs/development.md): locals start zeroed, fortified libc calls, stack
# protector and clash protection, a switch without a default and the warnings below are errors, and the relocations
# are made read-only once loaded. binding.gyp's cflags repeat them (test/package/native-analysis.test.ts checks it).
#
# Usage: scripts/prebuild.sh [OUT_DIR]   (default: prebuilds/ in the checkout)
#        scripts/prebuild.sh --flags     (prints the warning and hardening flags, one a line, for the analysis and
#                                         sanitizer builds of the tests)
set -euo pipefail
warnings=(-Wall -Wextra -Werror -Wformat=2 -Wshadow -Wvla -Werror=switch-default)
hardening=(-ftrivial-auto-var-init=zero -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fstack-clash-protection)
linking=(-Wl,-z,relro,-z,now)
if [ "${1:-}" = --flags ]; then
  printf '%s\n' "${warnings[@]}" "${hardening[@]}"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/prebuilds}"
node_include="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node"
[ -f "$node_include/node_api.h" ] || {
  echo "prebuild: no node_api.h in $node_include (Node's headers, shipped with Node's own builds)" >&2
  exit 1
}

# The paths of the checkout stay out of the binaries: only native/… as the repository names them.
common=(-O2 "${warnings[@]}" "${hardening[@]}" "${linking[@]}" "-ffile-prefix-map=$root/=" -fno-ident)
build() { # platform compiler-prefix
  local platform="$1" prefix="$2" dir="$out/$1"
  command -v "${prefix}gcc" >/dev/null || {
    echo "prebuild: ${prefix}gcc is missing for $platform (Debian: apt-get install gcc-aarch64-linux-gnu)" >&2
    exit 1
  }
  mkdir -p "$dir"
  (
    cd "$root"
    "${prefix}gcc" "${common[@]}" -shared -fPIC -DNAPI_VERSION=8 -I"$node_include" \
      -o "$dir/unified_exec_native.node" native/unified-exec.c
    "${prefix}gcc" "${common[@]}" -static -o "$dir/unified-exec-sandbox-exec" native/sandbox-exec.c native/supervisor.c native/decide.c
  )
  "${prefix}strip" --strip-unneeded "$dir/unified_exec_native.node"
  "${prefix}strip" "$dir/unified-exec-sandbox-exec"
  echo "prebuild: $platform: $(cd "$dir" && ls -l --time-style=+ unified_exec_native.node unified-exec-sandbox-exec | awk '{print $NF, $5}' | paste -sd' ')"
}

build linux-x64 "$([ "$(uname -m)" = x86_64 ] && echo '' || echo x86_64-linux-gnu-)"
build linux-arm64 "$([ "$(uname -m)" = aarch64 ] && echo '' || echo aarch64-linux-gnu-)"
