# Type stubs for the Rust extension module shangmi._native.
# One section per algorithm; keep each section next to its binding file
# (crates/shangmi-python/src/<algorithm>.rs).

from typing import Union

_Buffer = Union[bytes, bytearray, memoryview]

# --- sm3 (crates/shangmi-python/src/sm3.rs) ---------------------------------

class Sm3Hasher:
    def __init__(self) -> None: ...
    def update(self, data: _Buffer) -> None: ...
    def digest(self) -> bytes: ...
    def copy(self) -> Sm3Hasher: ...

def sm3_hash(data: _Buffer) -> bytes: ...
def sm3_hmac(key: _Buffer, data: _Buffer) -> bytes: ...
def sm3_kdf(z: _Buffer, length: int) -> bytes: ...

# --- sm4 (crates/shangmi-python/src/sm4.rs) ---------------------------------

# --- zuc (crates/shangmi-python/src/zuc.rs) ---------------------------------

# --- sm2 (crates/shangmi-python/src/sm2.rs) ---------------------------------
