#!/usr/bin/env bash
# The wheels CI does not build: manylinux2014 aarch64 and musllinux_1_2
# x86-64 and aarch64, all abi3, cross-built with maturin's zig linker (as
# .ci/run builds the x86-64 manylinux2014 wheel) and checked with
# `auditwheel show` (the musl wheels after their C library's soname is
# renamed to the one auditwheel expects, see musl_soname); the aarch64 glibc
# wheel installed into an arm64 Debian userland (debootstrap, run under
# qemu-user-static through binfmt_misc) and the Python vector tests run
# there; each musl wheel imported and its vector tests run by a musl
# CPython built here from Debian's source (scripts/musl_python.sh): the
# x86-64 one natively, the aarch64 one cross-built and run under
# `qemu-aarch64 -cpu max` (subprocesses through binfmt_misc); and `cargo
# check` of the core and the binding for Windows (GNU) and both macOS
# targets, which cannot be built or run here, so the code stays portable to
# them.
#
# Not run by CI (the emulated tests alone take far longer than its budget).
# Idempotent: a second run reuses the toolchains, the userland, the musl
# interpreters and cargo's incremental state. Each step prints one result
# line ("wheels: STEP: ..."); a step whose prerequisites cannot be had says
# SKIPPED and why, and the others still run; the exit status is non-zero if
# any step FAILED.
#
# Needs (installed when missing):
#   Debian: debootstrap, qemu-user-static (binfmt_misc must be mountable to
#           run the userland and musl-aarch64-run; the script registers
#           qemu-aarch64 only if it is not registered, and unregisters it on
#           exit), patchelf; for musl-run musl-tools, gcc, make and the
#           python3 source package; for musl-aarch64-run
#           gcc-aarch64-linux-gnu, make, python3.X, the same sources and
#           Debian's arm64 musl, musl-dev and linux-libc-dev (downloaded and
#           unpacked by musl_python.sh, not installed);
#   PyPI (into .venv of this checkout): maturin, ziglang, auditwheel, wheel,
#           and pytest, hypothesis, cryptography and gmssl for the userland
#           (fetched by pip as arm64 wheels into the userland's tree), pytest
#           and hypothesis for musl-run and musl-aarch64-run;
#   rustup: the standard libraries of the targets below.
# Output: target/wheels/dist/*.whl. Set WHEELS_STEPS to a space-separated
# subset of "gnu-aarch64 musl-x86_64 musl-run userland musl-aarch64
# musl-aarch64-run check" to run only those steps; MUSL_PYTHON_DIR (default
# target/wheels/musl-python) and MUSL_AARCH64_PYTHON_DIR (default
# target/wheels/musl-python-aarch64) are where musl-run and
# musl-aarch64-run build their interpreters.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
export CARGO_TARGET_DIR="$root/target/wheels"
dist=$CARGO_TARGET_DIR/dist
userland=$CARGO_TARGET_DIR/arm64-root
steps=${WHEELS_STEPS:-gnu-aarch64 musl-x86_64 musl-run userland musl-aarch64 musl-aarch64-run check}
failed=0
mkdir -p "$dist" "$CARGO_TARGET_DIR/bin"

say() { echo "wheels: $*"; }
fail() { say "$*"; failed=1; }
want() { [[ " $steps " == *" $1 "* ]]; }

