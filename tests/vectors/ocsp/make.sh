#!/bin/sh
# Recorded 2026-12-07 with OpenSSL 3.0.19 and GmSSL 3.3.0-dev: an SM2 test
# PKI (CA, leaf, revoked leaf, delegated responder with id-kp-OCSPSigning,
# a responder without it) and OCSP requests/responses written by OpenSSL's
# and GmSSL's own code.
set -e
O=openssl
G=${GMSSL:-gmssl}
cat > ext.cnf <<'X'
[ca]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
[leaf]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
authorityKeyIdentifier=keyid
[responder]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=OCSPSigning
authorityKeyIdentifier=keyid
[nosign]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
authorityKeyIdentifier=keyid
X
# Keys by GmSSL (its encrypted PKCS#8), decrypted for OpenSSL by gm2ossl.py.
for k in ca leaf revoked responder nosign; do
  $G sm2keygen -pass P -out $k.gm.key
  python3 gm2ossl.py $k.gm.key $k.key P
done
$O req -new -x509 -key ca.key -sm3 -subj "/C=CN/O=shangmi test/CN=OCSP Test CA" -days 7300 -out ca.pem -extensions ca -config ext.cnf -sigopt distid:1234567812345678
i=1
for k in leaf revoked responder nosign; do
  $O req -new -key $k.key -sm3 -subj "/C=CN/O=shangmi test/CN=$k" -out $k.csr -sigopt distid:1234567812345678
  ext=leaf; [ $k = responder ] && ext=responder; [ $k = nosign ] && ext=nosign
  $O x509 -req -in $k.csr -CA ca.pem -CAkey ca.key -set_serial $((4096 + i)) -days 7300 -sm3 -extfile ext.cnf -extensions $ext -out $k.pem -sigopt distid:1234567812345678 -vfyopt distid:1234567812345678
  i=$((i+1))
done
rm -f *.csr
# index.txt for `openssl ocsp` as responder: leaf valid, revoked revoked.
exp=$($O x509 -in leaf.pem -noout -enddate | cut -d= -f2)
E=$(date -u -d "$exp" +%y%m%d%H%M%SZ)
printf 'V\t%s\t\t1001\tunknown\t/C=CN/O=shangmi test/CN=leaf\n' $E > index.txt
printf 'R\t%s\t261201000000Z,keyCompromise\t1002\tunknown\t/C=CN/O=shangmi test/CN=revoked\n' $E >> index.txt
# Requests by OpenSSL (SHA-1 CertID, nonce) and GmSSL (SM3 CertID).
$O ocsp -issuer ca.pem -cert leaf.pem -reqout openssl_req_leaf.der -nonce
$O ocsp -issuer ca.pem -sm3 -cert revoked.pem -reqout openssl_req_revoked_sm3.der -no_nonce
cat leaf.pem ca.pem > leaf_chain.pem
$G ocspreq -in leaf_chain.pem -out gmssl_req_leaf.der
# Responses by OpenSSL: delegated responder (byName, certs included) and the CA itself (byKey).
$O ocsp -index index.txt -CA ca.pem -rsigner responder.pem -rkey responder.key -rsigopt distid:1234567812345678 -reqin openssl_req_leaf.der -respout openssl_resp_leaf_delegated.der -ndays 3650
$O ocsp -index index.txt -CA ca.pem -rsigner ca.pem -rkey ca.key -rsigopt distid:1234567812345678 -resp_key_id -resp_no_certs -reqin openssl_req_revoked_sm3.der -respout openssl_resp_revoked_by_ca.der -ndays 3650
# Responses by GmSSL: delegated responder (byName, its certificate included)
# and the CA itself (byKey, revoked).
$G ocspsign -reqin gmssl_req_leaf.der -cacert ca.pem -signer responder.pem -key responder.gm.key -pass P -cert responder.pem -next_update 20360101000000Z -out gmssl_resp_leaf_delegated.der
$G ocspsign -reqin gmssl_req_leaf.der -cacert ca.pem -signer ca.pem -key ca.gm.key -pass P -status revoked -revocation_time 20261201000000Z -revocation_reason keyCompromise -resp_key_id -next_update 20360101000000Z -out gmssl_resp_leaf_revoked_by_ca.der
rm -f *.gm.key leaf_chain.pem ext.cnf
