"""Decrypts a GmSSL encrypted PKCS#8 key (PBKDF2-HMAC-SM3, SM4-CBC) with the
gmssl and openssl command-line tools, writing the plain PKCS#8 PEM."""
import os, re, subprocess, sys
src, out, pw = sys.argv[1], sys.argv[2], sys.argv[3]
G = os.environ.get("GMSSL", "gmssl")
t = subprocess.run(["openssl", "asn1parse", "-in", src], capture_output=True, text=True, check=True).stdout
hexes = re.findall(r"\[HEX DUMP\]:([0-9A-F]+)", t)
salt, iv, ct = hexes[0], hexes[1], hexes[2]
it = int(re.findall(r"INTEGER\s+:([0-9A-F]+)", t)[0], 16)
key = subprocess.run([G, "sm3_pbkdf2", "-pass", pw, "-salt", salt.lower(), "-iter", str(it), "-outlen", "16", "-hex"],
                     capture_output=True, text=True, check=True).stdout.strip()
plain = subprocess.run(["openssl", "enc", "-d", "-sm4-cbc", "-K", key, "-iv", iv], input=bytes.fromhex(ct),
                       capture_output=True, check=True).stdout
subprocess.run(["openssl", "pkey", "-inform", "DER", "-out", out], input=plain, check=True)
