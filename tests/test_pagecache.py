"""Page-cache eviction on real files, verified with mincore: never assumed."""

import os
import subprocess

import pytest

from rootparams.host import pagecache


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(os.urandom(8 << 20))
    return path


def test_a_freshly_written_file_is_resident(data_file):
    assert pagecache.residency(data_file).fraction > 0.5


def test_make_cold_leaves_no_page_resident(data_file):
    method, state = pagecache.make_cold(data_file)
    assert state.resident_pages == 0 and state.total_pages == 2048
    assert method == ("drop_caches" if pagecache.can_drop_caches() else "fadvise")
    # An independent check: util-linux fincore agrees.
    out = subprocess.run(
        ["fincore", "--bytes", "--noheadings", "--output", "RES", str(data_file)],
        capture_output=True,
        text=True,
    )
    if out.returncode == 0:
        assert int(out.stdout.split()[0]) == 0


def test_per_file_eviction_without_root_powers(data_file, monkeypatch):
    monkeypatch.setattr(pagecache, "can_drop_caches", lambda: False)
    method, state = pagecache.make_cold(data_file)
    assert method == "fadvise" and state.resident_pages == 0


def test_make_warm_brings_the_whole_file_in(data_file):
    pagecache.make_cold(data_file)
    assert pagecache.make_warm(data_file).fraction == 1.0


def test_eviction_that_does_not_take_is_refused(data_file, monkeypatch):
    # A filesystem that ignores eviction behaves like this: pages stay resident whatever we do.
    monkeypatch.setattr(pagecache, "evict", lambda path, system_wide=True: "fadvise")
    with pytest.raises(pagecache.EvictionError, match="still in the page cache"):
        pagecache.make_cold(data_file)


def test_eviction_waits_for_io_in_flight_before_it_tries_again(data_file, monkeypatch):
    # Pages under read I/O cannot be dropped (a reader's readahead still in flight behind a throttle): the first two
    # evictions leave pages resident, the third takes. make_cold waits between tries and still verifies.
    real_evict, tries, waits = pagecache.evict, [], []
    pagecache.make_warm(data_file)

    def evict_late(path, system_wide=True):
        tries.append(path)
        return real_evict(path, system_wide) if len(tries) == 3 else "fadvise"

    monkeypatch.setattr(pagecache, "evict", evict_late)
    monkeypatch.setattr(pagecache.time, "sleep", waits.append)
    _, state = pagecache.make_cold(data_file)
    assert state.resident_pages == 0 and len(tries) == 3
    assert waits == list(pagecache._EVICTION_RETRY_WAITS_SECONDS)


def test_empty_file_has_no_pages(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert pagecache.residency(empty).total_pages == 0


def test_the_pages_of_byte_ranges_are_counted_apart_from_the_rest(data_file):
    pagecache.make_cold(data_file, system_wide=False)
    fd = os.open(data_file, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead around the one read
        os.pread(fd, 4096, 1 << 20)
    finally:
        os.close(fd)
    assert pagecache.resident_pages_in(data_file, [((1 << 20) + 100, 10)]) == 1
    assert pagecache.resident_pages_in(data_file, [(0, 4096), (2 << 20, 8192)]) == 0
    # a range over two pages looks at both (one is resident); the same page twice counts once
    assert pagecache.resident_pages_in(data_file, [((1 << 20) - 10, 20), ((1 << 20), 1)]) == 1
    assert pagecache.pages_of([(0, 1), (4095, 2), (8192, 4096)]) == {0, 1, 2}
