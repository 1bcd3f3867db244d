#!/usr/bin/env bash
# A minimal musl CPython, x86-64 or aarch64, for running the musllinux wheels
# on a Debian x86-64 host (Debian packages musl and musl-gcc, but no Python
# linked against it).
#
#   bash scripts/musl_python.sh DIR [ARCH]      # ARCH: x86_64 (default) or aarch64
#
# Builds CPython from the source of Debian's default python3 (the upstream
# tarball Debian ships, checked against the SHA-256 its source index
# lists; Debian's own patches are not applied) against musl into
# DIR/prefix, with a static OpenSSL and zlib built the same way from
# Debian's openssl and zlib sources (shangmi's exceptions derive from ssl's;
# hypothesis imports zlib), and prints the interpreter's path as its only
# output line. The modules that need other libraries are left out: no
# ctypes, sqlite, lzma, bz2 or readline, which importing a wheel unpacked
# into a directory on PYTHONPATH and running pytest do not need.
#
# x86_64: compiled natively with Debian's musl-gcc (musl-tools).
# aarch64: cross-compiled with Debian's aarch64-linux-gnu-gcc and the specs
# file of Debian's arm64 musl-dev; musl, musl-dev and linux-libc-dev for
# arm64 are downloaded (apt-get download, checked against Debian's signed
# index) and unpacked into DIR/sysroot, not installed, and the interpreter
# is dynamically linked (it dlopens extension modules) against
# /lib/ld-musl-aarch64.so.1, so it runs as
#   qemu-aarch64 -L DIR/sysroot DIR/prefix/bin/python3.X
# (or through binfmt_misc with QEMU_LD_PREFIX=DIR/sysroot). The build
# Python the cross build needs is Debian's python3.X of the same version.
#
# Idempotent: an interpreter already in DIR/prefix that starts (under qemu
# for aarch64), reports musl on ARCH and has those modules is reused. Exits
# non-zero, with the reason on stderr, when it cannot build one.
#
# Needs: for x86_64 Debian's musl-tools (installed when missing), gcc and
# make; for aarch64 Debian's gcc-aarch64-linux-gnu, qemu-user (or
# qemu-user-static) and python3.X (installed when missing) and make. The
# sources and the arm64 packages come from deb.debian.org through a private
# apt source list in DIR/apt (the system's apt configuration is left as it
# is).
set -uo pipefail
dir=${1:?usage: musl_python.sh DIR [x86_64|aarch64]}
arch=${2:-x86_64}
case $arch in
  x86_64 | aarch64) ;;
  *) echo "musl_python: ARCH must be x86_64 or aarch64, not $arch" >&2; exit 1 ;;
esac
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
log=$dir/build.log
die() { echo "musl_python: $*" >&2; exit 1; }

# How the interpreter is started: directly on x86-64; under qemu-user with
# the unpacked arm64 musl as the root its loader is looked up in.
sysroot=$dir/sysroot
run=()
if [ "$arch" = aarch64 ]; then
  qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
  run=("${qemu:-qemu-aarch64}" -L "$sysroot")
fi

