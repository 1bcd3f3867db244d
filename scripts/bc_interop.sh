#!/usr/bin/env bash
# Interop with BouncyCastle 1.72 (Debian's libbcprov-java, libbcpkix-java,
# libbcutil-java), both ways. Not run by CI: needs java/javac and the jars, and
# the shangmi native module importable by `python3` (a venv with `maturin develop`).
# Prints one result line per case; exits non-zero if any case that BC 1.72 is
# able to do fails. BC 1.72 can neither read nor write SM4-CBC PBES2, SM2 key
# transport (1.2.156.10197.1.301.3) nor SM4-CBC CMS content; those cases print
# "BC-CANNOT" with BC's message.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CP=/usr/share/java/bcprov.jar:/usr/share/java/bcpkix.jar:/usr/share/java/bcutil.jar
KEYS=$ROOT/tests/vectors/pkcs12
PY=${PYTHON:-python3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
javac -d "$W" -cp "$CP" "$ROOT/tests/vectors/bc/BcInterop.java" || exit 2
bc() { java -cp "$CP:$W" BcInterop "$@"; }
fail=0
line() { # name, status, details
    printf '%-34s %-9s %s\n' "$1" "$2" "$3"
}

# shangmi writes, BouncyCastle reads.
"$PY" - "$KEYS" "$W" <<'PYEOF' || exit 2
import sys
from pathlib import Path
from shangmi import cms, pkcs12, sm2, x509
keys, out = Path(sys.argv[1]), Path(sys.argv[2])
key = sm2.PrivateKey.from_pem((keys / "key.pem").read_bytes())
leaf = x509.load_pem_x509_certificate((keys / "leaf.pem").read_bytes())
ca = x509.load_pem_x509_certificate((keys / "ca.pem").read_bytes())
for enc in ("sm", "openssl", None):
    pw = None if enc is None else "shangmi密码"
    data = pkcs12.serialize_key_and_certificates("shangmi leaf", key, leaf, [ca], password=pw, encryption=enc)
    (out / f"shangmi-{enc}.p12").write_bytes(data)
for oids in ("gmt0010", "rfc5652"):
    (out / f"shangmi-signed-{oids}.p7s").write_bytes(cms.sign(b"signed by shangmi", leaf, key, certificates=[ca], oids=oids))
    (out / f"shangmi-enveloped-{oids}.p7m").write_bytes(cms.encrypt(b"enveloped by shangmi", [leaf], oids=oids))
(out / "shangmi-enveloped-keyid.p7m").write_bytes(cms.encrypt(b"enveloped by shangmi", [leaf], oids="rfc5652", recipient_id="key_identifier"))
PYEOF

run() { # name, expect-ok(1)/bc-cannot-pattern, bc args...
    local name=$1 cannot=$2; shift 2
    local o; o=$(bc "$@" 2>&1); local rc=$?
    local last; last=$(printf '%s' "$o" | paste -sd'|' | sed 's/|/ | /g')
    if [ $rc -eq 0 ]; then line "$name" OK "$last"
    elif [ -n "$cannot" ] && printf '%s' "$o" | grep -q "$cannot"; then line "$name" BC-CANNOT "$last"
    else line "$name" FAIL "$last"; fail=1; fi
}
echo "== shangmi writes, BouncyCastle 1.72 reads"
run "pfx encryption=sm"      "invalid keyLength value" pfx "$W/shangmi-sm.p12" "shangmi密码"
run "pfx encryption=openssl" ""                        pfx "$W/shangmi-openssl.p12" "shangmi密码"
run "pfx encryption=None"    ""                        pfx "$W/shangmi-None.p12" ""
run "cms SignedData gmt0010" ""                        signed "$W/shangmi-signed-gmt0010.p7s"
run "cms SignedData rfc5652" ""                        signed "$W/shangmi-signed-rfc5652.p7s"
run "cms EnvelopedData gmt0010" "no such algorithm\|cannot create\|not recognised" enveloped "$W/shangmi-enveloped-gmt0010.p7m" "$KEYS/key.pem" "$KEYS/leaf.pem"
run "cms EnvelopedData rfc5652" "no such algorithm\|cannot create\|not recognised" enveloped "$W/shangmi-enveloped-rfc5652.p7m" "$KEYS/key.pem" "$KEYS/leaf.pem"

echo "== BouncyCastle 1.72 writes, shangmi reads"
mkdir -p "$W/bc"
bc write "$KEYS" "$W/bc" "bc密码" | while read -r l; do
    case $l in CANNOT*) n=${l#CANNOT }; line "bc writes ${n%%:*}" BC-CANNOT "${n#*: }";; esac
done
"$PY" - "$KEYS" "$W/bc" "$ROOT/tests/vectors/pkcs12/bc-aes256-sm3mac.p12" <<'PYEOF' || fail=1
import sys
from pathlib import Path
from shangmi import cms, pkcs12, x509
keys, bc, pfx = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
ca = x509.load_pem_x509_certificate((keys / "ca.pem").read_bytes())
bad = 0
def line(n, s, d):
    print(f"{n:<34} {s:<9} {d}")
def case(name, f):
    global bad
    try:
        line(name, "OK", f())
    except Exception as e:
        bad = 1
        line(name, "FAIL", f"{type(e).__name__}: {e}")
def read_pfx(p, pw):
    key, cert, extra = pkcs12.load_key_and_certificates(p.read_bytes(), pw)
    assert key.public_key() == cert.public_key(), "key does not match certificate"
    return f"key matches certificate {cert.subject}; {len(extra)} more cert(s)"
case("shangmi reads bc-aes256-sm3mac.p12", lambda: read_pfx(pfx, "bc密码"))
for p in sorted(bc.glob("*.p12")):
    case(f"shangmi reads {p.name}", lambda p=p: read_pfx(p, "bc密码"))
def read_signed():
    v = cms.verify((bc / "bc-signed.p7s").read_bytes(), trust_roots=[ca])
    return f"verifies ({v.form}), content {v.content!r}"
case("shangmi verifies bc-signed.p7s", read_signed)
def read_detached():
    v = cms.verify((bc / "bc-signed-detached.p7s").read_bytes(), data=b"signed by BouncyCastle 1.72", trust_roots=[ca])
    return f"verifies ({v.form}), detached"
case("shangmi verifies bc-signed-detached", read_detached)
sys.exit(bad)
PYEOF
exit $fail
