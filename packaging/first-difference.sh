#!/usr/bin/env bash
# packaging/first-difference.sh A.deb B.deb: says where two builds of the package first differ, in the spirit of
# diffoscope (used instead when installed: `diffoscope A.deb B.deb`). Exit 0 when the files are identical.
# Looks in order at the control data, the member listing (mode, owner, size, time, name), then the first file whose
# bytes differ (a unified diff for text, the differing bytes and their context for binaries), then the archive itself.
set -euo pipefail
A=${1:?usage: packaging/first-difference.sh A.deb B.deb}
B=${2:?usage: packaging/first-difference.sh A.deb B.deb}
cmp -s "$A" "$B" && { echo "identical: $(sha256sum "$A" | cut -d' ' -f1)"; exit 0; }
if command -v diffoscope >/dev/null; then
  diffoscope --text - "$A" "$B" | head -n 200 || true
  exit 1
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/decision-diff.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

show() { printf '%s\n' "$@"; }
first_lines() { head -n "${1:-40}"; }

if ! diff -u <(dpkg-deb -f "$A") <(dpkg-deb -f "$B") >"$WORK/control.diff"; then
  show "first difference: the control file" && first_lines <"$WORK/control.diff"
  exit 1
fi
if ! diff -u <(dpkg-deb -c "$A") <(dpkg-deb -c "$B") >"$WORK/listing.diff"; then
  show "first difference: the member listing (mode owner size time name)" && first_lines <"$WORK/listing.diff"
  exit 1
fi
dpkg-deb -R "$A" "$WORK/a"
dpkg-deb -R "$B" "$WORK/b"
file=$( (cd "$WORK/a" && find . -type f -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' f; do
  cmp -s "$f" "$WORK/b/$f" || { printf '%s\n' "${f#./}"; break; }
done) || true)
if [ -n "$file" ]; then
  show "first difference: /$file"
  if grep -Iq . "$WORK/a/$file" 2>/dev/null; then
    diff -u "$WORK/a/$file" "$WORK/b/$file" | first_lines 60 || true
  else
    offset=$(cmp "$WORK/a/$file" "$WORK/b/$file" | sed -n 's/.* byte \([0-9]*\),.*/\1/p')
    show "binary; sizes $(stat -c %s "$WORK/a/$file") and $(stat -c %s "$WORK/b/$file"), first differing byte at offset ${offset:-?}"
    start=$(((${offset:-1} - 1) / 16 * 16 - 32))
    [ "$start" -lt 0 ] && start=0
    for side in a b; do
      show "--- $side:" && od -A d -t x1z -j "$start" -N 96 "$WORK/$side/$file"
    done
    show "strings only in one of them:" &&
      diff <(strings -n 8 "$WORK/a/$file") <(strings -n 8 "$WORK/b/$file") | first_lines 20 || true
  fi
  exit 1
fi
show "the contents are identical; the archives differ in their compressed bytes or ar headers:"
for deb in "$A" "$B"; do
  show "--- $deb" && ar tv "$deb"
done
exit 1
