//! The handshake message codec (GB/T 38636-2020 section 6.4, TLS 1.1
//! shaped). Parsers take a message body, check every length field against
//! the bytes present before using it, and report a decode error naming the
//! message; nothing is allocated beyond the bytes that arrived.

use super::alert::{Fatal, HsResult, ILLEGAL_PARAMETER};
use super::VERSION;

pub(crate) const HELLO_REQUEST: u8 = 0;
pub(crate) const CLIENT_HELLO: u8 = 1;
pub(crate) const SERVER_HELLO: u8 = 2;
pub(crate) const CERTIFICATE: u8 = 11;
pub(crate) const SERVER_KEY_EXCHANGE: u8 = 12;
pub(crate) const CERTIFICATE_REQUEST: u8 = 13;
pub(crate) const SERVER_HELLO_DONE: u8 = 14;
pub(crate) const CERTIFICATE_VERIFY: u8 = 15;
pub(crate) const CLIENT_KEY_EXCHANGE: u8 = 16;
pub(crate) const FINISHED: u8 = 20;

/// Largest handshake message body accepted (a certificate list of ten
/// large certificates fits).
pub(crate) const MAX_HANDSHAKE: usize = 64 * 1024;
/// Most certificates accepted in one Certificate message.
pub(crate) const MAX_CHAIN: usize = 10;

/// The named curve of SM2 in ECParameters: 41 (0x0029, curveSM2 of RFC
/// 8998), as GmSSL 3 (`TLS_curve_sm2p256v1 = 41`) and Tongsuo send it.
pub(crate) const CURVE_SM2: u16 = 0x0029;
/// ECCurveType named_curve.
pub(crate) const NAMED_CURVE: u8 = 3;
/// ClientCertificateType ecdsa_sign, the SM2 signing certificate type.
pub(crate) const CERT_TYPE_ECDSA_SIGN: u8 = 64;
/// ClientCertificateType rsa_sign (GmSSL and Tongsuo also list it).
pub(crate) const CERT_TYPE_RSA_SIGN: u8 = 1;
/// The server_name extension.
pub(crate) const EXT_SERVER_NAME: u16 = 0;

pub(crate) fn type_name(t: u8) -> &'static str {
    match t {
        HELLO_REQUEST => "HelloRequest",
        CLIENT_HELLO => "ClientHello",
        SERVER_HELLO => "ServerHello",
        CERTIFICATE => "Certificate",
        SERVER_KEY_EXCHANGE => "ServerKeyExchange",
        CERTIFICATE_REQUEST => "CertificateRequest",
        SERVER_HELLO_DONE => "ServerHelloDone",
        CERTIFICATE_VERIFY => "CertificateVerify",
        CLIENT_KEY_EXCHANGE => "ClientKeyExchange",
        FINISHED => "Finished",
        _ => "unknown handshake message",
    }
}

/// A bounds-checked reader over one message body.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], what: &'static str) -> Self {
        Reader { buf, what }
    }

    fn short(&self, field: &str) -> Fatal {
        Fatal::decode(format!("{}: truncated at {field}", self.what))
    }

    pub(crate) fn take(&mut self, n: usize, field: &str) -> HsResult<&'a [u8]> {
        if self.buf.len() < n {
            return Err(self.short(field));
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }

    pub(crate) fn u8(&mut self, field: &str) -> HsResult<u8> {
        Ok(self.take(1, field)?[0])
    }

    pub(crate) fn u16(&mut self, field: &str) -> HsResult<u16> {
        let b = self.take(2, field)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u24(&mut self, field: &str) -> HsResult<usize> {
        let b = self.take(3, field)?;
        Ok((b[0] as usize) << 16 | (b[1] as usize) << 8 | b[2] as usize)
    }

    pub(crate) fn vec8(&mut self, field: &str) -> HsResult<&'a [u8]> {
        let n = self.u8(field)? as usize;
        self.take(n, field)
    }

    pub(crate) fn vec16(&mut self, field: &str) -> HsResult<&'a [u8]> {
        let n = self.u16(field)? as usize;
        self.take(n, field)
    }

    pub(crate) fn vec24(&mut self, field: &str) -> HsResult<&'a [u8]> {
        let n = self.u24(field)?;
        self.take(n, field)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub(crate) fn end(&self) -> HsResult<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(Fatal::decode(format!("{}: {} trailing bytes", self.what, self.buf.len())))
        }
    }
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_u24(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u32).to_be_bytes()[1..]);
}

pub(crate) fn put_vec8(out: &mut Vec<u8>, v: &[u8]) {
    out.push(v.len() as u8);
    out.extend_from_slice(v);
}