# interpreter: the path of DIR/prefix/bin/python3.X, if there is one.
interpreter() {
  local p
  for p in "$dir"/prefix/bin/python3.*; do
    [[ $p =~ /python3\.[0-9]+$ ]] && [ -x "$p" ] && { echo "$p"; return; }
  done
}
# usable PYTHON: 0 if PYTHON starts, its C library is musl on ARCH (CPython
# 3.11's configure puts the libc into the platform triplet) and it has the
# extension modules pytest, shangmi and the tests import.
usable() {
  [ -n "$1" ] && [ "$("${run[@]}" "$1" -c 'import sysconfig, binascii, math, select, _struct, _posixsubprocess, _random, _datetime, _json, _ssl, zlib
print(sysconfig.get_config_var("MULTIARCH"))' 2>/dev/null)" = "$arch-linux-musl" ]
}

py=$(interpreter)
if usable "$py"; then echo "$py"; exit 0; fi

[ "$(uname -m)" = x86_64 ] || die "the host is $(uname -m); this builds on an x86-64 host only"
# apt_install COMMAND PACKAGE: install Debian's PACKAGE when COMMAND is missing.
apt_install() {
  command -v "$1" >/dev/null && return
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 \
    || die "$1 is missing and Debian's $2 could not be installed"
}
command -v make >/dev/null || die "make is missing"

# Which python3.X Debian's python3 is.
pkg=$(apt-cache show python3 2>/dev/null | grep -m1 '^Depends:' | grep -o 'python3\.[0-9]*' | head -1)
[ -n "$pkg" ] || die "cannot tell which python3.X Debian's python3 package depends on"
tools=()
if [ "$arch" = x86_64 ]; then
  apt_install musl-gcc musl-tools
  cc=musl-gcc
else
  apt_install aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
  [ -n "${qemu:-}" ] || apt_install qemu-aarch64 qemu-user
  run[0]=$(command -v qemu-aarch64 || command -v qemu-aarch64-static)
  # The cross build runs a Python of the same version to freeze modules,
  # generate code and run setup.py: Debian's python3.X.
  build_python=/usr/bin/$pkg
  if [ ! -x "$build_python" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1 \
      || die "$build_python is missing and Debian's $pkg could not be installed"
  fi
  # -mno-outline-atomics: Debian's gcc calls libgcc's atomics helpers by
  # default, whose initialiser needs glibc's private __getauxval (musl has
  # only getauxval); OpenSSL then fails to link. Inline LSE-free atomics
  # work on every Armv8 core.
  cc="aarch64-linux-gnu-gcc -specs $sysroot/usr/lib/aarch64-linux-musl/musl-gcc.specs -mno-outline-atomics"
  tools=(AR=aarch64-linux-gnu-ar RANLIB=aarch64-linux-gnu-ranlib)
fi

# The URL and SHA-256 of the upstream tarballs from the deb-src index (and,
# for aarch64, the arm64 binary index).
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
# shellcheck disable=SC1091
suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || die "cannot read the Debian release name from /etc/os-release"
printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian-security %s-security main\n' \
  "$suite" "$suite" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
if [ "$arch" = aarch64 ]; then
  printf 'deb [arch=arm64] http://deb.debian.org/debian %s main\ndeb [arch=arm64] http://deb.debian.org/debian-security %s-security main\n' \
    "$suite" "$suite" >>"$apt_dir/sources.list"
  # This private apt sees only arm64 packages; it never installs any.
  apt_opts+=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o APT::Sandbox::User=root)
fi
apt-get "${apt_opts[@]}" update -qq >"$log" 2>&1 || die "apt-get update of the private Debian index failed (log $log)"
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

# The kernel's headers OpenSSL's secure heap needs (<linux/mman.h>), put
# after musl's: Debian's linux-libc-dev (libc-independent), the host's for
# x86-64, arm64's from DIR/sysroot for aarch64.
kernel=/usr/include asm=/usr/include/x86_64-linux-gnu/asm
if [ "$arch" = aarch64 ]; then
  # musl's arm64 loader, C library, headers and specs file, and arm64's
  # kernel headers, unpacked into DIR/sysroot; the specs file's absolute
  # paths are pointed there, and the linker searches the directory libc.so
  # is in first (musl-dev's /usr/lib has only the static libc.a, which the
  # linker would otherwise take: an interpreter with a static C library
  # cannot dlopen; with multiarch, /usr/lib/aarch64-linux-musl/libc.so would
  # be a link to it).
  rm -rf "$sysroot" "$apt_dir/debs"
  mkdir -p "$apt_dir/debs"
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download musl musl-dev linux-libc-dev) >>"$log" 2>&1 \
    || die "cannot download Debian's arm64 musl, musl-dev and linux-libc-dev (log $log)"
  for deb in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot" || die "cannot unpack $deb"; done
  specs=$sysroot/usr/lib/aarch64-linux-musl/musl-gcc.specs
  if [ ! -e "$specs" ] || [ ! -e "$sysroot/lib/ld-musl-aarch64.so.1" ]; then
    die "Debian's arm64 musl-dev has no musl-gcc.specs or its musl no ld-musl-aarch64.so.1"
  fi
  sed -i -e "s| /usr/include/aarch64-linux-musl| $sysroot/usr/include/aarch64-linux-musl|g" \
    -e "s|/usr/lib/aarch64-linux-musl/|$sysroot/usr/lib/aarch64-linux-musl/|g" \
    -e "s|^-L/usr/lib/aarch64-linux-musl |-L$sysroot/lib/aarch64-linux-musl -L$sysroot/usr/lib/aarch64-linux-musl |" "$specs"
  kernel=$sysroot/usr/include asm=$sysroot/usr/include/aarch64-linux-gnu/asm
