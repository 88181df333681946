"""Summarizes bench_storage's CSV: medians of the append rounds, journal
beside SQLite and beside the disk's limits; restart, disk use and crash
checks as measured. Usage: summary.py results.csv"""
import csv
import statistics
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
val = defaultdict(list)
for r in rows:
    param = r["param"].split(":")[0]
    val[(r["scenario"], r["store"], r["sync"], param, r["metric"])].append(float(r["value"]))


def get(*key):
    v = val.get(key)
    return statistics.median(v) if v else float("nan")


seq = get("phys", "disk", "-", "256MiB", "seq_write_MBps")
syncs = get("phys", "disk", "-", "512B", "fdatasync_per_s")
print(f"disk: sequential write {seq:,.0f} MB/s, fdatasync {syncs:,.0f}/s")
print("\nappend (medians): records/s, lifecycles/s; journal/sqlite; share of the disk's limit")
print(f"{'sync':<7}{'N':>4}{'journal rec/s':>15}{'sqlite rec/s':>14}{'j/s':>7}"
      f"{'journal lc/s':>14}{'sqlite lc/s':>13}{'j B/rec':>9}{'s B/rec':>9}{'j limit':>9}{'s limit':>9}")
ns = sorted({int(k[3][2:]) for k in val if k[0] == "append"})
for sync in ("batch", "always"):
    for n in ns:
        p = f"N={n}"
        j = get("append", "journal", sync, p, "records_per_s")
        s = get("append", "sqlite", sync, p, "records_per_s")
        jb = get("append", "journal", sync, p, "written_bytes_per_record")
        sb = get("append", "sqlite", sync, p, "written_bytes_per_record")
        if sync == "always":  # one fdatasync per flush
            lim = [get("append", st, sync, p, "flushes_per_s") / syncs for st in ("journal", "sqlite")]
        else:  # bytes passed to write() against sequential bandwidth
            lim = [j * jb / (seq * 1e6), s * sb / (seq * 1e6)]
        print(f"{sync:<7}{n:>4}{j:>15,.0f}{s:>14,.0f}{j / s:>7.1f}{j / 3:>14,.0f}{s / 3:>13,.0f}"
              f"{jb:>9.0f}{sb:>9.0f}{lim[0]:>9.2f}{lim[1]:>9.2f}")

print("\nscale (batch, a flush per 64 records)")
for r in rows:
    if r["scenario"] == "scale":
        print(f"  {r['store']:<8}{r['param']:<16}{r['metric']:<28}{float(r['value']):>16,.4g}")
print("\ncrash checks")
for r in rows:
    if r["scenario"] in ("kill", "full") or (r["scenario"] == "torn" and r["param"].startswith("cuts")):
        print(f"  {r['scenario']:<6}{r['store']:<8}{r['param']:<12}{r['metric']:<28}{float(r['value']):>12,.6g}")
