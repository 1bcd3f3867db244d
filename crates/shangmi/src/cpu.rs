//! CPU features, detected once for the whole library, and the one override.
//!
//! Every backend choice in shangmi goes through this module: a backend asks
//! for a *token* (a zero-sized value such as [`Adx`] or [`AesAvx512`]) that
//! can only be obtained when every feature it needs was detected, and the
//! backend's `unsafe` entry points take the token as proof. No other module
//! calls `is_x86_feature_detected!` or reads the environment.
//!
//! The environment variable `SHANGMI_CPU_DISABLE` (read once, on first use)
//! masks features as if the CPU lacked them: a comma-separated list of the
//! names in [`Feature::name`] (case-insensitive, spaces ignored), or `all`
//! for the portable code everywhere. It exists so one machine can test and
//! benchmark every backend below its best. A value that does not parse is
//! never a panic: the library falls back to the portable code everywhere
//! (the safest choice) and [`status`] returns the error, which the Python
//! package raises at import.

use std::sync::OnceLock;

use crate::{Error, Result};

/// The name of the masking variable.
pub const DISABLE_VAR: &str = "SHANGMI_CPU_DISABLE";

/// Longest accepted `SHANGMI_CPU_DISABLE` value (a hostile environment must
/// not make the first call slow).
const MAX_MASK_LEN: usize = 1024;

