#!/bin/bash
# Builds the Debian package from build/ (cpack -G DEB), lints it, installs it into this machine with
# apt-get, checks the installed programs from outside the source tree, then purges it and checks that
# none of its files is left. Needs root, a build of every target in build/ and lintian,
# desktop-file-utils and appstream (scripts/install-deps.sh). Run by scripts/test-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS
step() { echo "test-package: $1 ($((SECONDS - start)) s)"; }
fail() {
  echo "test-package: FAILED: $1" >&2
  exit 1
}
if dpkg -s marvel-studio >/dev/null 2>&1; then
  fail "marvel-studio is already installed on this machine; apt-get purge -y marvel-studio first"
fi

# The package, with the generated files out of the build tree's way.
out=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
(cd build && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; fail "cpack"; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' build/CMakeCache.txt)
deb=$out/marvel-studio_${version}_amd64.deb
[ -f "$deb" ] || fail "cpack wrote no $(basename "$deb") (it wrote: $(ls "$out"))"
step "built $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
depends=$(dpkg-deb -f "$deb" Depends)
echo "test-package: Depends: $depends"
if grep -q -- '-dev\b' <<<"$depends"; then fail "the package depends on -dev packages"; fi

# lintian: no errors (the warnings left are in doc/packaging.md, with why).
lintian --tag-display-limit 0 "$deb" >"$out/lintian.log" 2>&1 || true
cat "$out/lintian.log"
if grep -q '^E:' "$out/lintian.log"; then fail "lintian reports errors"; fi
step "lintian: no errors"

# Install as a user would, then check from a directory outside the source tree.
files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$')
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$out/apt.log" 2>&1 \
  || { cat "$out/apt.log"; fail "apt-get install"; }
step "installed"
cd "$work"
[ "$(command -v marvel)" = /usr/bin/marvel ] || fail "marvel is not /usr/bin/marvel on the PATH"
marvel --version | grep -qE "^marvel $version \(commit [0-9a-z.-]+\)$" || fail "marvel --version: $(marvel --version)"
marvel-studio --version 2>/dev/null | grep -qE "^Marvel Studio $version \(commit " || fail "marvel-studio --version"
samples=/usr/share/marvel-studio/samples
marvel search --model vgg16 --hw $samples/accelerators/P2_edge.json --no-refine >search.txt \
  || fail "marvel search --model vgg16"
# The same layers and totals as the build tree's marvel on the source tree's samples (deterministic).
want=$("$root/build/app/marvel" search --model vgg16 --hw "$root/samples/accelerators/P2_edge.json" --no-refine \
  | grep -E '^(== |total runtime)')
got=$(grep -E '^(== |total runtime)' search.txt)
[ "$got" = "$want" ] || fail "installed marvel search: $got; the build tree's: $want"
grep -q "^== CONV5_1 (x3)" search.txt || fail "marvel search printed no CONV5_1 layer"
# A preset by its name and a technology table by its name: the installed samples, from this folder.
marvel search --op $samples/operators/gemm.loop --hw P2 --technology 45nm --no-refine >/dev/null \
  || fail "marvel search --hw P2 --technology 45nm (names of installed samples)"
QT_QPA_PLATFORM=offscreen marvel-studio --screenshot "$work/shot.png" $samples/projects/conv1d_classroom.json \
  2>/dev/null || fail "marvel-studio --screenshot"
[ "$(head -c 8 shot.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is no PNG"
man -w marvel >/dev/null 2>&1 || [ -f /usr/share/man/man1/marvel.1.gz ] || fail "no man page marvel(1)"
[ -f /usr/share/bash-completion/completions/marvel ] || fail "no bash completion"
desktop-file-validate /usr/share/applications/org.marvelstudio.MarvelStudio.desktop || fail "desktop file"
appstreamcli validate --no-net /usr/share/metainfo/org.marvelstudio.MarvelStudio.metainfo.xml >/dev/null \
  || fail "appstreamcli validate"
step "installed programs checked"

DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq marvel-studio >"$out/apt.log" 2>&1 \
  || { cat "$out/apt.log"; fail "apt-get purge"; }
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done || true)
[ -z "$left" ] || fail "files left after purge: $left"
[ ! -d $samples ] || fail "$samples left after purge"
cd "$root"
step "purged, nothing left: package phase done"
