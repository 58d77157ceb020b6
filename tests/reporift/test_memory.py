import platform

import pytest

from reporift import memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_heap_goes_back_to_the_system_on_glibc():
    # Blocks freed below one that stays: a hole in the heap that free() alone cannot return.
    blocks = [bytearray(4096) for _ in range(20_000)]
    keeper = bytearray(4096)
    blocks.clear()
    assert memory.release_free_heap() is True
    assert len(keeper) == 4096


def test_without_malloc_trim_it_does_nothing(monkeypatch):
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    assert memory.release_free_heap() is False
