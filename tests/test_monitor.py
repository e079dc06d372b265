"""dool/dstat CSV parsing (both dialects, odd rows) and window summaries."""

import pytest

from rootparams.host.monitor import MonitorCSVError, parse_monitor_csv, summarize_window

DOOL_BYTES = """"dool 1.3.8 CSV output"
"Author:","Scott Baker",,,,"URL:","https://github.com/scottchiefbaker/dool/"
"Host:","vm",,,,"User:","root"
"Cmdline:","dool --epoch --cpu --disk --net --io --mem --vm --page --noupdate --bytes --output x.csv 1",,,,"Date:","22 Nov 2026 08:26:44 UTC"
"epoch","total cpu usage",,,,,"dsk/total",,"net/total",,"io/total",,"memory usage",,,,"virtual memory",,,,"paging",
"epoch","usr","sys","idl","wai","stl","read","writ","recv","send","read","writ","used","free","cach","avai","majpf","minpf","alloc","free","in","out"
100.0,17.3,3.8,75.9,0.6,2.1,22070616.5,42541610.3,0,0,81.5,24.1,102948864,24813494272,253841408,24903761920,2.3,5119.4,7140.3,10855.4,0,0
101.0,50,10,40,0,0,1000000,0,10,20,8,0,200000000,24813494272,253841408,24903761920,0,3,29,16859,0,0
102.0,30,10,60,0,0,3000000,0,0,0,24,0,300000000,24813494272,253841408,24903761920,1,3,28,25,0,0
103.0,0,0,100,0,0,0,0,0,0,0,0,103956480,24880963584,187260928,24903467008,0,0,25,25,0,0
104.0,0,0,100
"""

DSTAT = """"Dstat 0.8.0 CSV output"
"Author:","Dag Wieers <dag@wieers.com>",,,,"URL:","http://dag.wieers.com/home-made/dstat/"
"Host:","vm",,,,"User:","root"
"Cmdline:","dstat --epoch --cpu --disk --net --io --mem --vm --page --noupdate --output s.csv 1",,,,"Date:","22 Nov 2026 08:26:57 UTC"
"epoch","total cpu usage",,,,,"dsk/total",,"net/total",,"io/total",,"memory usage",,,,"virtual memory",,,,"paging",
"epoch","usr","sys","idl","wai","stl","read","writ","recv","send","read","writ","used","free","buff","cach","majpf","minpf","alloc","free","in","out"
200.0,1,1,98,0,0,0,0,0,0,0,0,1,2,3,4,0,0,0,0,0,0
201.0,1,1,98,0,0,4096,0,0,0,1,0,1,2,3,4,0,0,0,0,0,0
"""


def test_dool_csv_is_parsed_to_canonical_columns():
    samples = parse_monitor_csv(DOOL_BYTES)
    assert samples.tool == "dool"
    assert len(samples.rows) == 4  # the cut-off last row is dropped
    row = samples.rows[1]
    assert row["epoch"] == 101.0 and row["cpu_usr_pct"] == 50 and row["disk_read_bytes_per_s"] == 1e6
    assert row["mem_available_bytes"] == 24903761920 and row["vm_major_faults_per_s"] == 0
    assert "mem_buffers_bytes" not in row


def test_dool_without_bytes_option_is_converted_from_bits():
    bits = DOOL_BYTES.replace(" --bytes", "")
    assert parse_monitor_csv(bits).rows[1]["disk_read_bytes_per_s"] == 1e6 / 8


def test_dstat_dialect():
    samples = parse_monitor_csv(DSTAT)
    assert samples.tool == "dstat"
    assert samples.rows[1]["mem_buffers_bytes"] == 3 and samples.rows[1]["mem_cache_bytes"] == 4
    assert samples.rows[1]["disk_read_bytes_per_s"] == 4096  # dstat writes bytes


@pytest.mark.parametrize("text", ["", "garbage\n1,2,3\n", DOOL_BYTES.split('"epoch","usr"')[0]])
def test_csv_without_headers_is_a_clear_error(text):
    with pytest.raises(MonitorCSVError, match="no header rows"):
        parse_monitor_csv(text, "rep0.csv")


def test_non_numeric_rows_are_dropped():
    samples = parse_monitor_csv(DOOL_BYTES.replace("103.0,0,0,100", "103.0,x,0,100"))
    assert [r["epoch"] for r in samples.rows] == [100.0, 101.0, 102.0]


def test_window_summary_weights_each_sample_by_its_overlap_with_the_span():
    samples = parse_monitor_csv(DOOL_BYTES)
    rows = {r["epoch"]: r for r in samples.rows}
    # A read from t=100.2 to t=101.5 overlaps the sample stamped 101 (interval 100-101) for 0.8 s and the
    # one stamped 102 (101-102) for 0.5 s: each counts with that part of its interval.
    summary = summarize_window(samples, 100.2, 101.5)
    assert summary["monitor_samples"] == 2 and summary["monitor_coverage"] == pytest.approx(1.0)
    expected_bytes = 0.8 * rows[101.0]["disk_read_bytes_per_s"] + 0.5 * rows[102.0]["disk_read_bytes_per_s"]
    assert summary["disk_read_bytes"] == pytest.approx(expected_bytes)
    usr = (0.8 * rows[101.0]["cpu_usr_pct"] + 0.5 * rows[102.0]["cpu_usr_pct"]) / 1.3
    assert summary["cpu_usr_pct_mean"] == pytest.approx(usr)
    assert summary["mem_used_bytes_max"] == max(rows[t]["mem_used_bytes"] for t in (101.0, 102.0))


def test_a_span_beyond_the_samples_has_partial_coverage():
    samples = parse_monitor_csv(DOOL_BYTES)
    last = max(r["epoch"] for r in samples.rows)
    summary = summarize_window(samples, last - 0.5, last + 0.5)
    assert summary["monitor_coverage"] == pytest.approx(0.5)