pub(crate) fn put_vec16(out: &mut Vec<u8>, v: &[u8]) {
    put_u16(out, v.len() as u16);
    out.extend_from_slice(v);
}

pub(crate) fn put_vec24(out: &mut Vec<u8>, v: &[u8]) {
    put_u24(out, v.len());
    out.extend_from_slice(v);
}

/// A handshake message: type ‖ length(3) ‖ body.
pub(crate) fn handshake(typ: u8, body: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(4 + body.len());
    m.push(typ);
    put_vec24(&mut m, body);
    m
}

#[derive(Debug)]
pub(crate) struct ClientHello {
    pub random: [u8; 32],
    pub session_id: Vec<u8>,
    pub suites: Vec<u16>,
    pub server_name: Option<String>,
}

impl ClientHello {
    /// No extensions except server_name when a host name is given: GmSSL's
    /// tlcp_server refuses extensions it does not know.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        put_u16(&mut b, VERSION);
        b.extend_from_slice(&self.random);
        put_vec8(&mut b, &self.session_id);
        let mut s = Vec::new();
        for c in &self.suites {
            put_u16(&mut s, *c);
        }
        put_vec16(&mut b, &s);
        put_vec8(&mut b, &[0]);
        if let Some(name) = &self.server_name {
            let mut entry = vec![0u8];
            put_vec16(&mut entry, name.as_bytes());
            let mut list = Vec::new();
            put_vec16(&mut list, &entry);
            let mut exts = Vec::new();
            put_u16(&mut exts, EXT_SERVER_NAME);
            put_vec16(&mut exts, &list);
            put_vec16(&mut b, &exts);
        }
        handshake(CLIENT_HELLO, &b)
    }

    /// Parses a ClientHello body; `version` is returned for the caller's
    /// version check. Unknown extensions are ignored (TLS 1.2 rules).
    pub(crate) fn parse(body: &[u8]) -> HsResult<(u16, Self)> {
        let mut r = Reader::new(body, "ClientHello");
        let version = r.u16("client_version")?;
        let mut random = [0u8; 32];
        random.copy_from_slice(r.take(32, "random")?);
        let session_id = r.vec8("session_id")?;
        if session_id.len() > 32 {
            return Err(Fatal::new(ILLEGAL_PARAMETER, "ClientHello: session_id longer than 32 bytes"));
        }
        let suites_raw = r.vec16("cipher_suites")?;
        if suites_raw.is_empty() || suites_raw.len() % 2 != 0 {
            return Err(Fatal::decode("ClientHello: cipher_suites must be a non-empty list of 2-byte codes"));
        }
        let suites = suites_raw.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        let comp = r.vec8("compression_methods")?;
        if !comp.contains(&0) {
            return Err(Fatal::new(ILLEGAL_PARAMETER, "ClientHello: the null compression method is not offered"));
        }
        let mut server_name = None;
        if !r.is_empty() {
            let mut exts = Reader::new(r.vec16("extensions")?, "ClientHello extensions");
            while !exts.is_empty() {
                let t = exts.u16("extension type")?;
                let data = exts.vec16("extension data")?;
                if t == EXT_SERVER_NAME {
                    let mut sn = Reader::new(data, "server_name extension");
                    let mut list = Reader::new(sn.vec16("server_name_list")?, "server_name extension");
                    sn.end()?;
                    while !list.is_empty() {
                        let kind = list.u8("name_type")?;
                        let name = list.vec16("host_name")?;
                        if kind == 0 && server_name.is_none() {
                            let s = std::str::from_utf8(name)
                                .ok()
                                .filter(|s| !s.is_empty() && s.is_ascii())
                                .ok_or_else(|| Fatal::decode("server_name: host_name is not an ASCII name"))?;
                            server_name = Some(s.to_string());
                        }
                    }
                }
            }
        }
        r.end()?;
        Ok((version, ClientHello { random, session_id: session_id.to_vec(), suites, server_name }))
    }
}

#[derive(Debug)]
pub(crate) struct ServerHello {
    pub version: u16,
    pub random: [u8; 32],
    pub session_id: Vec<u8>,
    pub suite: u16,
}

