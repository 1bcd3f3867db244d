#!/bin/sh
# Regenerates the OpenSSL-made PKCS#12 fixtures (run here; OpenSSL 3.0 CLI
# with the legacy provider for -legacy). An SM2 CA and an SM2 leaf it
# issued (SM3 signatures), then the leaf's key and certificate with the CA
# as extra certificate under each protection OpenSSL offers. key.pem, leaf.pem
# and ca.pem are kept so the tests can compare what they read.
set -e
openssl genpkey -algorithm SM2 -out ca.key
openssl genpkey -algorithm SM2 -out key.pem
openssl req -x509 -new -sm3 -key ca.key -subj "/O=PKCS12 Test/CN=PKCS12 Test CA" -days 7300 \
  -set_serial 1 -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem
openssl req -new -sm3 -key key.pem -subj "/O=PKCS12 Test/CN=leaf" -out leaf.csr
openssl x509 -req -sm3 -in leaf.csr -CA ca.pem -CAkey ca.key -set_serial 4660 -days 7000 -out leaf.pem
rm -f ca.key leaf.csr
export_p12() { out=$1; shift
  openssl pkcs12 -export -inkey key.pem -in leaf.pem -certfile ca.pem -name "leaf key" "$@" -out "$out"; }
# OpenSSL 3 default: PBES2 PBKDF2-HMAC-SHA256 AES-256-CBC, HMAC-SHA256 MAC.
export_p12 openssl-default.p12 -passout pass:test
# -legacy: key pbeWithSHAAnd3-KeyTripleDES-CBC, certificates RC2-40, SHA-1 MAC.
export_p12 openssl-legacy.p12 -legacy -passout pass:test
# Certificates under RC2-128 with the legacy key PBE.
export_p12 openssl-rc2-128.p12 -legacy -certpbe PBE-SHA1-RC2-128 -passout pass:test
# SM4-CBC for key and certificates (PRF HMAC-SHA256), SM3 MAC.
export_p12 openssl-sm4-sm3mac.p12 -keypbe SM4-CBC -certpbe SM4-CBC -macalg SM3 -passout pass:test
# AES-128-CBC, SHA-1 MAC.
export_p12 openssl-aes128-sha1mac.p12 -keypbe AES-128-CBC -certpbe AES-128-CBC -macalg SHA1 -passout pass:test
# Nothing encrypted, MAC only.
export_p12 openssl-noenc.p12 -keypbe NONE -certpbe NONE -passout pass:test
# Empty and non-ASCII passwords.
export_p12 openssl-empty-password.p12 -passout pass:
export_p12 openssl-nonascii-password.p12 -passout "pass:密码Ä"
export_p12 openssl-legacy-nonascii-password.p12 -legacy -passout "pass:密码Ä"
# 200,000 iterations: above the default cap.
export_p12 openssl-iter200k.p12 -iter 200000 -maciter -passout pass:test
# An RSA key (refused as unsupported after the MAC check).
openssl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key -subj "/CN=rsa" -days 3650 -out rsa.pem 2>/dev/null
openssl pkcs12 -export -inkey rsa.key -in rsa.pem -passout pass:test -out openssl-rsa.p12
rm -f rsa.key rsa.pem
