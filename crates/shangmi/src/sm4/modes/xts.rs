//! SM4-XTS (GB/T 17964-2021 and IEEE 1619 tweak rules) with ciphertext
//! stealing; a child of `modes` for its chunking and XOR helpers.

use zeroize::Zeroize;

use super::{xor_in, CHUNK};
use crate::sm4::{Sm4, BLOCK_SIZE};
use crate::{Error, Result};

/// Which rule updates the XTS tweak from one block to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XtsStandard {
    /// GB/T 17964-2021: multiply by x in GCM's bit-reflected big-endian
    /// representation (reduction 0xE1).
    Gb,
    /// IEEE Std 1619: little-endian multiply by x (reduction 0x87).
    Ieee,
}

impl XtsStandard {
    /// The standard named `"gb"` or `"ieee"`; anything else is an
    /// [`Error::InvalidInput`] naming the accepted values.
    pub fn from_name(name: &str) -> Result<XtsStandard> {
        match name {
            "gb" => Ok(XtsStandard::Gb),
            "ieee" => Ok(XtsStandard::Ieee),
            other => Err(Error::invalid(format!("XTS standard must be \"gb\" or \"ieee\", got {other:?}"))),
        }
    }
}

/// SM4-XTS with a 32-byte key (data key || tweak key) and ciphertext stealing.
#[derive(Debug, Clone)]
pub struct Xts {
    data: Sm4,
    tweak: Sm4,
    standard: XtsStandard,
}

impl Xts {
    /// Builds XTS from a 32-byte key (data key || tweak key).
    pub fn new(key: &[u8], standard: XtsStandard) -> Result<Xts> {
        if key.len() != 32 {
            return Err(Error::invalid_key(format!("SM4-XTS key must be 32 bytes, got {}", key.len())));
        }
        // IEEE 1619 and SP 800-38E refuse equal halves (constant-time compare, one public bit).
        let equal = subtle::ConstantTimeEq::ct_eq(&key[..16], &key[16..]);
        if crate::ctime::public_bool(equal) {
            return Err(Error::invalid_key("SM4-XTS key halves must differ (IEEE 1619, SP 800-38E)"));
        }
        Ok(Xts { data: Sm4::from_slice(&key[..16])?, tweak: Sm4::from_slice(&key[16..])?, standard })
    }

    fn next(&self, t: u128) -> u128 {
        match self.standard {
            XtsStandard::Gb => {
                // Big-endian value; "multiply by x" is a right shift with 0xE1 feedback.
                let mask = 0u128.wrapping_sub(t & 1);
                (t >> 1) ^ (mask & (0xE1u128 << 120))
            }
            XtsStandard::Ieee => {
                let mask = 0u128.wrapping_sub(t >> 127);
                (t << 1) ^ (mask & 0x87)
            }
        }
    }

    fn load(&self, b: &[u8; 16]) -> u128 {
        match self.standard {
            XtsStandard::Gb => u128::from_be_bytes(*b),
            XtsStandard::Ieee => u128::from_le_bytes(*b),
        }
    }

    fn store(&self, t: u128) -> [u8; 16] {
        match self.standard {
            XtsStandard::Gb => t.to_be_bytes(),
            XtsStandard::Ieee => t.to_le_bytes(),
        }
    }

    /// Encrypts `data` (at least 16 bytes) in place under the 16-byte `tweak`.
    pub fn encrypt_in_place(&self, tweak: &[u8; 16], data: &mut [u8]) -> Result<()> {
        self.run(tweak, data, true)
    }

    /// Decrypts `data` (at least 16 bytes) in place under the 16-byte `tweak`.
    pub fn decrypt_in_place(&self, tweak: &[u8; 16], data: &mut [u8]) -> Result<()> {
        self.run(tweak, data, false)
    }

    fn run(&self, tweak: &[u8; 16], data: &mut [u8], enc: bool) -> Result<()> {
        if data.len() < BLOCK_SIZE {
            return Err(Error::invalid(format!("SM4-XTS data must be at least 16 bytes, got {}", data.len())));
        }
        let mut t0 = *tweak;
        self.tweak.encrypt_block(&mut t0);
        let mut t = self.load(&t0);
        t0.zeroize();
        let rem = data.len() % BLOCK_SIZE;
        // With stealing, the last whole block is handled together with the tail.
        let bulk = if rem == 0 { data.len() } else { data.len() - rem - BLOCK_SIZE };
        let mut tw = [0u8; CHUNK];
        for chunk in data[..bulk].chunks_mut(CHUNK) {
            for tb in tw[..chunk.len()].chunks_exact_mut(BLOCK_SIZE) {
                tb.copy_from_slice(&self.store(t));
                t = self.next(t);
            }
            let tw = &tw[..chunk.len()];
            xor_in(chunk, tw);
            if enc {
                self.data.encrypt_blocks(chunk);
            } else {
                self.data.decrypt_blocks(chunk);
            }
            xor_in(chunk, tw);
        }
        tw.zeroize();
        if rem != 0 {
            let tail = &mut data[bulk..];
            let t1 = self.store(t);
            let t2 = self.store(self.next(t));
            // Encryption uses tweaks (t1, t2) for (last whole, stolen) blocks;
            // decryption must undo the stolen block first, so it swaps them.
            let (ta, tb) = if enc { (t1, t2) } else { (t2, t1) };
            let mut cc = [0u8; 16];
            cc.copy_from_slice(&tail[..BLOCK_SIZE]);
            self.xex(&mut cc, &ta, enc);
            let mut pp = [0u8; 16];
            pp[..rem].copy_from_slice(&tail[BLOCK_SIZE..]);
            pp[rem..].copy_from_slice(&cc[rem..]);
            self.xex(&mut pp, &tb, enc);
            tail[BLOCK_SIZE..].copy_from_slice(&cc[..rem]);
            tail[..BLOCK_SIZE].copy_from_slice(&pp);
            cc.zeroize();
            pp.zeroize();
        }
        Ok(())
    }

    fn xex(&self, b: &mut [u8; 16], t: &[u8; 16], enc: bool) {
        xor_in(b, t);
        if enc {
            self.data.encrypt_block(b);
        } else {
            self.data.decrypt_block(b);
        }
        xor_in(b, t);
    }
}
