#!/usr/bin/env python3
"""End-to-end tests of --deep carving (docs/row-contract.md "Carved records"): the real roo-ingest binary on the
committed carve-ext4 fixture image (fixtures/build-images.sh build_carve_ext4).

In that image task 019e34a9-… was saved again, and its previous save's files (the tree's .bak_…tmp files) were
unlinked with their inodes wiped; task 019e22c8-… was deleted the same way, files and directory; and the bytes after
the end of 019e34a9-…'s history_item.json in its last block hold an older save's item (slack). The carved rows are
compared with the hand-written fixtures/expected/carve-ext4.rows.jsonl. Their byte offsets are checked against a
plain byte search of the raw image (The Sleuth Kit's img_cat) for the records of the fixture tree's files, and their
blocks against blkstat.

usage: carve_e2e_test.py Carving.test_NAME --binary PATH --repo PATH
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows_match import subset_diff  # noqa: E402

BINARY = None
REPO = None

TASKS = "carve-ext4/home/lena/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"
T1 = "019e34a9-be00-7c31-9d4e-2a6b8c0d1e21"
T2 = "019e22c8-1b00-74a5-8b6c-3d7e9f0a2b42"
BLOCK = 1024  # mkfs.ext4 -b 1024 (build-images.sh make_ext4); a bare file system at image offset 0
CARVED = ("carved", "slack")
# The tree's files whose records lie in unallocated blocks (or, for history_item.json, whose older item is slack).
FREED = [f"{T2}/api_conversation_history.json", f"{T2}/history_item.json", f"{T2}/ui_messages.json",
         f"{T1}/.history_item.json.bak_1779000005202_r5t1y6u3i9.tmp",
         f"{T1}/.ui_messages.json.bak_1779000005201_m3k8q2w9z1.tmp",
         f"{T1}/.api_conversation_history.json.bak_1779000005191_p0x7c4n2v8.tmp"]
# Records of those files that the live files also hold, byte for byte: folded, no row.
FOLDED = {f"{T1}/.ui_messages.json.bak_1779000005201_m3k8q2w9z1.tmp": [0],
          f"{T1}/.api_conversation_history.json.bak_1779000005191_p0x7c4n2v8.tmp": [0]}


def tree_bytes(rel):
    with open(os.path.join(REPO, "fixtures", "trees", TASKS, rel), "rb") as f:
        return f.read()


def records(data):
    """(start, end) of each element of a JSON array document, or of the whole object, found by Python's own parser."""
    text = data.decode("utf-8")
    dec = json.JSONDecoder()
    if text[0] != "[":
        _, end = dec.raw_decode(text)
        return [(0, len(text[:end].encode()))]
    out, i = [], 1
    while text[i] != "]":
        _, end = dec.raw_decode(text, i)
        out.append((len(text[:i].encode()), len(text[:end].encode())))
        i = end + 1 if text[end] == "," else end
    return out


