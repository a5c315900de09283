#!/usr/bin/env bash
# Builds what is stale: native binaries through make, the daemon's TypeScript through the Nest CLI (nest-cli.json:
# the tsc builder on tsconfig.build.json, incremental), the SDK through tsc.
#
# make and tsc need about 10 s to find that nothing changed, which every `npm start` and operator tool paid. So the
# build ends by writing a stamp: a digest of every input's content (sources, build files, the lock files, the Node
# version and the compiler variables) and of the outputs' names, sizes and times. When both still match, nothing
# runs. The input digest is taken before building, so a file edited during a build is seen by the next one.
set -euo pipefail
cd "$(dirname "$0")/.."
# Build chatter goes to stderr: `npm run -s mcp:stdio` speaks JSON-RPC on stdout.
exec 1>&2
PATH="$PWD/node_modules/.bin:$PATH"

stamp=dist/.build-stamp
input_paths=(src native scripts/build.sh nest-cli.json tsconfig.json tsconfig.build.json package.json package-lock.json
  node_modules/.package-lock.json sdk/src sdk/package.json sdk/tsconfig.json sdk/tsconfig.build.json)

inputs_digest() {
  local present=() path
  for path in "${input_paths[@]}"; do
    if [ -e "$path" ]; then present+=("$path"); fi
  done
  {
    printf 'node=%s CC=%s CXX=%s EXTRA_CXXFLAGS=%s NODE_INCLUDE=%s\n' \
      "$(node --version)" "${CC-}" "${CXX-}" "${EXTRA_CXXFLAGS-}" "${NODE_INCLUDE-}"
    printf '%s\n' "${present[@]}"
    find "${present[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
  } | sha256sum | cut -d' ' -f1
}

# Native test objects (engine_build/obj, native_tests) are left out: `npm test` builds them after this script.
outputs_digest() {
  {
    if [ -d dist ]; then find dist -type f ! -name '.build-stamp*' -printf '%p %s %T@\n'; fi
    if [ -d sdk/dist ]; then find sdk/dist -type f -printf '%p %s %T@\n'; fi
    if [ -d engine_build ]; then
      find engine_build -maxdepth 1 -type f ! -name native_tests -printf '%p %s %T@\n'
    fi
  } | LC_ALL=C sort | sha256sum | cut -d' ' -f1
}

# The stamp reads "<inputs> <outputs>"; a failed or interrupted build records "failed <outputs>".
record() {
  echo "$1 $(outputs_digest)" >"$stamp.tmp"
  mv "$stamp.tmp" "$stamp"
}

inputs=$(inputs_digest)
outputs=$(outputs_digest)
recorded=$(cat "$stamp" 2>/dev/null || true)
if [ "$recorded" = "$inputs $outputs" ]; then
  exit 0
fi
# Outputs changed behind tsc's back (a deleted .js, an unknown dist): incremental tsc would trust its build info and
# not emit them again, so it starts over.
if [ "${recorded#* }" != "$outputs" ]; then
  rm -f dist/.tsbuildinfo
fi
mkdir -p dist
trap 'record failed' EXIT

# A first build compiles the C++ engine for minutes: each step says what it builds, so a first `npm start` is not
# silent. An up-to-date tree stays silent (above).
started=$SECONDS
step() { echo "build: $*"; }
step "sources changed since the last build; building what is stale"
if [ -f native/Makefile ]; then
  step "native engine and helpers (make -C native; a first build takes a few minutes)"
  make -s -C native -j2 all
fi
if [ -f native/sd-notify/Makefile ]; then
  step "systemd notify addon (make -C native/sd-notify)"
  make -s -C native/sd-notify
fi
# The SDK package (sdk/): built afresh so its tarball never carries a stale file, and first, because decisionctl's
# client commands compile against it.
if [ -f sdk/tsconfig.build.json ]; then
  step "SDK (tsc -p sdk/tsconfig.build.json)"
  rm -rf sdk/dist
  tsc -p sdk/tsconfig.build.json
fi
step "daemon and CLIs (nest build)"
nest build

trap - EXIT
record "$inputs"
step "done in $((SECONDS - started)) s"