# --- tools -----------------------------------------------------------------
apt_missing=()
command -v debootstrap >/dev/null || [ -x /usr/sbin/debootstrap ] || apt_missing+=(debootstrap)
[ -x /usr/bin/qemu-aarch64-static ] || apt_missing+=(qemu-user-static)
command -v patchelf >/dev/null || apt_missing+=(patchelf)
if [ ${#apt_missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${apt_missing[@]}" >/dev/null \
    || say "tools: could not install ${apt_missing[*]} from Debian"
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q 'maturin>=1.7,<2' ziglang auditwheel wheel || { say "tools: FAILED (pip)"; exit 1; }
# maturin runs `zig`; ziglang ships it as a module of the Python that installed it.
printf '#!/bin/sh\nexec %s -m ziglang "$@"\n' "$root/.venv/bin/python" >"$CARGO_TARGET_DIR/bin/zig"
chmod +x "$CARGO_TARGET_DIR/bin/zig"
export PATH="$CARGO_TARGET_DIR/bin:$root/.venv/bin:$PATH"
say "tools: $(maturin --version), zig $(zig version), $(auditwheel --version 2>&1 | head -1 | cut -d" " -f1-2)"

# target TRIPLE: 0 if rustup has (or can install) the target's standard library.
target() {
  rustup target list --installed | grep -qx "$1" || timeout 300 rustup target add "$1" >/dev/null 2>&1
}

# musl_soname WHEEL ARCH: rename the C library the wheel's extension needs
# from `libc.so` to `libc.musl-ARCH.so.1`, in place. zig links musl by its
# upstream soname, `libc.so`; auditwheel's musllinux policy allows only
# Alpine's name, `libc.musl-ARCH.so.1`, the one every extension built on
# Alpine (or in the musllinux build images) records. musl's loader maps any
# needed `libc.*` to itself, so the rename changes nothing at run time (the
# musl-run step imports the renamed wheel). `wheel pack` writes RECORD's
# hashes and sizes anew.
musl_soname() {
  local whl=$1 arch=$2 tmp so renamed=0
  tmp=$(mktemp -d)
  if ! python -m wheel unpack -d "$tmp" "$whl" >/dev/null; then rm -rf "$tmp"; return 1; fi
  while IFS= read -r so; do
    patchelf --print-needed "$so" | grep -qx libc.so || continue
    patchelf --replace-needed libc.so "libc.musl-$arch.so.1" "$so" || { rm -rf "$tmp"; return 1; }
    say "  $(basename "$so"): needed libc.so renamed to $(patchelf --print-needed "$so" | paste -sd' ')"
    renamed=1
  done < <(find "$tmp" -name '*.so')
  if [ "$renamed" = 1 ]; then
    mkdir "$tmp/out"
    # The re-packed wheel must keep its name (the tags come from WHEEL).
    if ! python -m wheel pack -d "$tmp/out" "$tmp"/shangmi-* >/dev/null \
        || ! mv "$tmp/out/$(basename "$whl")" "$whl"; then
      rm -rf "$tmp"; return 1
    fi
  fi
  rm -rf "$tmp"
}

# wheel LABEL TRIPLE POLICY TAG: build one stripped abi3 wheel, audit it,
# check its platform tag. Leaves its path in $built.
built=
wheel() {
  local label=$1 triple=$2 policy=$3 tag=$4 start=$SECONDS log
  built=
  if ! target "$triple"; then say "$label: SKIPPED (rustup cannot install $triple)"; return; fi
  rm -f "$dist"/shangmi-*"$tag"*.whl
  log=$CARGO_TARGET_DIR/$label.log
  # Builds must not overlap in one target directory: maturin picks the
  # uplifted library, which a concurrent build for another triple has been
  # seen to leave stale. Removing it makes cargo copy it again.
  rm -f "$CARGO_TARGET_DIR/$triple/release/lib_native.so"
  if ! maturin build --release --strip --zig --target "$triple" --compatibility "$policy" \
      -o "$dist" >"$log" 2>&1; then
    tail -30 "$log"; fail "$label: FAILED (maturin build, log $log)"; return
  fi
  built=$(ls "$dist"/shangmi-*-abi3-*"$tag"*.whl 2>/dev/null | head -1)
  if [ -z "$built" ]; then fail "$label: FAILED (no abi3 $tag wheel in $dist)"; return; fi
  # The extension's ELF machine must be the target's (0xb7 aarch64, 0x3e x86-64).
  local machine
  machine=$(python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
so = [n for n in z.namelist() if n.endswith(".so")][0]
print({0xB7: "aarch64", 0x3E: "x86_64"}.get(int.from_bytes(z.read(so)[18:20], "little"), "other"))' "$built")
  if [ "$machine" != "${triple%%-*}" ]; then fail "$label: FAILED (the wheel's extension is $machine code)"; return; fi
  if [ "$policy" = musllinux_1_2 ] && ! musl_soname "$built" "${triple%%-*}"; then
    fail "$label: FAILED (renaming the C library's soname in $(basename "$built"))"; return
  fi
  local verdict flat
  verdict=$(auditwheel show "$built" 2>&1)
  echo "$verdict" | grep -v -E '^\s*$|^WARNING' | sed 's/^/  /'
  # auditwheel wraps its sentences at a width that depends on the name.
  flat=$(echo "$verdict" | tr '\n' ' ' | tr -s ' ')
  if ! echo "$flat" | grep -q "consistent with the following platform tag: \"$policy" \
      || ! echo "$flat" | grep -q "requires no external shared libraries"; then
    local objection
    objection=$(echo "$verdict" | sed -n '/will need to be eliminated/,$p' | tail -n +2 | grep -v '^\s*$' | tr '\n' ' ')
    fail "$label: FAILED ($(basename "$built") $(du -k "$built" | cut -f1) KiB: auditwheel does not find it $policy; it objects to: ${objection:-?})"
    return
  fi
  say "$label: $(basename "$built") $(du -k "$built" | cut -f1) KiB, auditwheel: $policy, $((SECONDS - start)) s"
}

# --- 1. manylinux2014 aarch64 ----------------------------------------------
gnu_wheel=
if want gnu-aarch64; then
  wheel gnu-aarch64 aarch64-unknown-linux-gnu manylinux_2_17 manylinux_2_17_aarch64
  gnu_wheel=$built
fi

# --- 2. musllinux_1_2 x86-64 -----------------------------------------------
if want musl-x86_64; then
  wheel musl-x86_64 x86_64-unknown-linux-musl musllinux_1_2 musllinux_1_2_x86_64
fi

# --- binfmt_misc for aarch64 executables ------------------------------------
# The emulated tests start subprocesses (sys.executable with a CPU mask), so
# `qemu-aarch64 -L` on the first interpreter alone is not enough: arm64
# executables must run through qemu by themselves. binfmt_aarch64 mounts
# binfmt_misc if needed and registers qemu-aarch64-static (fix-binary flag,
# so a chroot needs no copy of qemu) unless qemu-aarch64 is registered;
# cleanup undoes only what this run did. On failure it returns 1 with the
# reason in $why.
registered_here=0
mounted=()
why=
cleanup() {
  local m
  # Unregister before unmounting binfmt_misc (registrations outlive the mount).
  if [ "$registered_here" = 1 ] && [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    echo -1 >/proc/sys/fs/binfmt_misc/qemu-aarch64
  fi
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
}
trap cleanup EXIT
binfmt_aarch64() {
  [ -x /usr/bin/qemu-aarch64-static ] || { why="no /usr/bin/qemu-aarch64-static (Debian's qemu-user-static)"; return 1; }
  if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
      || { why="binfmt_misc cannot be mounted"; return 1; }
    mounted+=(/proc/sys/fs/binfmt_misc)
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    local magic='\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
    local mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
    echo ":qemu-aarch64:M::$magic:$mask:/usr/bin/qemu-aarch64-static:F" >/proc/sys/fs/binfmt_misc/register \
      || { why="cannot register qemu-aarch64 with binfmt_misc"; return 1; }
    registered_here=1
  fi
}

# --- 3. the x86-64 musl wheel run by a musl CPython --------------------------
# Debian packages musl but no Python linked against it, so
# scripts/musl_python.sh builds one (CPython from Debian's python3 source,
# compiled against musl, with static OpenSSL and zlib, without ctypes).
# The wheel and the pure-Python test tools are unpacked by the host's pip
# into a directory on PYTHONPATH (the musl interpreter has no pip), and the
# vector suites run with nothing from the host's Python on the path.
#
# musl_run ARCH: that, for the musllinux ARCH wheel (step musl-run for
# x86_64; musl-aarch64-run for aarch64, where the interpreter is
# cross-built and runs under `qemu-aarch64 -cpu max`, its subprocesses
# through binfmt_misc with the same CPU and loader root).
musl_run() {
  local arch=$1 label=musl-run start=$SECONDS whl py err pydir=${MUSL_PYTHON_DIR:-$CARGO_TARGET_DIR/musl-python}
  local run=() qenv=() how="built against musl"
  if [ "$arch" = aarch64 ]; then
    label=musl-aarch64-run
    pydir=${MUSL_AARCH64_PYTHON_DIR:-$CARGO_TARGET_DIR/musl-python-aarch64}
  fi
  whl=$(ls "$dist"/shangmi-*-abi3-*musllinux_1_2_"$arch"*.whl 2>/dev/null | head -1)
  if [ -z "$whl" ]; then say "$label: SKIPPED (no musllinux $arch wheel; the musl-$arch step builds it)"; return; fi
  if [ "$arch" = aarch64 ]; then
    if ! binfmt_aarch64; then say "$label: SKIPPED ($why)"; return; fi
  fi
  err=$CARGO_TARGET_DIR/$label-python.err
  if ! py=$(nice -n 10 bash scripts/musl_python.sh "$pydir" "$arch" 2>"$err") || [ -z "$py" ]; then
    say "$label: SKIPPED (no $arch musl CPython could be built: $(tail -1 "$err"))"; return
  fi
  if [ "$arch" = aarch64 ]; then
    # -cpu max has every feature the aarch64 backends use (SM3, SM4, AES,
    # PMULL); QEMU_CPU and QEMU_LD_PREFIX give the subprocesses the same.
    run=(qemu-aarch64-static -cpu max -L "$pydir/sysroot")
    qenv=(QEMU_CPU=max QEMU_LD_PREFIX="$pydir/sysroot")
    how="cross-built against musl, qemu-user -cpu max"
  fi
  local site=$CARGO_TARGET_DIR/$label-site work=$CARGO_TARGET_DIR/$label-tests
  rm -rf "$site" "$work"
  mkdir -p "$work"
  if ! .venv/bin/pip install -q --target "$site" --platform "musllinux_1_2_$arch" --python-version 3.11 \
      --implementation cp --only-binary=:all: "$whl" pytest hypothesis; then
    fail "$label: FAILED (pip install for the musl interpreter)"; return
  fi
  cp -r tests "$work/"
  # The vector, Wycheproof and differential suites (those of the userland
  # step without the interop files; the peer comparisons inside them skip).
  # Left out: two tests that need pyca/cryptography (its musllinux wheel
  # crashes while loading in the x86-64 interpreter, 2026-12-07) and the
  # libgcrypt bench loader's test, which needs ctypes (the interpreter has
  # no libffi).
  local files=() f
  for f in tests/test_sm[2349]*.py tests/test_zuc*.py tests/test_cpu.py; do
    [[ $f == *cli* ]] || files+=("$f")
  done
  local deselect=(
    --deselect tests/test_sm2.py::test_standard_signature_verifies
    --deselect tests/test_sm2.py::test_encrypted_key_is_pbkdf2_sm3_sm4_cbc
    --deselect tests/test_sm4.py::test_gmssl_bench_loader_skips_what_it_cannot_load
  )
  local log=$CARGO_TARGET_DIR/$label.log
  (cd "$work" && env -i PATH=/usr/bin:/bin PYTHONPATH="$site" HOME="$work" "${qenv[@]}" "${run[@]}" "$py" -c '
import sys, sysconfig, shangmi, shangmi._native as n
print("shangmi", shangmi.__version__, "on", sys.version.split()[0], sysconfig.get_config_var("MULTIARCH"), n.__file__.rsplit("/", 1)[-1])
print("backends", shangmi.cpu_features()["backends"])' \
    && env -i PATH=/usr/bin:/bin PYTHONPATH="$site" HOME="$work" "${qenv[@]}" "${run[@]}" "$py" -m pytest -q -p no:cacheprovider --rootdir . "${deselect[@]}" "${files[@]}") \
    >"$log" 2>&1
  local rc=$?
  grep -E "^(shangmi|backends) " "$log" | sed 's/^/  /'
  local summary
  summary=$(tail -1 "$log")
  if [ $rc -ne 0 ]; then
    tail -40 "$log"; fail "$label: FAILED ($summary, log $log)"; return
  fi
  summary="$summary ($((${#deselect[@]} / 2)) deselected: no pyca/cryptography, no ctypes)"
  say "$label: $(basename "$whl") with $("${run[@]}" "$py" -c 'import sys; print(sys.version.split()[0])') $how: $summary, $((SECONDS - start)) s"
}
want musl-run && musl_run x86_64

# --- 4. the aarch64 glibc wheel in an arm64 Debian userland ----------------
userland() {
  local start=$SECONDS
  [ -z "$gnu_wheel" ] && gnu_wheel=$(ls "$dist"/shangmi-*-abi3-*manylinux_2_17_aarch64*.whl 2>/dev/null | head -1)
  if [ -z "$gnu_wheel" ]; then say "userland: SKIPPED (no manylinux aarch64 wheel)"; return; fi
  # Debian's arm64 bookworm, first stage only (it runs no arm64 code); every
  # downloaded package is then unpacked from the host, which is all Python
  # needs (no maintainer scripts have to run for the interpreter to work).
  if [ ! -e "$userland/.unpacked" ]; then
    rm -rf "$userland"
    if ! debootstrap --arch arm64 --foreign --variant=minbase --include=python3,python3-venv \
        bookworm "$userland" http://deb.debian.org/debian >"$CARGO_TARGET_DIR/debootstrap.log" 2>&1; then
      tail -5 "$CARGO_TARGET_DIR/debootstrap.log"; fail "userland: FAILED (debootstrap)"; return
    fi
    for deb in "$userland"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$userland"; done
    touch "$userland/.unpacked"
  fi
  # Run arm64 executables through qemu (binfmt_misc); tests start
  # subprocesses, so `qemu-aarch64 -L` alone is not enough.
  if ! binfmt_aarch64; then say "userland: SKIPPED ($why)"; return; fi
  # /proc and /dev for the tests (cpu counts, /dev/urandom, /dev/null).
  local m
  for m in proc dev; do
    mountpoint -q "$userland/$m" && continue
    mkdir -p "$userland/$m"
    if [ $m = proc ]; then mount -t proc proc "$userland/proc"; else mount --bind /dev "$userland/dev"; fi \
      && mounted=("$userland/$m" "${mounted[@]}")
  done
  local py
  py=$(chroot "$userland" /usr/bin/python3 -c 'import platform, sys; print(platform.machine(), sys.version.split()[0])') \
    || { fail "userland: FAILED (arm64 python3 does not start under qemu)"; return; }
  # The wheel and the pure-Python test tools, installed by pip for the arm64
  # interpreter's platform (Debian's python3 has no ensurepip wheel on minbase).
  local site=$userland/opt/site
  rm -rf "$site" "$userland/opt/shangmi"
  mkdir -p "$userland/opt/shangmi"
  if ! .venv/bin/pip install -q --target "$site" --platform manylinux2014_aarch64 --python-version 3.11 \
      --implementation cp --only-binary=:all: "$gnu_wheel" pytest hypothesis cryptography gmssl; then
    fail "userland: FAILED (pip install for arm64)"; return
  fi
  cp -r tests "$userland/opt/shangmi/"
  # The vector suites (the ones .ci/run repeats under each CPU mask, without
  # the CLI tests) and the interop ones: pyca/cryptography and gmssl from
  # their arm64 wheels, Debian's arm64 openssl from the userland.
  local files=() f
  for f in tests/test_sm[2349]*.py tests/test_zuc*.py tests/test_cpu.py tests/test_*interop*.py tests/test_compat_gmssl.py; do
    [[ $f == *cli* || " ${files[*]} " == *" $f "* ]] || files+=("$f")
  done
  local log=$CARGO_TARGET_DIR/userland.log
  chroot "$userland" /usr/bin/env -i PATH=/usr/bin:/bin PYTHONPATH=/opt/site HOME=/tmp \
    /bin/sh -c "cd /opt/shangmi && python3 -c 'import shangmi; print(\"shangmi\", shangmi.__version__, shangmi.cpu_features())' && python3 -m pytest -q -p no:cacheprovider ${files[*]}" \
    >"$log" 2>&1
  local rc=$?
  grep -E "^shangmi " "$log" | sed 's/^/  /'
  local summary
  summary=$(tail -1 "$log")
  if [ $rc -ne 0 ]; then
    tail -40 "$log"; fail "userland: FAILED ($py, qemu-user: $summary)"; return
  fi
  say "userland: $(basename "$gnu_wheel") on Debian arm64 ($py, qemu-user): $summary, $((SECONDS - start)) s"
}
want userland && userland

# --- 5. musllinux_1_2 aarch64 ----------------------------------------------
if want musl-aarch64; then
  wheel musl-aarch64 aarch64-unknown-linux-musl musllinux_1_2 musllinux_1_2_aarch64
fi

# --- 6. the aarch64 musl wheel run by a cross-built musl CPython under qemu --
want musl-aarch64-run && musl_run aarch64

# --- 7. cargo check where nothing can be linked or run ---------------------
if want check; then
  for triple in x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin; do
    start=$SECONDS
    if ! target "$triple"; then say "check $triple: SKIPPED (rustup cannot install its standard library)"; continue; fi
    log=$CARGO_TARGET_DIR/check-$triple.log
    if ! cargo check -q -p shangmi --target "$triple" >"$log" 2>&1; then
      tail -30 "$log"; fail "check $triple: FAILED (core)"; continue
    fi
    # abi3: the binding needs no Python of the target to be checked.
    if ! PYO3_CROSS=1 PYO3_CROSS_PYTHON_VERSION=3.11 cargo check -q -p shangmi-python --target "$triple" >>"$log" 2>&1; then
      tail -30 "$log"; fail "check $triple: FAILED (binding)"; continue
    fi
    say "check $triple: core and binding OK, $((SECONDS - start)) s"
  done
fi

ls -l "$dist"/*.whl 2>/dev/null | awk '{print "  " $5, $NF}'
exit $failed
