//! PEM (RFC 7468) reading and writing, including the RFC 1421 headers
//! (`Proc-Type`, `DEK-Info`) that OpenSSL's legacy encrypted keys carry,
//! which strict RFC 7468 parsers refuse.

use base64ct::{Base64, Encoding};
use zeroize::Zeroizing;

use crate::{Error, Result};

/// One decoded PEM block.
#[derive(Debug)]
pub struct PemBlock {
    /// The label between `-----BEGIN ` and `-----`, e.g. `PRIVATE KEY`.
    pub label: String,
    /// RFC 1421 headers (`Name: value`) in order of appearance.
    pub headers: Vec<(String, String)>,
    /// The base64-decoded body (zeroized on drop: it may be a private key).
    pub der: Zeroizing<Vec<u8>>,
}

impl PemBlock {
    /// The value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Whether `data` looks like PEM text rather than DER.
pub fn is_pem(data: &[u8]) -> bool {
    find(data, b"-----BEGIN ").is_some()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn text(data: &[u8]) -> Result<&str> {
    std::str::from_utf8(data).map_err(|_| Error::invalid("PEM data is not valid UTF-8 text"))
}

fn only_whitespace(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// Decodes exactly one PEM block: only whitespace may surround it. Text
/// before or after it, or a second block, is an error (a file with two keys
/// must not silently give the first; read bundles with [`decode_all`]).
pub fn decode(data: &[u8]) -> Result<PemBlock> {
    let mut blocks = decode_all(data)?;
    match blocks.len() {
        1 => Ok(blocks.remove(0)),
        n => Err(Error::invalid(format!("expected one PEM block, found {n}; read bundles with the *_all functions"))),
    }
}

/// Decodes exactly one PEM block, after any number of `... PARAMETERS`
/// blocks: `openssl ecparam -genkey` writes an `SM2 PARAMETERS` block before
/// the key. Otherwise as strict as [`decode`].
pub fn decode_skipping_parameters(data: &[u8]) -> Result<PemBlock> {
    let mut blocks = decode_all(data)?;
    blocks.retain(|b| !b.label.ends_with(" PARAMETERS"));
    match blocks.len() {
        1 => Ok(blocks.remove(0)),
        n => Err(Error::invalid(format!("expected one PEM block, found {n}; read bundles with the *_all functions"))),
    }
}

/// Decodes every PEM block of a bundle, in order; only whitespace may come
/// before, between and after them, and there must be at least one.
pub fn decode_all(data: &[u8]) -> Result<Vec<PemBlock>> {
    let mut rest = text(data)?;
    let mut blocks = Vec::new();
    loop {
        let start = rest.find("-----BEGIN ");
        let before = &rest[..start.unwrap_or(rest.len())];
        if !only_whitespace(before) {
            // The text itself is not echoed: it may be part of a secret.
            let what = if blocks.is_empty() { "before" } else { "after" };
            return Err(Error::invalid(format!(
                "unexpected text {what} the PEM block (only whitespace may surround a PEM block)"
            )));
        }
        let Some(start) = start else { break };
        let (block, after) = decode_str(&rest[start..])?;
        blocks.push(block);
        rest = after;
    }
    if blocks.is_empty() {
        return Err(Error::invalid("no PEM block found (missing '-----BEGIN ')"));
    }
    Ok(blocks)
}

/// The first block in `text` and the text after it.
fn decode_str(text: &str) -> Result<(PemBlock, &str)> {
    let start = text.find("-----BEGIN ").ok_or_else(|| Error::invalid("no PEM block found (missing '-----BEGIN ')"))?;
    let rest = &text[start + "-----BEGIN ".len()..];
    let end_label = rest.find("-----").ok_or_else(|| Error::invalid("malformed PEM BEGIN line"))?;
    let label = &rest[..end_label];
    if label.contains('\n') || label.contains('\r') {
        return Err(Error::invalid("malformed PEM BEGIN line"));
    }
    let body_and_rest = &rest[end_label + 5..];
    let end_marker = format!("-----END {label}-----");
    let body_end = body_and_rest
        .find(&end_marker)
        .ok_or_else(|| Error::invalid(format!("PEM block '{label}' has no matching '{end_marker}' line")))?;
    let body = &body_and_rest[..body_end];
    let after = &body_and_rest[body_end + end_marker.len()..];

    let mut headers = Vec::new();
    let mut b64 = Zeroizing::new(String::new());
    let mut in_headers = true;
    for line in body.lines() {
        let line = line.trim();
        if line.is_empty() {
            // A blank line after headers ends the RFC 1421 header section.
            if !headers.is_empty() {
                in_headers = false;
            }
            continue;
        }
        if in_headers && b64.is_empty() {
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
                continue;
            }
        }
        in_headers = false;
        b64.push_str(line);
    }
    let der = Base64::decode_vec(&b64)
        .map_err(|_| Error::invalid(format!("PEM block '{label}' has invalid base64 content")))?;
    Ok((PemBlock { label: label.to_string(), headers, der: Zeroizing::new(der) }, after))
}

/// Encodes `der` as PEM with 64-character lines and the given headers.
pub fn encode(label: &str, headers: &[(&str, &str)], der: &[u8]) -> Zeroizing<String> {
    let b64 = Zeroizing::new(Base64::encode_string(der));
    let mut out = Zeroizing::new(String::with_capacity(b64.len() + b64.len() / 64 + 64 + 2 * label.len()));
    out.push_str("-----BEGIN ");
    out.push_str(label);
    out.push_str("-----\n");
    if !headers.is_empty() {
        for (k, v) in headers {
            out.push_str(k);
            out.push_str(": ");
            out.push_str(v);
            out.push('\n');
        }
        out.push('\n');
    }
    for chunk in b64.as_bytes().chunks(64) {
        // base64 output is ASCII, so every chunk is valid UTF-8.
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out.push_str("-----END ");
    out.push_str(label);
    out.push_str("-----\n");
    out
}
