//! The NEON one-message kernel (`neon.rs`) through the hasher, against
//! the standard's examples and the portable kernel (a module of its own,
//! so that the kernels' modules do not name the dispatcher).

use crate::cpu::Token;
use crate::sm3::compress::Kernel;
use crate::sm3::Sm3;

fn neon() -> Option<Kernel> {
    crate::cpu::Neon::get().map(Kernel::Neon)
}

/// GB/T 32905-2016's two examples (Appendix A), through the hasher.
#[test]
fn standard_examples() {
    let Some(k) = neon() else { return };
    let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(
        hex(Sm3::with_kernel(k).chain(b"abc").finalize()),
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    );
    assert_eq!(
        hex(Sm3::with_kernel(k).chain(&b"abcd".repeat(16)).finalize()),
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    );
}

/// Every length from 0 to 300 bytes and around the block multiples up
/// to 20 blocks (the one/two padding-block boundary at 55/56 and each
/// multiple of 64), on random data, against the portable kernel.
#[test]
fn every_length_around_block_boundaries_equals_portable() {
    let Some(k) = neon() else { return };
    let mut next = crate::test_rng(0x5eed_0a64_5a3e_0001);
    let data: Vec<u8> = (0..64 * 21).map(|_| next() as u8).collect();
    let lens = (0..=300).chain((5..=20).flat_map(|b| [64 * b - 9, 64 * b - 8, 64 * b - 1, 64 * b, 64 * b + 1]));
    for len in lens {
        let want = Sm3::with_kernel(Kernel::Portable).chain(&data[..len]).finalize();
        assert_eq!(Sm3::with_kernel(k).chain(&data[..len]).finalize(), want, "{len} bytes");
    }
}
