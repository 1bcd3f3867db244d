#!/usr/bin/env bash
# A minimal x86-64 musl CPython, for running the musllinux wheel on a Debian
# host (Debian packages musl and musl-gcc, but no Python linked against it).
#
#   bash scripts/musl_python.sh DIR
#
# Builds CPython from the source of Debian's default python3 (the upstream
# tarball Debian ships, checked against the SHA-256 its source index
# lists; Debian's own patches are not applied) with musl-gcc into DIR/prefix,
# with a static OpenSSL and zlib built the same way from Debian's openssl
# and zlib sources (shangmi's exceptions derive from ssl's; hypothesis
# imports zlib), and prints the interpreter's path as its only output line.
# The modules that need other libraries are left out: no ctypes, sqlite,
# lzma, bz2 or readline, which importing a wheel unpacked into a directory
# on PYTHONPATH and running pytest do not need. Idempotent: an interpreter already in
# DIR/prefix that starts, reports musl and has those modules is reused.
# Exits non-zero, with the reason on stderr, when it cannot build one.
#
# Needs: Debian's musl-tools (installed when missing), gcc and make; the
# source comes from deb.debian.org through a private apt source list in
# DIR/apt (the system's apt configuration is left as it is).
set -uo pipefail
dir=${1:?usage: musl_python.sh DIR}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
log=$dir/build.log
die() { echo "musl_python: $*" >&2; exit 1; }

