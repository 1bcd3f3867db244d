"""Batch calls after fork(): the native thread pool is rebuilt in the child.

Before, a child forked after the parent's first batch call inherited a pool
whose threads did not exist and its first batch call never returned."""

from __future__ import annotations

import os
import sys

import pytest

import shangmi
from shangmi import sm2, sm3

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _in_child(work: str) -> int:
    """Runs `work` (a code string) in a forked child; its exit code, or -1 on a 30 s hang."""
    import signal
    import time

    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            exec(work, {})
            os._exit(0)
        except BaseException:
            os._exit(3)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


def test_hash_many_after_fork() -> None:
    msgs = [os.urandom(100) for _ in range(5000)]
    assert sm3.hash_many(msgs)[0] == sm3.hash(msgs[0])  # starts the pool in the parent
    code = "from shangmi import sm3\nm=[b'x'*100]*5000\nassert sm3.hash_many(m)==[sm3.hash(b'x'*100)]*5000"
    assert _in_child(code) == 0
    assert sm3.hash_many(msgs)[1] == sm3.hash(msgs[1])  # the parent's pool still works


def test_verify_many_after_fork() -> None:
    k = sm2.PrivateKey.generate()
    pub = k.public_key()
    sigs = sm2.sign_many(k, [b"m"] * 64)
    assert all(sm2.verify_many([(pub, b"m", s) for s in sigs]))
    code = (
        "from shangmi import sm2\n"
        "k = sm2.PrivateKey.generate(); p = k.public_key()\n"
        "s = sm2.sign_many(k, [b'a'] * 64)\n"
        "assert all(sm2.verify_many([(p, b'a', x) for x in s]))\n"
    )
    assert _in_child(code) == 0


def test_thread_cap() -> None:
    try:
        shangmi.set_num_threads(1)
        assert shangmi.num_threads() == 1
        assert sm3.hash_many([b"y"] * 3000) == [sm3.hash(b"y")] * 3000
    finally:
        shangmi.set_num_threads(0)
    assert shangmi.num_threads() == (os.cpu_count() or 1) or sys.platform != "linux"
    with pytest.raises(shangmi.InvalidInputError):
        shangmi.set_num_threads(10**6)
    with pytest.raises(shangmi.ShangmiTypeError):
        shangmi.set_num_threads("2")  # type: ignore[arg-type]