macro_rules! features {
    (
        $($(#[$doc:meta])* $variant:ident = $name:literal, $detect:tt;)*
        @aarch64
        $($(#[$adoc:meta])* $avariant:ident = $aname:literal, $adetect:tt;)*
    ) => {
        /// A CPU feature a backend may need.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Feature {
            $($(#[$doc])* $variant,)*
            $($(#[$adoc])* $avariant,)*
        }

        impl Feature {
            /// Every feature, in detection order.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant,)* $(Feature::$avariant,)*];

            /// The lowercase name used by `SHANGMI_CPU_DISABLE` and
            /// [`Features::names`] (Linux's `/proc/cpuinfo` spelling).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Feature::$variant => $name,)*
                    $(Feature::$avariant => $aname,)*
                }
            }

            #[cfg(target_arch = "x86_64")]
            fn detect(self) -> bool {
                match self {
                    $(Feature::$variant => std::arch::is_x86_feature_detected!($detect),)*
                    _ => false,
                }
            }

            /// On aarch64: the features of the `@aarch64` list, and AES
            /// (one name for the AES instructions of either family).
            #[cfg(target_arch = "aarch64")]
            fn detect(self) -> bool {
                match self {
                    Feature::Aes => std::arch::is_aarch64_feature_detected!("aes"),
                    $(Feature::$avariant => std::arch::is_aarch64_feature_detected!($adetect),)*
                    _ => false,
                }
            }
        }
    };
}

features! {
    /// SSSE3 (`pshufb`).
    Ssse3 = "ssse3", "ssse3";
    /// SSE4.1.
    Sse41 = "sse4_1", "sse4.1";
    /// AES-NI.
    Aes = "aes", "aes";
    /// Carry-less multiplication on 128-bit registers.
    Pclmulqdq = "pclmulqdq", "pclmulqdq";
    /// AVX (256-bit float registers, VEX encoding).
    Avx = "avx", "avx";
    /// AVX2 (256-bit integer SIMD).
    Avx2 = "avx2", "avx2";
    /// BMI1 (`andn`).
    Bmi1 = "bmi1", "bmi1";
    /// BMI2 (`mulx`, `rorx`).
    Bmi2 = "bmi2", "bmi2";
    /// ADX (`adcx`, `adox`).
    Adx = "adx", "adx";
    /// AVX-512 Foundation.
    Avx512f = "avx512f", "avx512f";
    /// AVX-512 byte and word instructions.
    Avx512bw = "avx512bw", "avx512bw";
    /// AVX-512 on 128/256-bit registers.
    Avx512vl = "avx512vl", "avx512vl";
    /// AVX-512 doubleword and quadword instructions.
    Avx512dq = "avx512dq", "avx512dq";
    /// AVX-512 52-bit integer multiply-add.
    Avx512ifma = "avx512ifma", "avx512ifma";
    /// Galois-field affine instructions (`gf2p8affineqb`).
    Gfni = "gfni", "gfni";
    /// AES on 256/512-bit registers.
    Vaes = "vaes", "vaes";
    /// Carry-less multiplication on 256/512-bit registers.
    Vpclmulqdq = "vpclmulqdq", "vpclmulqdq";
    /// SHA extensions.
    Sha = "sha_ni", "sha";
    // aarch64 (Linux's `/proc/cpuinfo` names; `aes` above is detected on
    // both families). Rust's `sm4` feature is FEAT_SM3 and FEAT_SM4
    // together, so both names are detected through it and masked apart.
    @aarch64
    /// Advanced SIMD (baseline on aarch64, maskable for the tests).
    Neon = "neon", "neon";
    /// 64x64 carry-less multiplication (`PMULL`/`PMULL2`).
    Pmull = "pmull", "pmull";
    /// The SM3 instructions (`SM3SS1`, `SM3TT1A`..., `SM3PARTW1/2`).
    Sm3 = "sm3", "sm4";
    /// The SM4 instructions (`SM4E`, `SM4EKEY`).
    Sm4 = "sm4", "sm4";
    /// SHA-3 instructions (`EOR3`, `RAX1`, `XAR`, `BCAX`).
    Sha3 = "sha3", "sha3";
}

/// A set of features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features(u32);

impl Features {
    /// The empty set.
    pub const NONE: Features = Features(0);

    const fn bit(f: Feature) -> u32 {
        1 << (f as u8)
    }

    /// Every feature in [`Feature::ALL`].
    pub fn all() -> Features {
        Feature::ALL.iter().fold(Features::NONE, |s, &f| s.with(f))
    }

    /// Whether `f` is in the set.
    pub const fn has(self, f: Feature) -> bool {
        self.0 & Self::bit(f) != 0
    }

    /// Whether every feature of `fs` is in the set.
    pub fn has_all(self, fs: &[Feature]) -> bool {
        fs.iter().all(|&f| self.has(f))
    }

    /// The set with `f` added.
    pub const fn with(self, f: Feature) -> Features {
        Features(self.0 | Self::bit(f))
    }

    /// The features of `self` not in `other`.
    pub const fn without(self, other: Features) -> Features {
        Features(self.0 & !other.0)
    }

    /// The names of the features in the set, in [`Feature::ALL`] order.
    pub fn names(self) -> Vec<&'static str> {
        Feature::ALL.iter().filter(|&&f| self.has(f)).map(|f| f.name()).collect()
    }
}

/// Parses a `SHANGMI_CPU_DISABLE` value into the set of features it masks.
///
/// Accepts feature names separated by commas (spaces around them ignored,
/// empty items skipped, case-insensitive) and `all`. An unknown name, or a
/// value over 1024 bytes, is an [`Error::InvalidInput`] naming it and the
/// accepted names.
pub fn parse_mask(value: &str) -> Result<Features> {
    if value.len() > MAX_MASK_LEN {
        return Err(Error::InvalidInput(format!(
            "{DISABLE_VAR} is {} bytes long; expected at most {MAX_MASK_LEN}",
            value.len()
        )));
    }
    let mut mask = Features::NONE;
    for item in value.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if item.eq_ignore_ascii_case("all") {
            mask = Features::all();
            continue;
        }
        // "sse4.1" and "sha" (Rust's spelling) are accepted as well.
        let f = Feature::ALL.iter().copied().find(|f| {
            item.eq_ignore_ascii_case(f.name())
                || (*f == Feature::Sse41 && item.eq_ignore_ascii_case("sse4.1"))
                || (*f == Feature::Sha && item.eq_ignore_ascii_case("sha"))
        });
        match f {
            Some(f) => mask = mask.with(f),
            None => {
                let shown: String = item.chars().take(40).flat_map(char::escape_default).collect();
                return Err(Error::InvalidInput(format!(
                    "{DISABLE_VAR}: unknown CPU feature '{shown}'; expected a comma-separated list of {} or 'all'",
                    Feature::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
                )));
            }
        }
    }
    Ok(mask)
}

struct State {
    detected: Features,
    masked: Features,
    error: Option<Error>,
}

fn detect() -> Features {
    #[cfg(target_arch = "x86_64")]
    {
        #[cfg_attr(not(feature = "ctime"), allow(unused_mut))]
        let mut s = Feature::ALL.iter().filter(|f| f.detect()).fold(Features::NONE, |s, &f| s.with(f));
        // Valgrind's synthetic CPUID hides BMI2 and ADX although valgrind
        // executes MULX/ADCX/ADOX; in `ctime` builds (the constant-time
        // harness, never the library proper) the kernel's view of the real
        // CPU adds them back so their paths can be checked too.
        #[cfg(feature = "ctime")]
        if let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") {
            let flags: Vec<&str> =
                info.lines().find(|l| l.starts_with("flags")).unwrap_or("").split_whitespace().collect();
            for f in [Feature::Bmi2, Feature::Adx] {
                if flags.contains(&f.name()) {
                    s = s.with(f);
                }
            }
        }
        s
    }
    #[cfg(target_arch = "aarch64")]
    {
        Feature::ALL.iter().filter(|f| f.detect()).fold(Features::NONE, |s, &f| s.with(f))
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Features::NONE
    }
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        let detected = detect();
        let (mask, error) = match std::env::var_os(DISABLE_VAR) {
            None => (Features::NONE, None),
            Some(v) => match v.to_str() {
                Some(s) => match parse_mask(s) {
                    Ok(m) => (m, None),
                    Err(e) => (Features::all(), Some(e)),
                },
                None => (Features::all(), Some(Error::InvalidInput(format!("{DISABLE_VAR} is not valid UTF-8")))),
            },
        };
        State { detected, masked: mask, error }
    })
}

