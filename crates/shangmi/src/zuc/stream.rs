//! ZUC as a byte stream: [`Keystream`] (ZUC-128 and ZUC-256 keystreams).

use zeroize::Zeroize;

use super::core::State;
use super::kernel::Kernel;
use super::params::{key16, key32, zuc256_pack_iv, Alg, Checked, Message};
use super::spec;
use crate::{Error, Result};

/// A ZUC keystream as a byte stream: successive calls continue where the last
/// one stopped, whatever their sizes (a partial 32-bit word is buffered).
/// Keystream words are emitted big-endian, as the standards print them.
pub struct Keystream {
    state: State,
    pending: [u8; 4],
    /// Bytes of `pending` not yet handed out (they are its last ones).
    pending_len: usize,
}

impl std::fmt::Debug for Keystream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keystream").finish_non_exhaustive()
    }
}

impl Drop for Keystream {
    fn drop(&mut self) {
        self.pending.zeroize();
    }
}

impl Keystream {
    /// A byte stream over an initialised state.
    pub(crate) fn from_state(state: State) -> Keystream {
        Keystream { state, pending: [0; 4], pending_len: 0 }
    }

    /// The 128-EEA3 keystream of (key, COUNT, BEARER, DIRECTION) as a
    /// stream: [`xor`](Self::xor) over successive pieces of a message gives
    /// the bytes [`super::eea3`] gives for the whole message (all its bits).
    /// The parameters are checked as [`super::eea3`] checks them.
    pub fn eea3(key: &[u8], count: u64, bearer: u32, direction: u32) -> Result<Keystream> {
        let m = Message { key, count, bearer, direction, data: &[], length_bits: None };
        let c = Checked::new(&m, Alg::Eea3)?;
        Ok(Keystream::from_state(State::new_128(&c.key, &c.iv, Kernel::auto())))
    }

    /// ZUC-128 with a 16-byte key and 16-byte IV.
    pub fn zuc128(key: &[u8], iv: &[u8]) -> Result<Keystream> {
        Keystream::zuc128_on(Kernel::auto(), key, iv)
    }

    /// [`Keystream::zuc128`] on `kernel`.
    pub(crate) fn zuc128_on(kernel: Kernel, key: &[u8], iv: &[u8]) -> Result<Keystream> {
        let mut k = key16(key, "ZUC-128")?;
        let v: [u8; 16] =
            iv.try_into().map_err(|_| Error::invalid(format!("ZUC-128 IV must be 16 bytes, got {}", iv.len())))?;
        let state = State::new_128(&k, &v, kernel);
        k.zeroize();
        Ok(Keystream::from_state(state))
    }

    /// ZUC-256 with a 32-byte key and a 23- or 25-byte IV (see [`zuc256_pack_iv`]).
    pub fn zuc256(key: &[u8], iv: &[u8]) -> Result<Keystream> {
        Keystream::zuc256_on(Kernel::auto(), key, iv)
    }

    /// [`Keystream::zuc256`] on `kernel`.
    pub(crate) fn zuc256_on(kernel: Kernel, key: &[u8], iv: &[u8]) -> Result<Keystream> {
        let mut k = key32(key)?;
        let v = zuc256_pack_iv(iv)?;
        let state = State::new_256(&k, &v, &spec::D256_KEYSTREAM, kernel);
        k.zeroize();
        Ok(Keystream::from_state(state))
    }

    /// Writes the next `out.len()` keystream bytes.
    pub fn fill(&mut self, mut out: &mut [u8]) {
        if self.pending_len > 0 {
            let take = self.pending_len.min(out.len());
            let start = 4 - self.pending_len;
            out[..take].copy_from_slice(&self.pending[start..start + take]);
            self.pending_len -= take;
            out = &mut out[take..];
        }
        let mut words = [0u32; 256];
        while out.len() >= 4 {
            let n = (out.len() / 4).min(words.len());
            self.state.generate(&mut words[..n]);
            for (dst, w) in out.chunks_exact_mut(4).zip(&words[..n]) {
                dst.copy_from_slice(&w.to_be_bytes());
            }
            out = &mut out[4 * n..];
        }
        if !out.is_empty() {
            self.state.generate(&mut words[..1]);
            self.pending = words[0].to_be_bytes();
            let r = out.len();
            out.copy_from_slice(&self.pending[..r]);
            self.pending_len = 4 - r;
        }
        words.zeroize();
    }

    /// `dst = src ^` the next `src.len()` keystream bytes: successive calls
    /// continue the stream whatever their sizes, as [`fill`](Self::fill)
    /// does. `src` and `dst` must have the same length.
    pub fn xor(&mut self, mut src: &[u8], mut dst: &mut [u8]) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::invalid(format!(
                "keystream XOR needs input and output of the same length, got {} and {}",
                src.len(),
                dst.len()
            )));
        }
        let take = self.pending_len.min(src.len());
        let start = 4 - self.pending_len;
        for ((d, s), k) in dst.iter_mut().zip(src).zip(&self.pending[start..start + take]) {
            *d = s ^ k;
        }
        self.pending_len -= take;
        (src, dst) = (&src[take..], &mut dst[take..]);
        let whole = src.len() / 4 * 4;
        self.state.xor_be(&src[..whole], &mut dst[..whole]);
        if whole < src.len() {
            let mut w = [0u32; 1];
            self.state.generate(&mut w);
            self.pending = w[0].to_be_bytes();
            w.zeroize();
            let r = src.len() - whole;
            for ((d, s), k) in dst[whole..].iter_mut().zip(&src[whole..]).zip(&self.pending[..r]) {
                *d = s ^ k;
            }
            self.pending_len = 4 - r;
        }
        Ok(())
    }

    /// The next `out.len()` 32-bit words: the next 4·len bytes of [`fill`](Self::fill)
    /// read big-endian (exactly ZUC's words z1, z2, ... when no partial word is
    /// buffered).
    pub fn words(&mut self, out: &mut [u32]) {
        if self.pending_len == 0 {
            self.state.generate(out);
            return;
        }
        for w in out.iter_mut() {
            let mut b = [0u8; 4];
            self.fill(&mut b);
            *w = u32::from_be_bytes(b);
        }
    }
}
