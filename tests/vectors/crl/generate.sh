#!/bin/sh
# Regenerates the CRL freshness fixtures with the OpenSSL 3 CLI (run here).
# An SM2 CA (self-signed, SM3), a leaf it issued, and three CRLs the CA
# signed with `openssl ca -gencrl`: current (2026-01-01 .. 2036-01-01),
# stale (2020-01-01 .. 2022-06-04, like the real expired ROOTCA ARL) and
# future (2040-01-01 .. 2041-01-01). The leaf is revoked in each, so a
# stale list that were wrongly used would still show as "revoked".
set -e
d=$(mktemp -d)
openssl genpkey -algorithm SM2 -out "$d/ca.key"
openssl genpkey -algorithm SM2 -out "$d/leaf.key"
openssl req -x509 -new -sm3 -key "$d/ca.key" -subj "/O=CRL Test/CN=CRL Test CA" -days 7300 \
  -set_serial 1 -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem
openssl req -new -sm3 -key "$d/leaf.key" -subj "/O=CRL Test/CN=leaf" -out "$d/leaf.csr"
openssl x509 -req -sm3 -in "$d/leaf.csr" -CA ca.pem -CAkey "$d/ca.key" -set_serial 4660 -days 7000 -out leaf.pem
mkdir "$d/db"; : > "$d/db/index.txt"; echo 01 > "$d/db/crlnumber"
cat > "$d/ca.cnf" <<CNF
[ca]
default_ca = c
[c]
database = $d/db/index.txt
crlnumber = $d/db/crlnumber
default_md = sm3
default_crl_days = 30
CNF
openssl ca -config "$d/ca.cnf" -cert ca.pem -keyfile "$d/ca.key" -revoke leaf.pem 2>/dev/null
for spec in "current 20260101000000Z 20360101000000Z" "stale 20200101000000Z 20220604000000Z" \
            "future 20400101000000Z 20410101000000Z"; do
  set -- $spec
  openssl ca -config "$d/ca.cnf" -cert ca.pem -keyfile "$d/ca.key" -gencrl \
    -crl_lastupdate "$2" -crl_nextupdate "$3" -out "$1.crl.pem" 2>/dev/null
done
rm -rf "$d"
