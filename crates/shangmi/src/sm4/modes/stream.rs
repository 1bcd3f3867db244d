//! One streaming context for every streaming SM4 mode (CBC, CTR, GCM), with
//! the state machine the Python binding exposes: `update` any number of
//! times, then exactly one successful `finalize` (or `finalize_with_tag`
//! for a GCM decryptor created without its tag); any call after that is
//! [`Error::AlreadyFinalized`]. A failed tag check also ends the stream.

use super::gcm::{Gcm, GcmDecryptor, GcmEncryptor};
use super::{CbcDecryptor, CbcEncryptor, CtrStream};
use crate::sm4::Sm4;
use crate::{Error, Result};

enum Kind {
    CbcEnc(CbcEncryptor),
    CbcDec(CbcDecryptor),
    Ctr(CtrStream),
    GcmEnc(GcmEncryptor),
    /// The tag, when given at creation (else `finalize_with_tag` supplies it).
    GcmDec(GcmDecryptor, Option<Vec<u8>>),
}

/// A streaming SM4 context; see the module documentation for its states.
pub struct Stream {
    kind: Option<Kind>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").field("finalized", &self.kind.is_none()).finish_non_exhaustive()
    }
}

/// `what` as a 16-byte block, or [`Error::InvalidInput`] naming its length.
pub fn block16(bytes: &[u8], what: &str) -> Result<[u8; 16]> {
    bytes.try_into().map_err(|_| Error::invalid(format!("{what} must be 16 bytes, got {}", bytes.len())))
}

impl Stream {
    fn new(k: Kind) -> Stream {
        Stream { kind: Some(k) }
    }

    /// CBC encryption under `iv` (16 bytes, else [`Error::InvalidInput`]),
    /// PKCS#7-padded at `finalize` when `padding`.
    pub fn cbc_encryptor(cipher: &Sm4, iv: &[u8], padding: bool) -> Result<Stream> {
        Ok(Stream::new(Kind::CbcEnc(CbcEncryptor::new(cipher.clone(), &block16(iv, "IV")?, padding))))
    }

    /// CBC decryption under `iv` (16 bytes), padding checked and removed at
    /// `finalize` when `padding`.
    pub fn cbc_decryptor(cipher: &Sm4, iv: &[u8], padding: bool) -> Result<Stream> {
        Ok(Stream::new(Kind::CbcDec(CbcDecryptor::new(cipher.clone(), &block16(iv, "IV")?, padding))))
    }

    /// CTR from the 16-byte initial counter block `iv` (128-bit counter).
    pub fn ctr(cipher: &Sm4, iv: &[u8]) -> Result<Stream> {
        Ok(Stream::new(Kind::Ctr(CtrStream::new(cipher.clone(), &block16(iv, "IV")?))))
    }

    /// GCM encryption; `finalize` returns the tag.
    pub fn gcm_encryptor(gcm: &Gcm, nonce: &[u8], aad: &[u8]) -> Result<Stream> {
        Ok(Stream::new(Kind::GcmEnc(gcm.encryptor(nonce, aad)?)))
    }

    /// GCM decryption. With `tag` (exactly the cipher's tag length, else
    /// [`Error::InvalidInput`]), `finalize` checks it; without, the caller
    /// must end with `finalize_with_tag`. `update` returns plaintext before
    /// the tag is checked: callers discard it if the check fails.
    pub fn gcm_decryptor(gcm: &Gcm, nonce: &[u8], tag: Option<&[u8]>, aad: &[u8]) -> Result<Stream> {
        if let Some(t) = tag {
            if t.len() != gcm.tag_len() {
                return Err(Error::invalid(format!("GCM tag must be {} bytes, got {}", gcm.tag_len(), t.len())));
            }
        }
        let d = gcm.decryptor(nonce, aad)?;
        Ok(Stream::new(Kind::GcmDec(d, tag.map(<[u8]>::to_vec))))
    }

    fn live(&mut self) -> Result<&mut Kind> {
        self.kind.as_mut().ok_or(Error::AlreadyFinalized)
    }

