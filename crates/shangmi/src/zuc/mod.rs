//! ZUC stream cipher (GB/T 33133): ZUC-128, ZUC-256, 128-EEA3, 128-EIA3.
