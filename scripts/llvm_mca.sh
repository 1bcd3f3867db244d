#!/usr/bin/env bash
# Static speed estimates for the aarch64 kernels, which cannot be timed under
# emulation: each kernel's hottest loop is disassembled from the cross-built
# test binary (the `*_impl` functions of `sm4/block/aarch64/`,
# `sm4/ghash/aarch64.rs`, `sm3/aarch64/`, `zuc/aarch64/` and the portable functions they
# replace) and `llvm-mca` estimates its cycles per iteration on LLVM's models
# of Neoverse N1, Neoverse V1 and TaiShan v110 (Kunpeng 920); with the bytes
# one iteration handles, that is cycles per byte, and the ratio to the
# portable path on the same model. The loop is the largest backward-branch
# span in the function (or, as a kernel's entry says, the last one, the
# largest of those with no loop inside, or the first of those); the script
# prints its instruction count so the choice can be checked against the
# source.
#
# Static estimates of the loop alone (no cache misses, no branch
# mispredictions); good for ratios, not for absolute rates.
#
# Usage: scripts/llvm_mca.sh [BINARY]  (default: the newest aarch64 test
# binary under target/aarch64; build it with scripts/aarch64.sh or
# `cargo test -p shangmi --release --target aarch64-unknown-linux-gnu --no-run`)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$(ls -t target/aarch64/aarch64-unknown-linux-gnu/release/deps/shangmi-* 2>/dev/null | grep -v '\.d$' | head -1)}
[ -x "$bin" ] || { echo "llvm_mca: no aarch64 test binary (see the usage line)" >&2; exit 1; }
# The newest llvm-mca installed: LLVM 14's `neoverse-*` CPUs all use the
# Cortex-A57 scheduling model; LLVM 16 and later have Neoverse N1, V1 and
# N2 models of their own (Debian 12: `apt-get install llvm-19`).
mca=$(ls /usr/bin/llvm-mca-* 2>/dev/null | sort -t- -k3 -n | tail -1)
mca=${MCA:-${mca:-$(command -v llvm-mca || true)}}
[ -n "$mca" ] || { echo "llvm_mca: needs llvm-mca (Debian: llvm or llvm-19)" >&2; exit 1; }
objdump=$(command -v aarch64-linux-gnu-objdump || command -v llvm-objdump)
cpus=${MCA_CPUS:-neoverse-n1 neoverse-v1 tsv110}

python3 - "$bin" "$objdump" "$mca" $cpus <<'PY'
import re, subprocess, sys, tempfile

binary, objdump, mca_bin, cpus = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

