#!/bin/sh
# Builds the roo-ingest Debian package from a build directory, checks it, installs it with dpkg, runs the INSTALLED
# /usr/bin/roo-ingest on the demo image, renders its man page, and removes the package again.
#
#   packaging/test-package.sh BUILD_DIR
#
# Needs root (dpkg -i): otherwise it prints "SKIP: …" and exits 0 (ctest reports it as skipped). It will not touch
# a roo-ingest package that is already installed (SKIP too). Tools: cpack, dpkg-deb, dpkg, dpkg-shlibdeps
# (dpkg-dev) and file (both used by CPack), man (man-db; else the page is read with zcat).
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
REPO=$(cd "$(dirname "$0")/.." && pwd)
DEMO="$REPO/fixtures/images/demo.E01"

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: not root: installing the package (dpkg -i) needs root; run as root to test the Debian package"
  exit 0
fi
if dpkg-query -W -f '${Status}' roo-ingest 2>/dev/null | grep -q 'ok installed'; then
  echo "SKIP: a roo-ingest package is already installed on this machine; not replacing or removing it"
  exit 0
fi
for tool in cpack dpkg-deb dpkg dpkg-shlibdeps file; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (packaging/install-build-deps.sh installs it)"
done
[ -x "$BUILD/plugin/roo-ingest" ] || fail "$BUILD/plugin/roo-ingest is not built"

