//! Fixed SM4 workload for `perf stat -e cycles` comparisons of kernel
//! changes (CPU cycles are steadier than wall time on a shared machine).
//! Usage: sm4_cycles [ecb|ctr|cbcenc|gcm] [MiB]

use shangmi::sm4::{self, Gcm, Sm4};

fn main() {
    let mut args = std::env::args().filter(|a| a != "--bench").skip(1);
    let what = args.next().unwrap_or_else(|| "ecb".into());
    let mib: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(256);
    let c = Sm4::new(&[0x2b; 16]);
    let mut buf = vec![0x5au8; 1 << 20];
    let g = Gcm::with_cipher(c.clone(), 16);
    for _ in 0..mib {
        match what.as_str() {
            "ctr" => sm4::ctr_apply_in_place(&c, &[1; 16], &mut buf),
            "cbcenc" => {
                let _ = sm4::cbc_encrypt_into(&c, &[1; 16], &buf[..1 << 16], false, &mut vec![0; 1 << 16]);
            }
            "gcm" => {
                let _ = g.encrypt_in_place_detached(&[1; 12], b"", &mut buf);
            }
            _ => c.encrypt_blocks(&mut buf),
        }
    }
    println!("{}", buf[0]);
}
