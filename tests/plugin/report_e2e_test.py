#!/usr/bin/env python3
"""End-to-end tests of report.json's verification and completeness and of l2t.csv's order, on the committed fixture
images with the real roo-ingest binary:

- --verify: evidence.verification against the hashes the real libewf tools compute (ewfverify), against Python's
  hashlib over the raw segments, and a mismatch on a copy of demo.E01 whose stored MD5 is altered in a temp dir.
- the per-partition completeness statement (partitions[].completeness) and the summary's completeness paragraph,
  against counts written by hand from the fixture trees and fixtures/expected/*.rows.jsonl.
- l2t.csv in time order (psort writes l2tcsv sorted by time), holding exactly the timed rows of rows.jsonl, rows of
  the same time in rows.jsonl's order.

usage: report_e2e_test.py ReportE2E.test_NAME --binary PATH --repo PATH
"""
import csv
import datetime
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

BINARY = None
REPO = None

# fixtures/images/README.md: demo.E01 is a 10 MiB GPT disk (ext4 + NTFS), acquired with ewfacquire, which stores the
# media's MD5 and SHA-1; demo-split.E0? holds the same media. linux-ext4.raw.00? is a split raw of 4 x 1 MiB.
DEMO_MEDIA_BYTES = 10485760
RAW_MEDIA_BYTES = 4 * 1048576
EXIT_NOT_VERIFIED = 7  # README "Exit codes"

csv.field_size_limit(sys.maxsize)


def images(name):
    return os.path.join(REPO, "fixtures", "images", name)


def read_rows(out):
    with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_report(out):
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        return json.load(f)