# (name, demangled-symbol regex, bytes per iteration of the hottest loop,
#  portable counterpart's name)
KERNELS = [
    ("sm4 bulk: sm4ce-128", r"sm4::block::aarch64::sm4e::crypt_impl$", "largest", 128, "sm4 bulk: portable-64"),
    # Sixteen blocks byte-sliced per iteration (the transposes and domain
    # maps at load and store included); the inner loop is four rounds.
    ("sm4 bulk: aese-128", r"sm4::block::aarch64::aese::crypt_impl$", "largest", 256, "sm4 bulk: portable-64"),
    # Bitsliced: one iteration is four rounds on 64 blocks (1024 / 8 bytes).
    ("sm4 bulk: portable-64", r"sm4::block::bitsliced::crypt64$", "largest", 128, None),
    ("sm4 cbc-enc: sm4ce-128", r"sm4::block::aarch64::sm4e::cbc_encrypt_impl$", "largest", 16, "sm4 cbc-enc: portable-64"),
    # One block per iteration; the inner loop is four dependent rounds.
    ("sm4 cbc-enc: aese-128", r"sm4::block::aarch64::aese::cbc_encrypt_impl$", "largest", 16, "sm4 cbc-enc: portable-64"),
    # The single-block path (the last loop): one round of one block.
    ("sm4 cbc-enc: portable-64", r"sm4::block::portable::crypt_blocks$", "last", 0.5, None),
    ("ghash: pmull-128", r"sm4::ghash::aarch64::update_impl$", "largest", 128, "ghash: portable-64"),
    # `update_portable` is inlined here; its loop takes four blocks.
    ("ghash: portable-64", r"sm4::ghash::Ghash::update_blocks$", "largest", 64, None),
    ("sm3: sm3ce-128", r"sm3::aarch64::compress_impl$", "largest", 64, "sm3: portable-32"),
    # Two messages' blocks per iteration, interleaved (hash_many).
    ("sm3 x2: sm3ce-128", r"sm3::aarch64::ce2::compress2_impl$", "largest", 128, "sm3: portable-32"),
    # NEON message expansion, scalar rounds (cores without the SM3 instructions).
    ("sm3: neon-128", r"sm3::aarch64::neon::compress_impl$", "largest", 64, "sm3: portable-32"),
    ("sm3: portable-32", r"sm3::compress::compress_blocks_portable$", "largest", 64, None),
    # Eight messages' blocks per call, one per lane (hash_many); one call:
    # the whole function, no loop inside.
    ("sm3 x8 lanes: neon-128", r"sm3::aarch64::lanes::block8_impl$", "whole", 512, "sm3: portable-32"),
    # ZUC keystream: F's loop, one 4-byte word per iteration (both kernels
    # form the output words in a cheap pass after it, not counted). The
    # NEON loop advances the LFSR too; the portable generator runs it in a
    # loop of its own first (the row "zuc lfsr: portable-32", to be added
    # to its F row).
    ("zuc F+lfsr: aese-128", r"zuc::aarch64::stream::f_batch_impl$", "largest", 4, "zuc F: portable-32"),
    ("zuc F: portable-32", r"zuc::core::Portable as .*Generator>::generate$", "innermost", 4, None),
    ("zuc lfsr: portable-32", r"zuc::core::Portable as .*Generator>::generate$", "first", 4, None),
    # EIA3 / ZUC-256 MAC inner product: message bytes per iteration.
    ("eia3: aese-pmull-128", r"zuc::aarch64::mac::window_xor_impl$", "first", 16, "eia3: portable-32"),
    ("eia3: portable-32", r"zuc::kernel::spec_window_xor$", "largest", 32, None),
    # SM2's p: one Montgomery product or square per call (the test
    # binary's non-inlined wrappers), so the c/B column reads cycles per
    # product.
    ("sm2 field mul: asm-64", r"sm2::field::tests::mul_aarch64_impl$", "whole", 1, "sm2 field mul: portable-64"),
    ("sm2 field mul: portable-64", r"sm2::field::tests::mul_portable_impl$", "whole", 1, None),
    ("sm2 field sqr: asm-64", r"sm2::field::tests::sqr_aarch64_impl$", "whole", 1, "sm2 field sqr: portable-64"),
    ("sm2 field sqr: portable-64", r"sm2::field::tests::sqr_portable_impl$", "whole", 1, None),
]

dis = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", binary],
                     capture_output=True, text=True, check=True).stdout
funcs, cur = {}, None
for line in dis.splitlines():
    m = re.match(r"^([0-9a-f]+) <(.*)>:$", line)
    if m:
        cur = re.sub(r"::h[0-9a-f]{16}$", "", m.group(2))
        funcs.setdefault(cur, [])
        continue
    m = re.match(r"^\s+([0-9a-f]+):\s+(\S.*)$", line)
    if m and cur is not None:
        funcs[cur].append((int(m.group(1), 16), m.group(2).split("//")[0].strip()))

BR = re.compile(r"^(b(\.\w+)?|cbn?z|tbn?z)\s+(.*?)([0-9a-f]+) <")

def loops(ins):
    """Every backward branch inside the function as (first, last) indices."""
    addrs = {a: i for i, (a, _) in enumerate(ins)}
    out = []
    for i, (a, text) in enumerate(ins):
        m = re.match(r"^(b(\.\w+)?|cbn?z|tbn?z)\s+(.*?)([0-9a-f]+)\s*<", text)
        if m and int(m.group(4), 16) <= a and int(m.group(4), 16) in addrs:
            out.append((addrs[int(m.group(4), 16)], i))
    return out

def trips(span, before=()):
    """An inner loop's trip count from its `add R, _, #step` and `cmp R,
    #limit`, or from a count-down `subs R, R, #step` and the `mov R, #n`
    before the loop (`before`: the instructions ahead of it)."""
    text = [t for _, t in span]
    for t in text:
        m = re.match(r"^subs\s+(\w+), (\w+), #(0x[0-9a-f]+|\d+)$", t)
        if m and m.group(1) == m.group(2):
            for _, u in reversed(list(before)):
                n = re.match(rf"^mov\s+[wx]{m.group(1)[1:]}, #(0x[0-9a-f]+|\d+)$", u)
                if n:
                    return int(n.group(1), 0) // int(m.group(3), 0)
    for t in text:
        m = re.match(r"^cmp\s+(\w+), #(0x[0-9a-f]+|\d+)$", t)
        if not m:
            continue
        for u in text:
            a = re.match(rf"^add\s+{m.group(1)}, \w+, #(0x[0-9a-f]+|\d+)$", u)
            if a:
                return int(m.group(2), 0) // int(a.group(1), 0)
    raise SystemExit("llvm_mca: cannot find an inner loop's trip count:\n" + "\n".join(text))