impl ServerHello {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        put_u16(&mut b, self.version);
        b.extend_from_slice(&self.random);
        put_vec8(&mut b, &self.session_id);
        put_u16(&mut b, self.suite);
        b.push(0);
        handshake(SERVER_HELLO, &b)
    }

    /// Parses a ServerHello; extensions (we asked for none) are skipped
    /// after their framing is checked.
    pub(crate) fn parse(body: &[u8]) -> HsResult<Self> {
        let mut r = Reader::new(body, "ServerHello");
        let version = r.u16("server_version")?;
        let mut random = [0u8; 32];
        random.copy_from_slice(r.take(32, "random")?);
        let session_id = r.vec8("session_id")?;
        if session_id.len() > 32 {
            return Err(Fatal::new(ILLEGAL_PARAMETER, "ServerHello: session_id longer than 32 bytes"));
        }
        let suite = r.u16("cipher_suite")?;
        let comp = r.u8("compression_method")?;
        if comp != 0 {
            return Err(Fatal::new(ILLEGAL_PARAMETER, "ServerHello: compression method must be null"));
        }
        if !r.is_empty() {
            let mut exts = Reader::new(r.vec16("extensions")?, "ServerHello extensions");
            while !exts.is_empty() {
                exts.u16("extension type")?;
                exts.vec16("extension data")?;
            }
        }
        r.end()?;
        Ok(ServerHello { version, random, session_id: session_id.to_vec(), suite })
    }
}

/// Certificate: a 3-byte list of 3-byte-length DER certificates.
pub(crate) fn encode_certificate(ders: &[&[u8]]) -> Vec<u8> {
    let mut list = Vec::new();
    for d in ders {
        put_vec24(&mut list, d);
    }
    let mut b = Vec::new();
    put_vec24(&mut b, &list);
    handshake(CERTIFICATE, &b)
}

/// The DER certificates of a Certificate message (at most [`MAX_CHAIN`]).
pub(crate) fn parse_certificate(body: &[u8]) -> HsResult<Vec<&[u8]>> {
    let mut r = Reader::new(body, "Certificate");
    let mut list = Reader::new(r.vec24("certificate_list")?, "Certificate");
    r.end()?;
    let mut out = Vec::new();
    while !list.is_empty() {
        if out.len() == MAX_CHAIN {
            return Err(Fatal::decode(format!("Certificate: more than {MAX_CHAIN} certificates")));
        }
        let c = list.vec24("certificate")?;
        if c.is_empty() {
            return Err(Fatal::decode("Certificate: empty certificate"));
        }
        out.push(c);
    }
    Ok(out)
}

/// ECParameters ‖ ECPoint of SM2: 03 0029 41 04‖x‖y.
pub(crate) fn encode_ec_params(point: &[u8; 65]) -> Vec<u8> {
    let mut b = vec![NAMED_CURVE];
    put_u16(&mut b, CURVE_SM2);
    put_vec8(&mut b, point);
    b
}

/// The point of an SM2 ECParameters ‖ ECPoint, and the bytes it took.
pub(crate) fn parse_ec_params<'a>(r: &mut Reader<'a>) -> HsResult<&'a [u8]> {
    let t = r.u8("curve_type")?;
    let c = r.u16("named_curve")?;
    if t != NAMED_CURVE || c != CURVE_SM2 {
        return Err(Fatal::new(
            ILLEGAL_PARAMETER,
            format!("ECDHE parameters: expected named curve SM2 (3, 0x0029), got ({t}, 0x{c:04x})"),
        ));
    }
    let p = r.vec8("point")?;
    if p.len() != 65 || p[0] != 4 {
        return Err(Fatal::new(ILLEGAL_PARAMETER, "ECDHE parameters: the point must be 65 bytes, uncompressed"));
    }
    Ok(p)
}

/// A CertificateRequest naming `authorities` (DER Names), as Tongsuo
/// writes it: certificate_types {rsa_sign, ecdsa_sign}. Names that would
/// overflow the 2-byte list length are left out (the first ones stay).
pub(crate) fn encode_certificate_request(authorities: &[&[u8]]) -> Vec<u8> {
    let mut b = Vec::new();
    put_vec8(&mut b, &[CERT_TYPE_RSA_SIGN, CERT_TYPE_ECDSA_SIGN]);
    let mut names = Vec::new();
    for n in authorities {
        if names.len() + 2 + n.len() > usize::from(u16::MAX) {
            break;
        }
        put_vec16(&mut names, n);
    }
    put_vec16(&mut b, &names);
    handshake(CERTIFICATE_REQUEST, &b)
}

/// Checks a CertificateRequest's framing (we answer with what we have).
/// The certificate_types of a CertificateRequest (the names are checked
/// for shape only).
pub(crate) fn parse_certificate_request(body: &[u8]) -> HsResult<&[u8]> {
    let mut r = Reader::new(body, "CertificateRequest");
    let types = r.vec8("certificate_types")?;
    let mut cas = Reader::new(r.vec16("certificate_authorities")?, "CertificateRequest");
    while !cas.is_empty() {
        cas.vec16("distinguished name")?;
    }
    r.end()?;
    Ok(types)
}