elif [ ! -e /usr/include/linux/mman.h ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-libc-dev >/dev/null 2>&1 \
    || die "the kernel headers are missing and Debian's linux-libc-dev could not be installed"
fi
mkdir -p "$dir/kernel-include"
ln -sfn "$kernel/linux" "$dir/kernel-include/linux"
ln -sfn "$kernel/asm-generic" "$dir/kernel-include/asm-generic"
ln -sfn "$asm" "$dir/kernel-include/asm"

# The compiler is gcc with musl's specs file: asked for its multiarch
# (configure asks `--print-multiarch`, setup.py `-print-multiarch`) it
# answers glibc's (x86_64-linux-gnu), which configure rejects against the
# triplet it derives from the compiler (x86_64-linux-musl); and setup.py (or
# its dpkg-architecture fallback) puts glibc's multiarch and /usr/local
# header and library directories on every extension's command line, where
# glibc's headers break the build; cross-building, it also adds the cross
# gcc's LIBRARY_PATH (/usr/aarch64-linux-gnu/lib, /lib/aarch64-linux-gnu,
# /usr/lib, /lib), where -lc would find glibc's libc.so ahead of musl's.
# The wrapper answers nothing and drops those.
mkdir -p "$dir/bin"
cat >"$dir/bin/musl-cc" <<EOF
#!/bin/sh
for a do
  shift
  case \$a in
    -print-multiarch | --print-multiarch) exit 0 ;;
    -I/usr/include/*-linux-gnu | -L/usr/lib/*-linux-gnu | -I/usr/local/include | -L/usr/local/lib) continue ;;
    -L/usr/lib | -L/lib | -L/lib/*-linux-gnu | -L/usr/*-linux-gnu/lib | -I/usr/*-linux-gnu/include) continue ;;
  esac
  set -- "\$@" "\$a"
done
exec $cc "\$@"
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
    && env "${tools[@]}" CC="$dir/bin/musl-cc" CFLAGS="-O2 -fPIC" ./configure --static --prefix="$deps" \
    && make -j"$(nproc)" libz.a \
    && make install
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building zlib for $arch musl failed (log $log)"; }

# OpenSSL, static, for the ssl module (shangmi's exceptions derive from
# ssl's, so `import shangmi` needs it); libraries only, no engines or
# loadable modules.
unpack openssl
(
  cd "$src" \
    && env "${tools[@]}" CC="$dir/bin/musl-cc" ./Configure "linux-$arch" --prefix="$deps" --libdir=lib --openssldir="$deps/ssl" \
      no-shared no-tests no-module no-engine no-dso no-afalgeng no-async no-comp "-idirafter$dir/kernel-include" \
    && make -j"$(nproc)" build_libs \
    && make install_dev
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building OpenSSL for $arch musl failed (log $log)"; }

# PKG_CONFIG: the host's pkg-config reports glibc's libffi, liblzma, ... as
# present, and their modules would then be built against headers the musl
# compiler cannot see; without it configure asks the musl compiler, which
# finds zlib through CPPFLAGS/LDFLAGS. A cross build cannot run its tests'
# programs, so configure is told what they find on musl (the answers the
# native x86-64 build's configure gets; /dev/ptmx is what musl's openpty
# uses).
cross=()
if [ "$arch" = aarch64 ]; then
  cross=(--build=x86_64-pc-linux-gnu --host=aarch64-linux-musl --with-build-python="$build_python"
    ac_cv_file__dev_ptmx=yes ac_cv_file__dev_ptc=no ac_cv_buggy_getaddrinfo=no
    READELF=aarch64-linux-gnu-readelf PYTHON_FOR_REGEN="$build_python")
fi
unpack "$pkg"
# CPython 3.11.2's configure turns the triplet's linux-gnu into linux-musl
# when the *build* system is musl, so a cross build from glibc would call
# itself aarch64-linux-gnu (in MULTIARCH, SOABI and every extension
# module's name); it is asked about the host instead.
if [ "$arch" = aarch64 ]; then
  # shellcheck disable=SC2016
  if ! grep -q 'case "$build_os" in' "$src/configure"; then
    die "$pkg's configure does not derive the libc from \$build_os as expected; check its platform triplet"
  fi
  # shellcheck disable=SC2016
  sed -i 's/case "$build_os" in/case "$host_os" in/' "$src/configure"
fi
(
  cd "$src" \
    && env "${tools[@]}" PKG_CONFIG=/bin/false CC="$dir/bin/musl-cc" CPPFLAGS="-I$deps/include" LDFLAGS="-L$deps/lib" \
      ./configure --prefix="$dir/prefix" --without-ensurepip --disable-test-modules --with-openssl="$deps" "${cross[@]}" \
    && make -j"$(nproc)" \
    && make install
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building $pkg for $arch musl failed (log $log)"; }
py=$(interpreter)
usable "$py" || die "the interpreter built in $dir/prefix does not start, is not linked against $arch musl or lacks a module pytest needs"
echo "musl_python: $pkg $("${run[@]}" "$py" -c 'import sys; print(sys.version.split()[0])') built for $arch musl in $((SECONDS - start)) s" >&2
echo "$py"
