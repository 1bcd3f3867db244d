"""Writes tokens.json: compact JWS tokens whose signatures are made by the
OpenSSL 3 command line (`openssl pkeyutl` for SM2 with SM3, `openssl mac`
for HMAC-SM3), assembled here with the standard library only, so shangmi's
decoder is checked against an independent signer. Recorded 2026-12-07
with OpenSSL 3.0.19: run `python3 make.py` in this directory to redo."""
import base64, json, subprocess

def b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()

def der_to_raw(sig):
    # SEQUENCE { INTEGER r, INTEGER s } -> r||s, 32 bytes each.
    assert sig[0] == 0x30
    i = 2 if sig[1] < 0x80 else 3
    out = b""
    for _ in range(2):
        assert sig[i] == 0x02
        n = sig[i + 1]
        v = sig[i + 2:i + 2 + n].lstrip(b"\0")
        out += v.rjust(32, b"\0")
        i += 2 + n
    return out

def sm2_sign(data, uid):
    with open("input.bin", "wb") as f:
        f.write(data)
    subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-digest", "sm3", "-inkey", "sm2.key",
                    "-pkeyopt", "distid:" + uid, "-in", "input.bin", "-out", "sig.der"], check=True)
    with open("sig.der", "rb") as f:
        return f.read()

def hmac_sm3(key, data):
    with open("input.bin", "wb") as f:
        f.write(data)
    out = subprocess.run(["openssl", "mac", "-digest", "SM3", "-macopt", "hexkey:" + key.hex(), "-in", "input.bin",
                          "HMAC"], check=True, capture_output=True, text=True).stdout.strip()
    return bytes.fromhex(out)

subprocess.run(["openssl", "genpkey", "-algorithm", "SM2", "-out", "sm2.key"], check=True)
subprocess.run(["openssl", "pkey", "-in", "sm2.key", "-pubout", "-out", "sm2_pub.pem"], check=True)
HKEY = b"shangmi jose test secret, 32 by"
cases = []
for alg, scheme, encoding, uid, extra in [
    ("SM2", "sm2", "raw", "1234567812345678", {"typ": "JWT"}),
    ("SM3WithSM2", "sm2", "der", "1234567812345678", {"typ": "JWT"}),
    ("GmSM2", "sm2", "raw", "ALICE123@YAHOO.COM", {}),
    ("HSM3", "hmac-sm3", None, None, {"typ": "JWT"}),
    ("HS256-SM3", "hmac-sm3", None, None, {"kid": "k1"}),
]:
    header = json.dumps({"alg": alg, **extra}, separators=(",", ":")).encode()
    payload = json.dumps({"sub": "42", "name": "张三", "iat": 1796083200}, separators=(",", ":"),
                         ensure_ascii=False).encode()
    si = (b64(header) + "." + b64(payload)).encode()
    if scheme == "sm2":
        sig = sm2_sign(si, uid)
        if encoding == "raw":
            sig = der_to_raw(sig)
    else:
        sig = hmac_sm3(HKEY, si)
    cases.append({"alg": alg, "scheme": scheme, "encoding": encoding, "uid": uid, "payload": payload.decode(),
                  "token": si.decode() + "." + b64(sig)})
with open("tokens.json", "w") as f:
    json.dump({"hmac_key": HKEY.decode(), "sm2_public_key": "sm2_pub.pem", "cases": cases}, f, indent=1,
              ensure_ascii=False)
    f.write("\n")
import os
for t in ("input.bin", "sig.der", "sm2.key"):
    os.remove(t)