def expected_rows(name):
    with open(os.path.join(REPO, "fixtures", "expected", name + ".rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def ewfverify(path):
    """(stored MD5, calculated MD5, calculated SHA-1) as the real ewfverify prints them; None when it is not
    installed."""
    if not shutil.which("ewfverify"):
        return None
    proc = subprocess.run(["ewfverify", "-q", "-d", "sha1", path], capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    stored = re.search(r"MD5 hash stored in file:\s*([0-9a-f]{32})", text)
    calculated = re.search(r"MD5 hash calculated over data:\s*([0-9a-f]{32})", text)
    sha1 = re.search(r"SHA1 hash calculated over data:\s*([0-9a-f]{40})", text)
    return (stored and stored.group(1), calculated and calculated.group(1), sha1 and sha1.group(1))


def alter_stored_md5(data):
    """demo.E01 with the first byte of the MD5 its digest and hash sections store inverted, their Adler-32 checksums
    made right again (EWF1: 13-byte file header; sections of a 76-byte descriptor - type[16], next u64, size u64,
    padding[40], Adler-32 - then data; digest = MD5[16] SHA-1[20] padding[40] Adler-32, hash = MD5[16] unknown[16]
    Adler-32; little-endian). The media bytes are not touched."""
    data = bytearray(data)
    offset, changed = 13, 0
    while offset + 76 <= len(data):
        kind = bytes(data[offset:offset + 16]).rstrip(b"\0")
        following = struct.unpack_from("<Q", data, offset + 16)[0]
        covered = {b"digest": 16 + 20 + 40, b"hash": 16 + 16}.get(kind)
        if covered:
            start = offset + 76
            data[start] ^= 0xFF
            struct.pack_into("<I", data, start + covered, zlib.adler32(bytes(data[start:start + covered])))
            changed += 1
        if kind == b"done" or following <= offset:
            break
        offset = following
    assert changed == 2, "demo.E01 should have a digest and a hash section"
    return bytes(data)


# The names report_template.html's renderEvidence gives to parts of report.json, read from it by hand, and where in
# report.json each points ("a.b[]": each element of the list a.b).
HTML_REPORT_NAMES = {
    "rep": [""],
    "ev": ["evidence"],
    "rows": ["rows"],
    "p": ["partitions[]"],
    "s": ["partitions[].scan", "custom_storage_path_scans[].scan"],
    "r": ["partitions[].scan.roots_found[]", "custom_storage_path_scans[].scan.roots_found[]"],
    "f": ["partitions[].scan.files_parsed[]", "custom_storage_path_scans[].scan.files_parsed[]"],
    "c": ["custom_storage_path_scans[]", "partitions[].scan.custom_storage_paths[]",
          "custom_storage_path_scans[].scan.custom_storage_paths[]"],
}
# What renderEvidence reads of other objects: JavaScript's own members (Array.isArray, box.append, ROWS.length …).
HTML_JS_MEMBERS = {"isArray", "keys", "length", "append", "push", "map", "join", "concat", "filter"}


def objects_at(value, path):
    """The JSON objects at path (as in HTML_REPORT_NAMES) in value."""
    found = [value]
    for step in path.split(".") if path else []:
        key = step[:-2] if step.endswith("[]") else step
        found = [v[key] for v in found if isinstance(v, dict) and v.get(key) is not None]
        if step.endswith("[]"):
            found = [x for v in found if isinstance(v, list) for x in v]
    return [v for v in found if isinstance(v, dict)]


class ReportE2E(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-report-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, *args, out_name="out", env=None, expect=0):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, *args, "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, **(env or {})))
        if expect is not None and proc.returncode != expect:
            self.fail(f"roo-ingest {' '.join(args)} exited {proc.returncode}, not {expect}: {proc.stderr}")
        return out, proc

    # ---- --verify ----

    # The MD5 roo-ingest computes over demo.E01's media is the one the real ewfverify calculates and the one the
    # container stores; the SHA-1 too.
    def test_verify_e01(self):
        out, proc = self.run_tool("--verify", "--progress=json", images("demo.E01"))
        v = read_report(out)["evidence"]["verification"]
        tool = ewfverify(images("demo.E01"))
        if tool:
            stored_md5, calculated_md5, sha1 = tool
            self.assertEqual(v["md5"], calculated_md5)
            self.assertEqual(v["md5_stored"], stored_md5)
            self.assertEqual(v["sha1"], sha1)
        else:  # ewfinfo fixtures/images/demo.E01, "Digest hash information", copied by hand
            self.assertEqual(v["md5"], "38fa0b13f9c5c455866c4efaf8f2c5d7")
            self.assertEqual(v["sha1"], "9a702ad30ae1465367927e80294d94c48f99f83f")
        self.assertEqual((v["result"], v["read_with"], v["md5_match"], v["sha1_match"]),
                         ("verified", "libewf", True, True))
        self.assertEqual((v["media_size_bytes"], v["bytes_hashed"], v["ewf_chunk_checksum_errors"]),
                         (DEMO_MEDIA_BYTES, DEMO_MEDIA_BYTES, 0))
        self.assertIn("image verification: verified", proc.stdout)
        # Progress while hashing, with the total so wrappers can show an ETA.
        verifying = [json.loads(l) for l in proc.stderr.splitlines() if '"progress":"verifying"' in l]
        self.assertTrue(verifying, proc.stderr)
        self.assertTrue(all(p["total_bytes"] == DEMO_MEDIA_BYTES for p in verifying))
        self.assertEqual((verifying[-1]["done"], verifying[-1]["bytes"]), (True, DEMO_MEDIA_BYTES))

    # A split raw stores no hash: it is hashed all the same (hashlib over the segments, concatenated) and the run
    # exits 0.
    def test_verify_split_raw(self):
        out, _ = self.run_tool("--verify", images("linux-ext4.raw.001"))
        v = read_report(out)["evidence"]["verification"]
        md5, sha1 = hashlib.md5(), hashlib.sha1()
        for i in range(1, 5):
            with open(images(f"linux-ext4.raw.00{i}"), "rb") as f:
                data = f.read()
                md5.update(data)
                sha1.update(data)
        self.assertEqual((v["result"], v["read_with"], v["bytes_hashed"]),
                         ("no stored hash", "libtsk", RAW_MEDIA_BYTES))
        self.assertEqual((v["md5"], v["sha1"]), (md5.hexdigest(), sha1.hexdigest()))
        self.assertEqual((v["md5_stored"], v["md5_match"], v["sha1_stored"], v["sha1_match"]), (None, None, None, None))

    # A container whose stored MD5 differs from its media's: exit 7, a line on stderr, one in the summary, "mismatch"
    # in report.json, and the rows still written. The real ewfverify agrees that the copy does not verify.
    def test_verify_mismatch(self):
        os.makedirs(os.path.join(self.tmp, "evidence"))  # OUTDIR may not be below the image's folder
        altered = os.path.join(self.tmp, "evidence", "altered.E01")
        with open(images("demo.E01"), "rb") as f, open(altered, "wb") as g:
            g.write(alter_stored_md5(f.read()))
        tool = ewfverify(altered)
        if tool:
            self.assertNotEqual(tool[0], tool[1])  # libewf reads the altered hash as the stored one
        out, proc = self.run_tool("--verify", altered, expect=EXIT_NOT_VERIFIED)
        v = read_report(out)["evidence"]["verification"]
        self.assertEqual(v["result"], "mismatch")
        self.assertEqual(v["md5"], "38fa0b13f9c5c455866c4efaf8f2c5d7")  # the media is demo.E01's
        self.assertEqual(v["md5_stored"], "c7fa0b13f9c5c455866c4efaf8f2c5d7")  # 0x38 ^ 0xff
        self.assertEqual((v["md5_match"], v["sha1_match"]), (False, True))
        self.assertIn("WARNING: image NOT verified: mismatch", proc.stderr)
        self.assertIn("IMAGE NOT VERIFIED: mismatch", proc.stdout)
        self.assertGreater(len(read_rows(out)), 0)

    # Without --verify nothing is hashed, and report.json says so.
    def test_verify_not_requested(self):
        out, proc = self.run_tool("--progress=json", images("demo.E01"))
        self.assertEqual(read_report(out)["evidence"]["verification"], {"result": "not requested"})
        self.assertNotIn('"progress":"verifying"', proc.stderr)
        self.assertNotIn("verification", proc.stdout)

    # ---- completeness ----

    # demo.E01: each partition says what it searched, found, skipped and failed. Expected counts are written by hand
    # from the fixture trees (fixtures/trees/linux-ext4 and windows-ntfs) and the hand-written expected rows.
    # Roo roots in the trees: linux-ext4 has alice's Code and .vscode-mock/global-storage, carol's VSCodium and
    # erin's .vscode-mock/global-storage (4); windows-ntfs has bob's Code, dana's Code (no tasks/ in it) and Cursor,
    # and \RooTasks, the custom storage path dana's settings name (4). Homes: alice, carol, erin; bob, dana.
    DEMO_TREES = {"ext4": ("linux-ext4", 3, 4), "ntfs": ("windows-ntfs", 2, 4)}  # fs: (tree, homes, roots)

    def test_completeness_demo(self):
        out, _ = self.run_tool("--quiet", images("demo.E01"))
        report = read_report(out)
        by_fs = {}
        for p in report["partitions"]:
            c = p["completeness"]
            self.assertEqual(set(c), {"searched", "found", "skipped", "failed"})
            if p["kind"] != "allocated":
                # GPT header/table entries and unallocated gaps: skipped as a whole, with the reason.
                self.assertIsNone(c["searched"])
                self.assertIsNone(c["found"])
                self.assertEqual(c["failed"], [])
                self.assertEqual(c["skipped"], [{"what": f"the whole partition ({p['length_bytes']} bytes)",
                                                 "why": "volume system table" if p["kind"] == "meta"
                                                 else "unallocated space (carved only with --deep)"}])
                continue
            by_fs[p["fs_type"]] = p
            scan = p["scan"]
            self.assertEqual(c["searched"]["temp_locations"], len(scan["temp_dirs_searched"]))
            self.assertEqual(c["found"]["files_parsed"], len(scan["files_parsed"]))
            whats = [s["what"] for s in c["skipped"]]
            self.assertEqual(whats, ["unallocated blocks, file slack and $OrphanFiles",
                                     "directories outside the catalog"])
        self.assertEqual(sorted(by_fs), ["ext4", "ntfs"])
        for fs_type, (tree, homes, roots) in self.DEMO_TREES.items():
            c = by_fs[fs_type]["completeness"]
            self.assertEqual(c["searched"]["homes"], homes, fs_type)
            self.assertEqual(c["found"]["roo_roots"], roots, fs_type)
            self.assertEqual(c["found"]["task_dirs"], self.count_task_dirs(tree), fs_type)
        # Failures: the one bad record of the ext4 trees (a parser_error row in the hand-written expected rows), and
        # on NTFS the note that dana's state.vscdb has values only in its -wal file (scan.errors).
        bad_records = len([r for name in ("linux-ext4", "transcripts", "stores-linux") for r in expected_rows(name)
                           if r["kind"] == "parser_error"])
        self.assertEqual(bad_records, 1)
        self.assertEqual([(f["what"], f["count"]) for f in by_fs["ext4"]["completeness"]["failed"]],
                         [("records that could not be parsed", bad_records)])
        ntfs_failed = by_fs["ntfs"]["completeness"]["failed"]
        self.assertEqual([(f["what"], f["count"]) for f in ntfs_failed], [("problems reported while reading", 1)])
        self.assertIn("-wal", by_fs["ntfs"]["scan"]["errors"][0])
        self.assertEqual(sum(p["completeness"]["found"]["rows"] for p in report["partitions"]
                             if p["completeness"]["found"]), report["rows"]["total"])
        # The summary's paragraph adds the partitions up.
        _, proc = self.run_tool(images("demo.E01"), out_name="loud")
        paragraph = [l for l in proc.stdout.splitlines() if l.strip().startswith("completeness:")]
        self.assertEqual(len(paragraph), 1, proc.stdout)
        task_dirs = sum(self.count_task_dirs(tree) for tree, _, _ in self.DEMO_TREES.values())
        self.assertIn("searched 2 file system(s) (5 home(s), 0 temp location(s)); found 8 Roo root(s) with "
                      f"{task_dirs} task dir(s)", paragraph[0])
        self.assertIn("Skipped: 5 partition(s) with no file system to search", paragraph[0])
        self.assertIn("Failed: 1 record(s) unparsable (parser_error rows), 1 problem(s) reported while reading",
                      paragraph[0])

    # The task directories of a fixture tree, counted in the tree itself: in these trees every directory named
    # tasks/ is a Roo root's, and each directory in it is a task's.
    def count_task_dirs(self, tree):
        base = os.path.join(REPO, "fixtures", "trees", tree)
        tasks = [os.path.join(d, "tasks") for d, dirnames, _ in os.walk(base) if "tasks" in dirnames]
        return sum(len([d for d in os.listdir(t) if os.path.isdir(os.path.join(t, d))]) for t in tasks)

    # recovery-ext4: the deleted names whose content is not read are skipped, counted as the hand-written expected
    # rows count their deleted_entry rows.
    def test_completeness_recovery_deleted_names(self):
        out, _ = self.run_tool("--quiet", images("recovery-ext4.E01"))
        want = len([r for r in expected_rows("recovery-ext4") if r["kind"] == "deleted_entry"])
        self.assertGreater(want, 0)
        skipped = [s for p in read_report(out)["partitions"] for s in p["completeness"]["skipped"]
                   if s["what"] == "deleted names whose content was not read"]
        self.assertEqual([s["count"] for s in skipped], [want])

    # A worker that dies (the isolation test's fault injection, e2e_test.py test_worker_crash) is a failure of its
    # partition, with the reason, in completeness and in the summary.
    def test_completeness_worker_crash(self):
        report = read_report(self.run_tool("--quiet", images("demo.E01"))[0])
        ext4 = [p for p in report["partitions"] if p.get("fs_type") == "ext4"][0]
        out, proc = self.run_tool(images("demo.E01"), out_name="crash",
                                  env={"ROO_INGEST_TEST_CRASH_PARTITION": str(ext4["index"])}, expect=5)
        crashed = [p for p in read_report(out)["partitions"] if p.get("index") == ext4["index"]][0]
        self.assertEqual(crashed["status"], "crashed")
        failed = crashed["completeness"]["failed"]
        self.assertEqual(len(failed), 1)
        self.assertIn("worker killed by signal", failed[0]["why"])
        self.assertIn("Failed: 1 partition(s) not (fully) processed", proc.stdout)

    # ---- report.html's reading of report.json ----

    # Every report.json field the page's evidence section (report_template.html, renderEvidence) reads is one that
    # roo-ingest writes there, at that place: a renamed field would show as null in the page. The fixtures together
    # have every optional field the page reads: deleted names (deleted-ntfs), custom storage path scans
    # (custom-path), partitions with a reason (macos-hfs).
    def test_html_page_reads_report_fields(self):
        reports = [read_report(self.run_tool("--quiet", images(name), out_name=name)[0])
                   for name in ("deleted-ntfs.E01", "custom-path.E01", "macos-hfs.E01")]
        with open(os.path.join(REPO, "plugin", "formats", "report_template.html"), encoding="utf-8") as f:
            page = f.read()
        start = page.index("function renderEvidence()")
        code = page[start:page.index("\n  }\n", start)]
        self.assertIn("const rep = META.report", code)  # report.json, as html_report.cpp puts it in the page
        code = re.sub(r"'(?:[^'\\\n]|\\.)*'", "''", code)  # string literals: text, not accesses
        reads = set(re.findall(r"(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*)", code))
        self.assertEqual({name for name, _ in reads if name in HTML_REPORT_NAMES}, set(HTML_REPORT_NAMES))
        for name, field in sorted(reads - {("META", "report")}):
            if name not in HTML_REPORT_NAMES:
                self.assertIn(field, HTML_JS_MEMBERS, f"{name}.{field}: the test does not know what {name} is")
                continue
            objects = [o for rep in reports for path in HTML_REPORT_NAMES[name] for o in objects_at(rep, path)]
            self.assertTrue(objects, f"no fixture report has {HTML_REPORT_NAMES[name]}")
            self.assertTrue(any(field in o for o in objects),
                            f"the page reads {name}.{field}, report.json has no {field} at {HTML_REPORT_NAMES[name]}")

    # ---- l2t.csv order ----

    # l2t.csv is in time order, as psort writes l2tcsv; it holds one line per timed row of rows.jsonl (each found by
    # the row_id its extra column carries), and rows of the same time keep rows.jsonl's order.
    def test_l2t_time_order(self):
        for image in ("demo.E01", "recovery-ntfs.E01"):
            out, _ = self.run_tool("--quiet", "--tz", "UTC", images(image), out_name=image)
            rows = read_rows(out)
            timed = [r for r in rows if r["time_utc"] is not None]
            with open(os.path.join(out, "l2t.csv"), encoding="utf-8", newline="") as f:
                table = list(csv.reader(f))[1:]
            self.assertEqual(len(table), len(timed))
            times, ids = [], []
            for line in table:
                times.append(datetime.datetime.strptime(line[0] + " " + line[1], "%m/%d/%Y %H:%M:%S"))
                found = [p[len("row_id: "):] for p in line[16].split("; ") if p.startswith("row_id: ")]
                self.assertEqual(len(found), 1, line[16])
                ids.append(found[0])
            self.assertEqual(times, sorted(times), image)
            self.assertEqual(sorted(ids), sorted(r["row_id"] for r in timed), image)
            # Stable: the rows of one millisecond appear in rows.jsonl's order. (Seconds only in l2tcsv: order by
            # the row's own time_utc, then by its position in rows.jsonl.)
            position = {r["row_id"]: i for i, r in enumerate(rows)}
            time_of = {r["row_id"]: r["time_utc"] for r in rows}
            instant = {i: datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ") for i, t in time_of.items() if t}
            self.assertEqual(ids, sorted(ids, key=lambda i: (instant[i], position[i])), image)
            self.assertNotEqual(ids, [r["row_id"] for r in timed], f"{image}: rows.jsonl is already in time order, "
                                "so this fixture cannot show the sort")
            self.assertEqual([n for n in os.listdir(out) if n.startswith(".roo-ingest-work")], [])  # work dirs gone


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "ReportE2E")