    /// Processes the next piece: CTR and GCM return as many bytes as given;
    /// CBC returns the whole blocks completed so far (decryption with
    /// padding holds the last one back for `finalize`).
    pub fn update(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        Ok(match self.live()? {
            Kind::CbcEnc(e) => e.update(data),
            Kind::CbcDec(d) => d.update(data),
            Kind::Ctr(c) => {
                let mut v = data.to_vec();
                c.apply(&mut v);
                v
            }
            Kind::GcmEnc(e) => {
                let mut v = data.to_vec();
                e.update_in_place(&mut v)?;
                v
            }
            Kind::GcmDec(d, _) => {
                let mut v = data.to_vec();
                d.update_in_place(&mut v)?;
                v
            }
        })
    }

    /// Ends the stream: CBC returns its last block(s), CTR nothing, GCM
    /// encryption the tag, GCM decryption nothing after checking the tag
    /// given at creation ([`Error::InvalidTag`] if it does not match). A GCM
    /// decryptor created without a tag is an [`Error::InvalidInput`] here
    /// and stays usable for `finalize_with_tag`.
    pub fn finalize(&mut self) -> Result<Vec<u8>> {
        if let Some(Kind::GcmDec(_, None)) = self.kind {
            return Err(Error::invalid("this GCM decryptor was created without a tag: call finalize_with_tag(tag)"));
        }
        match self.kind.take().ok_or(Error::AlreadyFinalized)? {
            Kind::CbcEnc(e) => e.finalize(),
            Kind::CbcDec(d) => d.finalize(),
            Kind::Ctr(_) => Ok(Vec::new()),
            Kind::GcmEnc(e) => Ok(e.finalize()),
            Kind::GcmDec(d, tag) => d.finalize(tag.as_deref().unwrap_or_default()).map(|()| Vec::new()),
        }
    }

    /// Ends a GCM decryptor created without a tag by checking `tag` in
    /// constant time ([`Error::InvalidTag`] on mismatch, wrong length
    /// included). Any other live stream is an [`Error::InvalidInput`] and
    /// stays usable.
    pub fn finalize_with_tag(&mut self, tag: &[u8]) -> Result<()> {
        match self.kind {
            None => Err(Error::AlreadyFinalized),
            Some(Kind::GcmDec(_, None)) => match self.kind.take() {
                Some(Kind::GcmDec(d, None)) => d.finalize(tag),
                _ => Err(Error::AlreadyFinalized),
            },
            Some(_) => Err(Error::invalid("finalize_with_tag is only for GCM decryptors created without a tag")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_machine() {
        let c = Sm4::new(&[7; 16]);
        let g = Gcm::new(&[7; 16], 16).unwrap();
        let mut s = Stream::cbc_encryptor(&c, &[0; 16], true).unwrap();
        assert_eq!(s.update(b"0123456789abcdef0").unwrap().len(), 16);
        assert_eq!(s.finalize().unwrap().len(), 16);
        assert_eq!(s.finalize().unwrap_err(), Error::AlreadyFinalized);
        assert_eq!(s.update(b"x").unwrap_err(), Error::AlreadyFinalized);
        assert!(Stream::ctr(&c, &[0; 15]).unwrap_err().to_string().contains("IV must be 16 bytes, got 15"));

        let mut e = Stream::gcm_encryptor(&g, &[1; 12], b"aad").unwrap();
        let ct = e.update(b"hello").unwrap();
        let tag = e.finalize().unwrap();
        assert!(Stream::gcm_decryptor(&g, &[1; 12], Some(&tag[..15]), b"aad").is_err());

        let mut d = Stream::gcm_decryptor(&g, &[1; 12], None, b"aad").unwrap();
        assert_eq!(d.update(&ct).unwrap(), b"hello");
        assert!(d.finalize().unwrap_err().to_string().contains("without a tag"));
        d.finalize_with_tag(&tag).unwrap();
        assert_eq!(d.finalize_with_tag(&tag).unwrap_err(), Error::AlreadyFinalized);

        let mut d = Stream::gcm_decryptor(&g, &[1; 12], Some(&tag), b"aad").unwrap();
        d.update(&ct).unwrap();
        assert!(d.finalize_with_tag(&tag).unwrap_err().to_string().contains("only for GCM decryptors"));
        assert_eq!(d.finalize().unwrap(), b"");

        let mut bad = tag.clone();
        bad[0] ^= 1;
        let mut d = Stream::gcm_decryptor(&g, &[1; 12], Some(&bad), b"aad").unwrap();
        d.update(&ct).unwrap();
        assert_eq!(d.finalize().unwrap_err(), Error::InvalidTag);
        assert_eq!(d.finalize().unwrap_err(), Error::AlreadyFinalized);
    }
}
