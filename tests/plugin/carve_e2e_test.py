#!/usr/bin/env python3
"""End-to-end tests of --deep carving (issue 5, "Carving"): the real roo-ingest binary on the committed
carve-ext4 fixture image (fixtures/build-images.sh build_carve_ext4).

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
# Records of those files that the live files also hold, byte for byte: folded, no row (issue 5).
FOLDED = {f"{T1}/.ui_messages.json.bak_1779000005201_m3k8q2w9z1.tmp": [0],
          f"{T1}/.api_conversation_history.json.bak_1779000005191_p0x7c4n2v8.tmp": [0]}


def image():
    return os.path.join(REPO, "fixtures", "images", "carve-ext4.E01")


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


class Carving(unittest.TestCase):
    raw = None

    @classmethod
    def setUpClass(cls):
        cls.raw = subprocess.run(["img_cat", image()], capture_output=True, check=True).stdout

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-carve-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, *flags, out_name="out"):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--quiet", *flags, image(), "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, TZ="UTC"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "rows.jsonl"), "rb") as f:
            data = f.read()
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        return data, [json.loads(line) for line in data.splitlines()], report

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
                        out = subprocess.run(["blkstat", image(), str(b)], capture_output=True, text=True).stdout
                        self.assertIn("Not Allocated", out, f"block {b}")
            elif s["recovery"] == "slack":
                slack_inodes.add(s["inode"])
        # The slack rows name the file whose slack it is, by the inode libtsk gives its name.
        ifind = subprocess.run(["ifind", "-n", f"/home/lena/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/"
                                f"tasks/{T1}/history_item.json", image()], capture_output=True, text=True).stdout
        self.assertEqual(slack_inodes, {int(ifind.strip())})

    def test_without_deep(self):
        plain, plain_rows, report = self.run_tool(out_name="plain")
        self.assertEqual([r for r in plain_rows if r["source"]["recovery"] in CARVED], [])
        self.assertNotIn("carving", report["partitions"][0]["scan"])
        # --deep adds the carved rows after the scan's own, which stay as they were.
        deep, _, _ = self.run_tool("--deep", out_name="deep")
        self.assertTrue(deep.startswith(plain))

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

    def test_determinism(self):
        # The same image gives the same rows on every run, whatever the number of carving threads (issue 5).
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


if __name__ == "__main__":
    args = sys.argv[1:]
    BINARY = os.path.abspath(args[args.index("--binary") + 1])
    REPO = os.path.abspath(args[args.index("--repo") + 1])
    names = [a for a in args if a.startswith("Carving")]
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromName(n, sys.modules[__name__]) for n in names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