/// The features the CPU has, before masking.
pub fn detected() -> Features {
    state().detected
}

/// The features the library may use: detected, minus `SHANGMI_CPU_DISABLE`.
#[inline]
pub fn features() -> Features {
    let s = state();
    s.detected.without(s.masked)
}

/// The features masked by `SHANGMI_CPU_DISABLE` (all of them if it did not
/// parse).
pub fn masked() -> Features {
    state().masked
}

/// `Err` if `SHANGMI_CPU_DISABLE` did not parse (the library then runs the
/// portable code everywhere).
pub fn status() -> Result<()> {
    match &state().error {
        None => Ok(()),
        Some(e) => Err(e.clone()),
    }
}

/// Whether the library may use `f`.
#[inline]
pub fn has(f: Feature) -> bool {
    features().has(f)
}

/// A capability token: a value of this trait's implementors exists only if
/// every feature in [`Token::NEEDS`] is usable, so a backend's `unsafe`
/// functions may rely on them when given one.
pub trait Token: Copy + core::fmt::Debug + Send + Sync + 'static {
    /// The features this token proves.
    const NEEDS: &'static [Feature];
    /// The token, if the library may use every feature in `NEEDS`.
    fn get() -> Option<Self>;
}

macro_rules! tokens {
    ($($(#[$doc:meta])* $name:ident = [$($f:ident),+];)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name(());

        impl Token for $name {
            const NEEDS: &'static [Feature] = &[$(Feature::$f),+];
            #[inline]
            fn get() -> Option<Self> {
                if features().has_all(Self::NEEDS) {
                    Some($name(()))
                } else {
                    None
                }
            }
        }
    )*};
}

tokens! {
    /// MULX with ADCX/ADOX: the Montgomery multiplication kernels.
    Adx = [Bmi2, Adx];
    /// BMI2 with AVX2 (scalar SM3 with `rorx`).
    Bmi2Avx2 = [Bmi2, Avx2];
    /// AVX2.
    Avx2 = [Avx, Avx2];
    /// AVX-512 F and VL.
    Avx512Vl = [Avx2, Avx512f, Avx512vl];
    /// AVX-512 F with IFMA (52-bit multiply-add: SM2's eight-lane comb).
    Ifma = [Avx2, Avx512f, Avx512ifma];
    /// AES-NI and PCLMULQDQ with SSSE3/SSE4.1 (128-bit SIMD).
    AesSse = [Ssse3, Sse41, Aes, Pclmulqdq];
    /// AES-NI and PCLMULQDQ with AVX2.
    AesAvx2 = [Ssse3, Sse41, Aes, Pclmulqdq, Avx, Avx2];
    /// AES-NI with AVX-512 F, BW and VL.
    AesAvx512 = [Ssse3, Sse41, Aes, Pclmulqdq, Avx, Avx2, Avx512f, Avx512bw, Avx512vl];
    /// PCLMULQDQ (GHASH, EIA3).
    Clmul = [Ssse3, Sse41, Pclmulqdq];
    /// GFNI with AVX2.
    GfniAvx2 = [Avx, Avx2, Gfni];
    /// GFNI with AVX-512 F, BW and VL.
    GfniAvx512 = [Avx, Avx2, Avx512f, Avx512bw, Avx512vl, Gfni];
    /// VAES with AVX2 (256-bit `vaesenclast`; SM4's AES-NI S-box on whole ymm registers).
    VaesAvx2 = [Ssse3, Sse41, Aes, Avx, Avx2, Vaes];
    /// VPCLMULQDQ with AVX2 (GHASH on 256-bit registers).
    ClmulAvx2 = [Ssse3, Sse41, Pclmulqdq, Avx, Avx2, Vpclmulqdq];
    /// VAES and VPCLMULQDQ with AVX-512 F, BW and VL.
    VaesAvx512 = [Ssse3, Sse41, Aes, Pclmulqdq, Avx, Avx2, Avx512f, Avx512bw, Avx512vl, Vaes, Vpclmulqdq];
    /// aarch64: Advanced SIMD alone (SM3's four-lane kernel).
    Neon = [Neon];
    /// aarch64: the SM4 instructions on NEON registers.
    Sm4Neon = [Neon, Sm4];
    /// aarch64: the SM3 instructions on NEON registers.
    Sm3Neon = [Neon, Sm3];
    /// aarch64: `AESE` on NEON registers (SM4 through the AES S-box).
    AesNeon = [Neon, Aes];
    /// aarch64: `PMULL`/`PMULL2` (Rust enables them with the `aes` target
    /// feature, so AES is required too).
    PmullNeon = [Neon, Aes, Pmull];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_all_and_spacing() {
        assert_eq!(parse_mask("").unwrap(), Features::NONE);
        assert_eq!(parse_mask(" , ,").unwrap(), Features::NONE);
        let m = parse_mask(" AVX512F , gfni,,sse4.1").unwrap();
        assert!(m.has(Feature::Avx512f) && m.has(Feature::Gfni) && m.has(Feature::Sse41));
        assert!(!m.has(Feature::Avx2));
        assert_eq!(parse_mask("all").unwrap(), Features::all());
        assert_eq!(parse_mask("adx,ALL").unwrap(), Features::all());
    }

    #[test]
    fn rejects_unknown_and_hostile_values() {
        for bad in ["avx1024", "avx2;rm -rf", "\u{0}", "all,nope", "avx2 avx512f"] {
            let e = parse_mask(bad).unwrap_err();
            assert!(e.to_string().contains("unknown CPU feature"), "{bad:?}: {e}");
        }
        let long = "avx2,".repeat(300);
        assert!(parse_mask(&long).unwrap_err().to_string().contains("at most"));
    }

    #[test]
    fn parses_the_aarch64_names() {
        let m = parse_mask("neon, AES,pmull,sm3,sm4,sha3").unwrap();
        for f in [Feature::Neon, Feature::Aes, Feature::Pmull, Feature::Sm3, Feature::Sm4, Feature::Sha3] {
            assert!(m.has(f), "{f:?}");
        }
        assert!(!m.has(Feature::Avx2));
        let m = parse_mask("sm4").unwrap();
        assert!(m.has(Feature::Sm4) && !m.has(Feature::Sm3));
        assert_eq!(Sm4Neon::get().is_some(), has(Feature::Neon) && has(Feature::Sm4));
        assert_eq!(PmullNeon::get().is_some(), features().has_all(&[Feature::Neon, Feature::Aes, Feature::Pmull]));
    }

    /// What the CPU reports lines up with the features of its family.
    #[test]
    fn detects_only_the_own_family() {
        let d = detected();
        #[cfg(target_arch = "aarch64")]
        {
            assert!(d.has(Feature::Neon), "NEON is baseline on aarch64");
            assert!(!d.has(Feature::Avx2) && !d.has(Feature::Ssse3));
        }
        #[cfg(target_arch = "x86_64")]
        assert!(!d.has(Feature::Neon) && !d.has(Feature::Sm4) && !d.has(Feature::Pmull));
        println!("detected: {:?}", d.names());
    }

    #[test]
    fn features_are_a_subset_of_detected() {
        assert_eq!(features().without(detected()), Features::NONE);
        assert_eq!(features().without(Features::all().without(masked())), Features::NONE);
    }

    #[test]
    fn tokens_follow_the_features() {
        assert_eq!(Adx::get().is_some(), has(Feature::Adx) && has(Feature::Bmi2));
        assert_eq!(AesAvx512::get().is_some(), features().has_all(AesAvx512::NEEDS));
        // A token that needs more features can only exist if the smaller one does.
        if AesAvx512::get().is_some() {
            assert!(AesAvx2::get().is_some() && AesSse::get().is_some());
        }
    }
}