def to_asm(span):
    out = [".Lloop:"]
    for _, text in span:
        # The symbol after an address (nested <...> in demangled names) ends the line.
        text = re.sub(r"\s*<.*$", "", text).strip()
        m = re.match(r"^(b(\.\w+)?|cbn?z|tbn?z)\s+(.*?)([0-9a-f]+)$", text)
        if m:  # every branch to the loop head: the cost of a branch, no target
            text = f"{m.group(1)} {m.group(3)}.Lloop"
        out.append(text)
    return "\n".join(out) + "\n"

def mca(asm, cpu):
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(asm)
    r = subprocess.run([mca_bin, "-mtriple=aarch64", f"-mcpu={cpu}", "-mattr=+neon,+aes,+sha3,+sm4",
                        "-iterations=200", f.name], capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
    if not m:
        raise SystemExit(f"llvm-mca failed on {cpu}: {r.stderr[:400]}")
    return int(m.group(1)) / 200

def cost(ins, lo, hi, cpu, inner):
    """Cycles of one iteration of ins[lo..hi]: its own instructions, plus each
    directly nested loop's cycles times its trip count."""
    own, total, i = [], 0.0, lo
    for a, b in inner:
        own.extend(ins[i:a])
        total += trips(ins[a:b + 1], ins[:a]) * mca(to_asm(ins[a:b + 1]), cpu)
        i = b + 1
    own.extend(ins[i:hi + 1])
    return total + mca(to_asm(own), cpu)

results = {}
print(f"binary: {binary}")
print(f"llvm-mca: {subprocess.run([mca_bin, '--version'], capture_output=True, text=True).stdout.split(chr(10))[0].strip()}")
for name, pat, pick, per_iter, _ in KERNELS:
    sym = [s for s in funcs if re.search(pat, s)]
    if not sym:
        print(f"{name:28} symbol /{pat}/ not found (inlined?)")
        continue
    ins = funcs[sym[0]]
    ls = loops(ins)
    if pick == "whole":
        # One call: its straight-line code (calls, returns and address
        # computations of constants left out) plus each top-level loop's
        # cycles times its trip count.
        body = [(a, t) if not re.match(r"^(ret|bl|adrp)\b", t) else (a, "nop") for a, t in ins]
        top = sorted(l for l in ls if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in ls))
        results[name] = {c: cost(body, 0, len(body) - 1, c, top) / per_iter for c in cpus}
        note = f", {len(top)} loops x {[trips(body[a:b + 1], body[:a]) for a, b in top]}" if top else ""
        print(f"{name:28} {len(ins):5} instructions/call{note}, {per_iter:g} bytes/call ({sym[0]})")
        continue
    if not ls:
        print(f"{name:28} no loop in {sym[0]}")
        continue
    leaves = [l for l in ls if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in ls)]
    if pick == "largest":
        lo, hi = max(ls, key=lambda l: l[1] - l[0])
    elif pick == "last":
        lo, hi = max(ls, key=lambda l: l[1])
    elif pick == "innermost":
        lo, hi = max(leaves, key=lambda l: l[1] - l[0])
    else:  # "first": the first loop with no loop inside
        lo, hi = min(leaves)
    # Loops directly inside the chosen one (not nested in another inner one).
    inside = sorted(l for l in ls if lo <= l[0] and l[1] < hi)
    inner = [l for l in inside if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in inside)]
    results[name] = {c: cost(ins, lo, hi, c, inner) / per_iter for c in cpus}
    note = f", {len(inner)} inner loops x {[trips(ins[a:b + 1], ins[:a]) for a, b in inner]}" if inner else ""
    print(f"{name:28} {hi - lo + 1:5} instructions/iteration{note}, {per_iter:g} bytes/iteration ({sym[0]})")

print()
head = "".join(f" | {c:>11} c/B | vs portable" for c in cpus)
print(f"| {'kernel':26}{head} |")
print("|" + "---|" * (1 + 2 * len(cpus)))
for name, _, _, _, base in KERNELS:
    if name not in results:
        continue
    row = f"| {name:26}"
    for c in cpus:
        v = results[name][c]
        ratio = f"{results[base][c] / v:.1f}x" if base in results else "1.0x"
        row += f" | {v:15.2f} | {ratio:>11}"
    print(row + " |")
PY
