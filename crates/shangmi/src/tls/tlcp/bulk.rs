//! Application data in runs of records: a large write is sealed, and the
//! complete records a read brought in are opened, several at a time
//! ([`RecordCipher::seal_many`](super::record::RecordCipher::seal_many),
//! [`open_many`](super::record::RecordCipher::open_many)), because CBC
//! records are serial inside and only run at full speed side by side.
//! The bytes on the wire and the order of delivery and of errors are those
//! of one record at a time.

use zeroize::Zeroizing;

use std::collections::VecDeque;

use super::alert::{self, Fatal, HsResult};
use super::record::{RecordCipher, HEADER, MAX_CIPHERTEXT, MAX_PLAINTEXT};
use super::VERSION;

/// The record type of application data.
pub(super) const CT_APPLICATION_DATA: u8 = 23;

/// Records sealed or opened at once: one group of SM3's 16 lanes. It also
/// bounds the working memory of a large write and the network bytes the
/// engine buffers ahead (`Connection::read_tls` takes at most this many
/// records' worth, about 290 KiB).
pub(super) const BATCH: usize = 16;

/// A decrypted fragment over 2^14 bytes is a record_overflow.
pub(super) fn check_plaintext_len(len: usize) -> HsResult<()> {
    if len > MAX_PLAINTEXT {
        return Err(Fatal::new(alert::RECORD_OVERFLOW, "record overflow: decrypted fragment over 2^14 bytes"));
    }
    Ok(())
}

/// Opens the complete application-data records at the start of `inbuf`,
/// at most [`BATCH`], under `cipher` from sequence number `*seq`, and
/// appends their plaintexts to `plain_in` in order; stops at a record of
/// another type, one whose header the general path refuses (it is left to
/// that path), an incomplete one, or the first refused record, whose error
/// is returned after the records before it were delivered. Consumed
/// records leave `inbuf`. The caller has checked that the first record is
/// complete application data and the connection established.
pub(super) fn open_application_run(
    cipher: &RecordCipher,
    inbuf: &mut Vec<u8>,
    seq: &mut u64,
    plain_in: &mut VecDeque<u8>,
) -> HsResult<()> {
    let mut spans = Vec::new();
    let mut at = 0;
    while spans.len() < BATCH && inbuf.len() >= at + HEADER {
        let h = &inbuf[at..at + HEADER];
        let len = u16::from_be_bytes([h[3], h[4]]) as usize;
        let header_ok = h[0] == CT_APPLICATION_DATA && h[1..3] == VERSION.to_be_bytes() && len <= MAX_CIPHERTEXT;
        if !header_ok || inbuf.len() < at + HEADER + len {
            break;
        }
        spans.push((at + HEADER, len));
        at += HEADER + len;
    }
    let fragments: Vec<&[u8]> = spans.iter().map(|&(s, l)| &inbuf[s..s + l]).collect();
    let results = cipher.open_many(*seq, CT_APPLICATION_DATA, &fragments);
    let mut used = 0;
    let mut outcome = Ok(());
    for (r, &(s, l)) in results.into_iter().zip(&spans) {
        used = s + l;
        let plain = match r {
            Ok(p) => Zeroizing::new(p),
            Err(e) => {
                outcome = Err(Fatal { alert: alert::BAD_RECORD_MAC, error: e });
                break;
            }
        };
        *seq = seq.wrapping_add(1);
        if let Err(f) = check_plaintext_len(plain.len()) {
            outcome = Err(f);
            break;
        }
        plain_in.extend(plain.iter());
    }
    inbuf.drain(..used);
    outcome
}