# interpreter: the path of DIR/prefix/bin/python3.X, if there is one.
interpreter() {
  local p
  for p in "$dir"/prefix/bin/python3.*; do
    [[ $p =~ /python3\.[0-9]+$ ]] && [ -x "$p" ] && { echo "$p"; return; }
  done
}
# usable PYTHON: 0 if PYTHON starts, its C library is musl (CPython 3.11's
# configure puts the libc into the platform triplet) and it has the
# extension modules pytest, shangmi and the tests import.
usable() {
  [ -n "$1" ] && [ "$("$1" -c 'import sysconfig, binascii, math, select, _struct, _posixsubprocess, _random, _datetime, _json, _ssl, zlib
print(sysconfig.get_config_var("MULTIARCH"))' 2>/dev/null)" = x86_64-linux-musl ]
}

py=$(interpreter)
if usable "$py"; then echo "$py"; exit 0; fi

[ "$(uname -m)" = x86_64 ] || die "the host is $(uname -m); this builds an x86-64 musl interpreter only"
if ! command -v musl-gcc >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null 2>&1 \
    || die "musl-gcc is missing and Debian's musl-tools could not be installed"
fi
command -v make >/dev/null || die "make is missing"

# Which python3.X Debian's python3 is, and the URL and SHA-256 of its
# upstream tarball from the deb-src index.
pkg=$(apt-cache show python3 2>/dev/null | grep -m1 '^Depends:' | grep -o 'python3\.[0-9]*' | head -1)
[ -n "$pkg" ] || die "cannot tell which python3.X Debian's python3 package depends on"
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
# shellcheck disable=SC1091
suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || die "cannot read the Debian release name from /etc/os-release"
printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian-security %s-security main\n' \
  "$suite" "$suite" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
apt-get "${apt_opts[@]}" update -qq >"$log" 2>&1 || die "apt-get update of the deb-src index failed (log $log)"
# unpack PACKAGE: download the upstream tarball of Debian's source PACKAGE
# (checked against the SHA-256 of the source index), unpack it fresh into
# DIR, and leave the source tree's path in $src and the tarball's name in
# $file.
src='' file=''
unpack() {
  local url sum
  # A line: 'URL' FILE SIZE SHA256:HEX (the tarball, not its .asc).
  read -r url file _ sum < <(apt-get "${apt_opts[@]}" source --print-uris "$1" 2>>"$log" \
    | grep -E "\.orig\.tar\.(gz|xz|bz2)' " | head -1)
  [ -n "${url:-}" ] || die "no upstream tarball for $1 in Debian's source index (log $log)"
  url=${url//\'/}
  sum=${sum#SHA256:}
  if [ ! -e "$dir/$file" ] || ! echo "$sum  $dir/$file" | sha256sum -c --quiet 2>/dev/null; then
    # A security update of an unchanged upstream version lists the tarball
    # under debian-security, but the archive may keep it only in the main
    # pool; the checksum decides either way.
    curl -fsS -o "$dir/$file.part" "$url" 2>/dev/null \
      || curl -fsS -o "$dir/$file.part" "${url/debian-security\/pool\/updates\//debian/pool/}" \
      || die "cannot download $url"
    echo "$sum  $dir/$file.part" | sha256sum -c --quiet || die "$file does not have the SHA-256 Debian lists"
    mv "$dir/$file.part" "$dir/$file"
  fi
  src=$dir/$(tar tf "$dir/$file" | head -1 | cut -d/ -f1)
  rm -rf "$src"
  tar xf "$dir/$file" -C "$dir" || die "cannot unpack $file"
}

# musl-gcc is gcc with a specs file: asked for its multiarch (configure
# asks `--print-multiarch`, setup.py `-print-multiarch`) it answers glibc's
# x86_64-linux-gnu, which configure rejects against the triplet it derives
# from the compiler (x86_64-linux-musl); and setup.py (or its
# dpkg-architecture fallback) puts glibc's multiarch and /usr/local header
# and library directories on every extension's command line, where glibc's
# headers break the build. The wrapper answers nothing and drops those.
mkdir -p "$dir/bin"
cat >"$dir/bin/musl-cc" <<'EOF'
#!/bin/sh
for a do
  shift
  case $a in
    -print-multiarch | --print-multiarch) exit 0 ;;
    -I/usr/include/x86_64-linux-gnu | -L/usr/lib/x86_64-linux-gnu | -I/usr/local/include | -L/usr/local/lib) continue ;;
  esac
  set -- "$@" "$a"
done
exec musl-gcc "$@"
EOF
chmod +x "$dir/bin/musl-cc"
start=$SECONDS
rm -rf "$dir/prefix"

# The libraries go into DIR/deps, static (compiled as position-independent
# code: they end up inside the interpreter's shared extension modules).
deps=$dir/deps
rm -rf "$deps"

# zlib, for the zlib module (hypothesis imports it).
unpack zlib
(
  cd "$src" \
    && CC=$dir/bin/musl-cc CFLAGS="-O2 -fPIC" ./configure --static --prefix="$deps" \
    && make -j"$(nproc)" libz.a \
    && make install
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building zlib with musl-gcc failed (log $log)"; }

# OpenSSL, static, for the ssl module (shangmi's exceptions derive from
# ssl's, so `import shangmi` needs it); libraries only, no engines or
# loadable modules. Its secure heap includes <linux/mman.h>: the kernel's
# headers (Debian's linux-libc-dev, libc-independent) come after musl's.
if [ ! -e /usr/include/linux/mman.h ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-libc-dev >/dev/null 2>&1 \
    || die "the kernel headers are missing and Debian's linux-libc-dev could not be installed"
fi
mkdir -p "$dir/kernel-include"
ln -sfn /usr/include/linux "$dir/kernel-include/linux"
ln -sfn /usr/include/asm-generic "$dir/kernel-include/asm-generic"
ln -sfn /usr/include/x86_64-linux-gnu/asm "$dir/kernel-include/asm"
unpack openssl
(
  cd "$src" \
    && CC=$dir/bin/musl-cc ./Configure linux-x86_64 --prefix="$deps" --libdir=lib --openssldir="$deps/ssl" \
      no-shared no-tests no-module no-engine no-dso no-afalgeng no-async no-comp "-idirafter$dir/kernel-include" \
    && make -j"$(nproc)" build_libs \
    && make install_dev
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building OpenSSL with musl-gcc failed (log $log)"; }

# PKG_CONFIG: the host's pkg-config reports glibc's libffi, liblzma, ... as
# present, and their modules would then be built against headers musl-gcc
# cannot see; without it configure asks the musl compiler, which finds
# zlib through CPPFLAGS/LDFLAGS.
unpack "$pkg"
(
  cd "$src" \
    && PKG_CONFIG=/bin/false CC=$dir/bin/musl-cc CPPFLAGS="-I$deps/include" LDFLAGS="-L$deps/lib" \
      ./configure --prefix="$dir/prefix" --without-ensurepip --disable-test-modules --with-openssl="$deps" \
    && make -j"$(nproc)" \
    && make install
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building $pkg with musl-gcc failed (log $log)"; }
py=$(interpreter)
usable "$py" || die "the interpreter built in $dir/prefix does not start, is not linked against musl or lacks a module pytest needs"
echo "musl_python: $pkg $("$py" -c 'import sys; print(sys.version.split()[0])') built with musl-gcc in $((SECONDS - start)) s" >&2
echo "$py"
