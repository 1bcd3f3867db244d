"""SM4 block cipher (GB/T 32907-2016) and its modes of operation."""