class ImageRun(unittest.TestCase):
    """Runs roo-ingest on one fixture image (IMAGE) into a temporary directory; raw holds the image's bytes."""

    IMAGE = None
    raw = None

    @classmethod
    def setUpClass(cls):
        cls.image = os.path.join(REPO, "fixtures", "images", cls.IMAGE)
        cls.raw = subprocess.run(["img_cat", cls.image], capture_output=True, check=True).stdout

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-carve-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, *flags, out_name="out"):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--quiet", *flags, self.image, "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, TZ="UTC"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "rows.jsonl"), "rb") as f:
            data = f.read()
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        return data, [json.loads(line) for line in data.splitlines()], report


    def summary(self, *flags, out_name="summary"):
        """The end-of-run summary (stdout without --quiet) and report.json."""
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--progress", "plain", *flags, self.image, "-o", out], capture_output=True,
                              text=True, env=dict(os.environ, TZ="UTC"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            return proc.stdout, json.load(f)


class Carving(ImageRun):
    IMAGE = "carve-ext4.E01"

    def ground_truth(self):
        """Image offset and length of every record of the freed files, by a plain search of the raw image."""
        spans = {}
        for rel in FREED:
            data = tree_bytes(rel)
            at = self.raw.find(data)
            self.assertEqual(self.raw.count(data), 1, f"{rel}: its bytes should be in the image exactly once")
            for i, (s, e) in enumerate(records(data)):
                if i not in FOLDED.get(rel, []):
                    spans[at + s] = e - s
        # The slack: the older item after the live one in history_item.json's block.
        hi = tree_bytes(f"{T1}/history_item.json")
        live_end = hi.index(b'}{"id"') + 1
        at = self.raw.find(hi[live_end:])
        self.assertEqual(at, self.raw.find(hi) + live_end)
        spans[at] = len(hi) - live_end
        return spans

    def test_rows(self):
        _, rows, _ = self.run_tool("--deep")
        carved = [r for r in rows if r["source"]["recovery"] in CARVED]
        with open(os.path.join(REPO, "fixtures", "expected", "carve-ext4.rows.jsonl"), encoding="utf-8") as f:
            wanted = [json.loads(line) for line in f if line.strip()]
        diffs = []
        for i, (exp, act) in enumerate(zip(wanted, carved)):
            diffs.extend(f"row {i} ({exp['kind']}): {d}" for d in subset_diff(exp, act))
        self.assertEqual(diffs, [])
        self.assertEqual(len(carved), len(wanted))
        # Every carved record's offset and length are where its bytes are in the image, and each record of the
        # freed files that the live files do not hold has rows.
        spans = self.ground_truth()
        seen = set()
        for r in carved:
            s = r["source"]
            self.assertEqual(spans.get(s["byte_offset"]), s["byte_length"], f"{r['kind']} at {s['byte_offset']}")
            first, last = s["byte_offset"] // BLOCK, (s["byte_offset"] + s["byte_length"] - 1) // BLOCK
            self.assertEqual(s["blocks"], [[first, last]])
            seen.add(s["byte_offset"])
        self.assertEqual(seen, set(spans))
        # Rows come in image offset order.
        offsets = [r["source"]["byte_offset"] for r in carved]
        self.assertEqual(offsets, sorted(offsets))

    def test_blocks_are_unallocated(self):
        _, rows, _ = self.run_tool("--deep")
        slack_inodes = set()
        for r in rows:
            s = r["source"]
            if s["recovery"] == "carved":
                for first, last in s["blocks"]:
                    for b in range(first, last + 1):
                        out = subprocess.run(["blkstat", self.image, str(b)], capture_output=True, text=True).stdout
                        self.assertIn("Not Allocated", out, f"block {b}")
            elif s["recovery"] == "slack":
                slack_inodes.add(s["inode"])
        # The slack rows name the file whose slack it is, by the inode libtsk gives its name.
        ifind = subprocess.run(["ifind", "-n", f"/home/lena/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/"
                                f"tasks/{T1}/history_item.json", self.image], capture_output=True, text=True).stdout
        self.assertEqual(slack_inodes, {int(ifind.strip())})

    def test_without_deep(self):
        plain, plain_rows, report = self.run_tool(out_name="plain")
        self.assertEqual([r for r in plain_rows if r["source"]["recovery"] in CARVED], [])
        self.assertNotIn("carving", report["partitions"][0]["scan"])
        # --deep adds the carved rows after the scan's own, which stay as they were but for the also_in entries that
        # name carved copies of their records (test_live_row_names_its_carved_copy).
        _, deep_rows, _ = self.run_tool("--deep", out_name="deep")
        scanned = deep_rows[:len(plain_rows)]
        for r in scanned:
            if "also_in" in r:
                r["also_in"] = [c for c in r["also_in"] if c["recovery"] not in CARVED]
                if not r["also_in"]:
                    del r["also_in"]
        self.assertEqual(scanned, plain_rows)
        self.assertTrue(all(r["source"]["recovery"] in CARVED for r in deep_rows[len(plain_rows):]))

    # A carved record identical to an allocated one is folded (one fact, both sources listed): the live
    # api_conversation_history.json's record 0 is also, byte for byte, record 0 of the previous save's freed .bak,
    # carved from unallocated blocks: the live row names that copy in also_in (image offset and length from a plain
    # search of the raw image, blocks of 1 KiB counted from offset 0). The other folded carved record, the .bak ui
    # file's record 0 (the prompt), is the live ui file's record 0, which gives no row of its own (the prompt is the
    # api user_message row): no row names it. No other row gets a carved also_in, and the runs are byte-identical
    # whatever --threads says (test_determinism).
    def test_live_row_names_its_carved_copy(self):
        _, rows, _ = self.run_tool("--deep")
        bak = tree_bytes(f"{T1}/.api_conversation_history.json.bak_1779000005191_p0x7c4n2v8.tmp")
        start, end = records(bak)[0]
        at = self.raw.find(bak) + start
        live = f"/{TASKS.split('/', 1)[1]}/{T1}/api_conversation_history.json"
        named = [(r["kind"], r["source"]["path"], r["source"]["record_index"], r["source"]["sub_index"], r["also_in"])
                 for r in rows if any(c["recovery"] in CARVED for c in r.get("also_in", []))]
        self.assertEqual(named, [("user_message", live, 0, 0, [
            {"path": "$Unallocated", "inode": None, "recovery": "carved", "record_index": None, "byte_offset": at,
             "byte_length": end - start, "blocks": [[at // BLOCK, (at + end - start - 1) // BLOCK]]}])])

    # A record in a file's slack is older than the file's last write: its row's time is the record's own (here the
    # HistoryItem's ts, history_item.ts, as for a live item), never one of the file's times, which the slack row's
    # source does not give.
    def test_slack_rows_are_timed_by_their_record(self):
        _, rows, _ = self.run_tool("--deep")
        slack = [r for r in rows if r["source"]["recovery"] == "slack"]
        self.assertEqual([(r["kind"], r["time_utc"], r["time_source"]) for r in slack],
                         [("task", "2026-05-17T06:40:00.412Z", "history_item.ts"),
                          ("permission_mode", "2026-05-17T06:40:00.412Z", "history_item.ts")])
        hi = tree_bytes(f"{T1}/history_item.json")
        older = json.loads(hi[hi.index(b'}{"id"') + 1:])  # the older item the slack holds
        self.assertEqual(older["ts"], 1779000000412)  # 2026-05-17T06:40:00.412Z
        for r in slack:
            self.assertEqual([r["source"].get(t) for t in ("mtime", "atime", "ctime", "crtime")], [None] * 4)

    def test_report(self):
        _, _, report = self.run_tool("--deep")
        c = report["partitions"][0]["scan"]["carving"]
        # Hand-counted from the tree: T2's 3 ui + 2 api records and its item, T1's previous save (3 ui records, one
        # the live file holds; 1 api record, the live file's first; its item) and the slack item.
        self.assertEqual(c["records"]["ui_message"], {"found": 6, "folded": 1, "kept": 5})
        self.assertEqual(c["records"]["api_message"], {"found": 3, "folded": 1, "kept": 2})
        self.assertEqual(c["records"]["history_item"], {"found": 3, "folded": 0, "kept": 3})
        self.assertEqual(c["unattributed"], 5)
        self.assertEqual(c["errors"], [])
        self.assertGreater(c["unallocated_bytes"], 0)
        self.assertGreater(c["slack_bytes"], 0)
        self.assertEqual(c["bytes_carved"], c["unallocated_bytes"] + c["slack_bytes"] + c["unpartitioned_bytes"])

    # The summary says what --deep carved and what it gave: the expected rows hold 11 carved rows (unallocated
    # blocks) and 2 slack rows; the byte counts are report.json's.
    def test_summary_says_what_was_carved(self):
        stdout, report = self.summary("--deep")
        c = report["partitions"][0]["scan"]["carving"]
        self.assertEqual((c["unallocated_of"], c["unallocated_rows"], c["slack_rows"], c["unpartitioned_areas"]),
                         ("file system", 11, 2, []))
        self.assertIn(f"    carved (--deep): unallocated blocks {c['unallocated_bytes']} bytes, 11 row(s); slack of "
                      f"the Roo files read {c['slack_bytes']} bytes, 2 row(s)\n", stdout)
        self.assertIn(f"Carved (--deep): unallocated blocks {c['unallocated_bytes']} bytes (11 row(s)), slack of the "
                      f"Roo files read {c['slack_bytes']} bytes (2 row(s)), unpartitioned space 0 bytes in 0 area(s) "
                      "(0 row(s)).", stdout)
        plain, _ = self.summary(out_name="plain")
        self.assertNotIn("carved (--deep)", plain)
        self.assertIn("unallocated blocks, file slack and $OrphanFiles (no --deep)", plain)

    def test_determinism(self):
        # The same image gives the same rows on every run, whatever the number of carving threads.
        first, _, _ = self.run_tool("--deep", "--threads", "1", out_name="a")
        second, _, _ = self.run_tool("--deep", "--threads", "1", out_name="b")
        third, _, _ = self.run_tool("--deep", "--threads", "3", out_name="c")
        self.assertEqual(first, second)
        self.assertEqual(first, third)

    def test_row_schema(self):
        import jsonschema

        with open(os.path.join(REPO, "docs", "row.schema.json"), encoding="utf-8") as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        _, rows, _ = self.run_tool("--deep")
        for row in rows:
            self.assertEqual([e.message for e in validator.iter_errors(row)], [], f"{row['kind']} {row['source']}")


class Unpartitioned(ImageRun):
    """Carving unpartitioned space: carve-gap.E01 (fixtures/build-images.sh build_carve_gap) is a GPT
    disk with two small ext4 partitions; a gone partition's task is in space no partition holds: the tree's
    gap/ui_messages.json between p1 and p2, gap/history_item.json after p2. Rows against the hand-written
    fixtures/expected/carve-gap.rows.jsonl; every carved row's image offset against a byte search of the raw image."""

    IMAGE = "carve-gap.E01"
    GAP = os.path.join("carve-gap", "gap")

    def gap_bytes(self, name):
        with open(os.path.join(REPO, "fixtures", "trees", self.GAP, name), "rb") as f:
            return f.read()

    def test_rows(self):
        _, rows, _ = self.run_tool("--deep")
        with open(os.path.join(REPO, "fixtures", "expected", "carve-gap.rows.jsonl"), encoding="utf-8") as f:
            wanted = [json.loads(line) for line in f if line.strip()]
        diffs = []
        for i, (exp, act) in enumerate(zip(wanted, rows)):
            diffs.extend(f"row {i} ({exp['kind']}): {d}" for d in subset_diff(exp, act))
        self.assertEqual(diffs, [])
        self.assertEqual(len(rows), len(wanted))  # the partitions hold no Roo file: every row is a carved one
        # Offsets: where a plain search of the raw image finds each record of the tree's files (once), and no
        # blocks (no file system there).
        spans = {}
        for name in ("ui_messages.json", "history_item.json"):
            data = self.gap_bytes(name)
            self.assertEqual(self.raw.count(data), 1, name)
            at = self.raw.find(data)
            for s, e in records(data):
                spans[at + s] = e - s
        self.assertEqual(sorted(spans), [3146241, 3146346, 3146529, 6292480])  # build-images.sh CG_*_OFFSET
        for r in rows:
            s = r["source"]
            self.assertEqual(spans.get(s["byte_offset"]), s["byte_length"], f"{r['kind']} at {s['byte_offset']}")
            self.assertNotIn("blocks", s)
        self.assertEqual({r["source"]["byte_offset"] for r in rows}, set(spans))
        # mmls: the ui file lies in the gap between p1 and p2, the item after p2.
        mmls = subprocess.run(["mmls", self.image], capture_output=True, text=True, check=True).stdout
        self.assertIn("005:  -------   0000006144   0000008191   0000002048   Unallocated", mmls)
        self.assertIn("007:  -------   0000012288   0000014335   0000002048   Unallocated", mmls)
        self.assertTrue(6144 * 512 <= rows[0]["source"]["byte_offset"] < 8192 * 512)
        self.assertTrue(12288 * 512 <= rows[3]["source"]["byte_offset"] < 14336 * 512)

    def test_report_and_without_deep(self):
        _, _, report = self.run_tool("--deep")
        carving = [p["scan"]["carving"] for p in report["partitions"] if p.get("kind") == "allocated"]
        self.assertEqual(len(carving), 2)
        # Once per image, with the first file system's: the three unallocated slots of mmls, 2048 sectors each.
        self.assertEqual([c["unpartitioned_bytes"] for c in carving], [3 * 2048 * 512, 0])
        self.assertEqual(carving[0]["records"]["ui_message"], {"found": 3, "folded": 0, "kept": 3})
        self.assertEqual(carving[0]["records"]["history_item"], {"found": 1, "folded": 0, "kept": 1})
        self.assertEqual(carving[0]["unattributed"], 3)
        _, plain, _ = self.run_tool(out_name="plain")
        self.assertEqual(plain, [])

    # Each of the three gaps mmls lists (2048 sectors each: before p1, between p1 and p2, after p2) is said to be
    # carved, with its rows: the expected rows' three ui records lie in the middle one, the item's two rows in the
    # last one.
    def test_summary_names_every_gap_carved(self):
        stdout, report = self.summary("--deep")
        gap = 2048 * 512
        self.assertEqual(report["partitions"][4]["scan"]["carving"]["unpartitioned_areas"],
                         [{"offset": 0, "length": gap, "rows": 0}, {"offset": 6144 * 512, "length": gap, "rows": 3},
                          {"offset": 12288 * 512, "length": gap, "rows": 2}])
        status = {p["index"]: p["status"] for p in report["partitions"] if p["kind"] == "unallocated"}
        self.assertEqual(status, {
            1: f"carved: unpartitioned space before the first partition, {gap} bytes, with partition 4's job: 0 row(s)",
            5: f"carved: unpartitioned space between partitions 4 and 6, {gap} bytes, with partition 4's job: 3 row(s)",
            7: f"carved: unpartitioned space after the last partition, {gap} bytes, with partition 4's job: 2 row(s)"})
        for p in report["partitions"]:
            if p["kind"] == "unallocated":
                self.assertEqual(p["completeness"]["skipped"], [])
        self.assertIn(f"  partition 1 @0 (Unallocated): {status[1]}\n", stdout)
        self.assertIn(f"  partition 5 @{6144 * 512} (Unallocated): {status[5]}\n", stdout)
        self.assertIn(f"  partition 7 @{12288 * 512} (Unallocated): {status[7]}\n", stdout)
        self.assertIn(f"unpartitioned space {3 * gap} bytes in 3 area(s) (5 row(s))", stdout)
        self.assertIn("Skipped: 3 partition(s) with no file system to search", stdout)  # the GPT's three tables
        for p in (4, 6):
            c = report["partitions"][p]["scan"]["carving"]
            self.assertEqual((c["unallocated_rows"], c["slack_rows"]), (0, 0))
            self.assertIn(f"    carved (--deep): unallocated blocks {c['unallocated_bytes']} bytes, 0 row(s)", stdout)
        plain, report = self.summary(out_name="plain")
        self.assertIn("  partition 5 @3145728 (Unallocated): not searched: unallocated space (carved only with --deep)\n",
                      plain)
        self.assertIn("Skipped: 6 partition(s) with no file system to search", plain)

    def test_determinism(self):
        first, _, _ = self.run_tool("--deep", "--threads", "1", out_name="a")
        second, _, _ = self.run_tool("--deep", "--threads", "3", out_name="b")
        self.assertGreater(len(first), 0)
        self.assertEqual(first, second)


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "Carving", "Unpartitioned")