WORK=$(mktemp -d /tmp/roo-ingest-package-test.XXXXXX)
INSTALLED=0
cleanup() {
  if [ "$INSTALLED" -eq 1 ]; then
    dpkg -r roo-ingest >/dev/null 2>&1 || echo "WARNING: dpkg -r roo-ingest failed" >&2
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

echo "== cpack -G DEB"
(cd "$BUILD" && cpack -G DEB -B "$WORK/cpack") > "$WORK/cpack.log" 2>&1 || { cat "$WORK/cpack.log" >&2; fail "cpack"; }
DEB=$(ls "$WORK"/cpack/roo-ingest_*.deb 2>/dev/null | head -n 1)
[ -n "$DEB" ] || { cat "$WORK/cpack.log" >&2; fail "cpack made no roo-ingest_*.deb"; }
echo "built $(basename "$DEB")"

echo "== dpkg-deb -I"
dpkg-deb -I "$DEB" > "$WORK/info.txt"
cat "$WORK/info.txt"
field() { dpkg-deb -f "$DEB" "$1"; }
[ "$(field Package)" = roo-ingest ] || fail "Package is not roo-ingest"
VERSION=$(field Version)
BUILT_VERSION=$("$BUILD/plugin/roo-ingest" --version | awk '{print $2}')
[ "$VERSION" = "$BUILT_VERSION" ] || fail "package version $VERSION, binary says $BUILT_VERSION"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is $(field Architecture)"
field Description > "$WORK/description.txt"
[ "$(head -n 1 "$WORK/description.txt")" = "find what the Roo Code AI coding agent left on a disk image" ] ||
  fail "Description synopsis: $(head -n 1 "$WORK/description.txt")"
[ "$(wc -l < "$WORK/description.txt")" -ge 4 ] || fail "no extended Description"
if grep -q ';' "$WORK/description.txt"; then fail "a CMake list separator in the Description"; fi
DEPENDS=$(field Depends)
# dpkg-shlibdeps: each library the binary links gets its package (and tzdata, named in cpack.cmake)
for lib in libc6 libstdc++6 libtsk19 libewf2 libsqlite3-0 libssl3 libdate-tz3 tzdata; do
  echo "$DEPENDS" | tr ',' '\n' | grep -q "^ *$lib\b" || fail "Depends lacks $lib: $DEPENDS"
done

echo "== dpkg-deb -c"
dpkg-deb -c "$DEB" | awk '{print $6}' > "$WORK/contents.txt"
cat "$WORK/contents.txt"
for path in ./usr/bin/roo-ingest ./usr/share/man/man1/roo-ingest.1.gz \
            ./usr/share/roo-ingest/autopsy/roo_ingest_module.py ./usr/share/roo-ingest/autopsy/roo_mapping.py \
            ./usr/share/doc/roo-ingest/README.md ./usr/share/doc/roo-ingest/row-contract.md \
            ./usr/share/doc/roo-ingest/row.schema.json ./usr/share/doc/roo-ingest/autopsy.md \
            ./usr/bin/roo-collectors ./usr/share/roo-ingest/collectors/RooCode.tkape \
            ./usr/share/roo-ingest/collectors/Generic.Forensic.RooCode.yaml \
            ./usr/share/roo-ingest/collectors/roo_code.yaml ./usr/share/doc/roo-ingest/collectors.md; do
  grep -qx "$path" "$WORK/contents.txt" || fail "$path is not in the package"
done
if grep -v -e '^\./usr/' -e '^\./$' "$WORK/contents.txt" | grep -q .; then fail "files outside /usr in the package"; fi

echo "== dpkg -i"
INSTALLED=1
dpkg -i "$DEB" || fail "dpkg -i (are the Depends installed? packaging/install-build-deps.sh)"
dpkg-query -W -f '${Status}\n' roo-ingest | grep -q 'install ok installed' || fail "not installed after dpkg -i"
[ -x /usr/bin/roo-ingest ] || fail "/usr/bin/roo-ingest missing after dpkg -i"
cmp -s "$REPO/plugin/autopsy/roo_mapping.py" /usr/share/roo-ingest/autopsy/roo_mapping.py ||
  fail "installed Autopsy module differs from plugin/autopsy"
/usr/bin/roo-collectors kape | cmp -s - /usr/share/roo-ingest/collectors/RooCode.tkape ||
  fail "installed roo-collectors does not print the installed KAPE target"
python3 -c 'import ast, sys; [ast.parse(open(f, encoding="utf-8").read(), f) for f in sys.argv[1:]]' \
  /usr/share/roo-ingest/autopsy/roo_ingest_module.py /usr/share/roo-ingest/autopsy/roo_mapping.py ||
  fail "installed Autopsy module does not parse"

echo "== the installed /usr/bin/roo-ingest on demo.E01"
/usr/bin/roo-ingest --version | grep -q "^roo-ingest $VERSION" || fail "--version of the installed binary"
OUT="$WORK/out"
( cd "$WORK" && env -i PATH=/usr/bin:/bin roo-ingest --quiet "$DEMO" -o "$OUT" ) ||
  fail "installed roo-ingest exited $? on demo.E01"
[ -s "$OUT/rows.jsonl" ] || fail "rows.jsonl is empty"
[ -s "$OUT/report.json" ] || fail "report.json is empty"
ROWS=$(wc -l < "$OUT/rows.jsonl")
head -n 1 "$OUT/rows.jsonl" | grep -q '"schema":"roo-ingest/row/1"' || fail "first row has no schema"
"$BUILD/plugin/roo-ingest" --quiet "$DEMO" -o "$WORK/out-build"
cmp -s "$OUT/rows.jsonl" "$WORK/out-build/rows.jsonl" || fail "the installed binary's rows differ from the build's"
echo "installed roo-ingest wrote $ROWS rows, the same as the build's"

echo "== man page"
PAGE=/usr/share/man/man1/roo-ingest.1.gz
[ -s "$PAGE" ] || fail "$PAGE missing after dpkg -i (dpkg path-exclude for /usr/share/man?)"
if command -v man >/dev/null 2>&1; then
  # LC_ALL=C: plain ASCII hyphens in the rendered text
  LC_ALL=C MANWIDTH=80 MANPAGER=cat man -l "$PAGE" > "$WORK/man-l.txt" 2> "$WORK/man-l.err" || fail "man -l $PAGE"
  LC_ALL=C MANWIDTH=80 MANPAGER=cat man roo-ingest > "$WORK/man.txt" 2>/dev/null || fail "man roo-ingest finds no page"
  cmp -s "$WORK/man-l.txt" "$WORK/man.txt" || fail "man roo-ingest does not show the installed page"
  LC_ALL=C man --warnings -l "$PAGE" > /dev/null 2> "$WORK/man-warnings.txt" || true
  [ ! -s "$WORK/man-warnings.txt" ] || { cat "$WORK/man-warnings.txt" >&2; fail "groff warnings in the man page"; }
  RENDERED="$WORK/man.txt"
else
  echo "(man-db not installed: reading the page with zcat)"
  zcat "$PAGE" | sed -e 's/\\-/-/g' -e 's/^\.SH "*\([^"]*\)"*$/\1/' -e 's/^\.BR \([^ ]*\) (\([0-9]\))/\1(\2)/' \
    > "$WORK/man.txt"
  RENDERED="$WORK/man.txt"
fi
for section in NAME SYNOPSIS DESCRIPTION OPTIONS "OUTPUT FILES" "EXIT STATUS" EXAMPLES "SEE ALSO"; do
  grep -qx "$section" "$RENDERED" || fail "man page has no $section section"
done
for word in --format --tz --dir --native --force --quiet rows.jsonl roo.body timeline.jsonl l2t.csv rows.csv \
            roo.sqlite report.html report.json "fls(1)" "mactime(1)" "roo-ingest $VERSION"; do
  grep -qF -- "$word" "$RENDERED" || fail "man page does not mention $word"
done
head -n 3 "$RENDERED"

echo "== dpkg -r"
dpkg -r roo-ingest
INSTALLED=0
dpkg-query -W -f '${Status}\n' roo-ingest 2>/dev/null | grep -q 'ok installed' && fail "still installed after dpkg -r"
[ ! -e /usr/bin/roo-ingest ] || fail "/usr/bin/roo-ingest left behind by dpkg -r"
[ ! -e "$PAGE" ] || fail "$PAGE left behind by dpkg -r"
echo "PASS: package $(basename "$DEB") built, installed, run ($ROWS rows), its man page rendered, removed"
