"""ZUC stream cipher: ZUC-128, ZUC-256, 128-EEA3 and 128-EIA3."""
