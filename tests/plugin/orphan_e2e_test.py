#!/usr/bin/env python3
"""End-to-end tests of --deep's look through $OrphanFiles: the real roo-ingest binary on the committed
orphan fixture images (fixtures/build-images.sh build_orphan_ntfs / build_orphan_ext4).

In both images task 019e443a-… was deleted and the rewritten tasks/_index.json took its directory's metadata entry,
so its three files are reachable by no name: libtsk lists them in $OrphanFiles, by their $FILE_NAME on NTFS and as
OrphanFile-<inode> on ext4. Expected rows are the hand-written fixtures/expected/orphan-{ntfs,ext4}.rows.jsonl; the
digests are checked against The Sleuth Kit's own icat and against the fixture tree.

usage: orphan_e2e_test.py Orphans.test_NAME --binary PATH --repo PATH
"""
import hashlib
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

TASKS = {"orphan-ntfs": "orphan-windows/Users/kai/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
         "orphan-ext4": "orphan-linux/home/kai/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"}
DELETED_TASK = "019e443a-2b99-7c1d-9e2f-3a4b5c6d7e80"
# What libtsk's $OrphanFiles holds: on NTFS the 8 reserved, never-used MFT entries 16-23 (OrphanFile-16 …, empty)
# besides the task's 3 files; on ext4 only the task's 3 files.
ORPHANS_SEEN = {"orphan-ntfs": 11, "orphan-ext4": 3}
# Rows --deep adds that are not this test's subject: carving (another part of --deep) is compared elsewhere.
CARVED = ("carved", "slack")


def image(name):
    return os.path.join(REPO, "fixtures", "images", name + ".E01")


def expected(name):
    with open(os.path.join(REPO, "fixtures", "expected", name + ".rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class Orphans(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-orphan-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, name, *flags, out_name="out"):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--quiet", *flags, image(name), "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, TZ="UTC"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        return out, [r for r in rows if r["source"]["recovery"] not in CARVED], report

    def assert_rows_match(self, produced, wanted):
        diffs = []
        for i, (exp, act) in enumerate(zip(wanted, produced)):
            diffs.extend(f"row {i} ({exp['kind']}): {d}" for d in subset_diff(exp, act))
        self.assertEqual(diffs, [])
        self.assertEqual(len(produced), len(wanted))

    def scan_of(self, report):
        parts = [p for p in report["partitions"] if p.get("kind") == "allocated"]
        self.assertEqual(len(parts), 1)
        return parts[0]["scan"]

    def check_image(self, name):
        wanted = expected(name)
        # Without --deep: no orphan row, and no orphan count in the report (nobody looked).
        _, rows, report = self.run_tool(name, out_name="plain")
        self.assert_rows_match(rows, [r for r in wanted if r["source"]["recovery"] != "orphan"])
        self.assertNotIn("orphans", self.scan_of(report))
        # With --deep: the orphan rows after everything else, recovery `orphan`, and the report's counts.
        _, rows, report = self.run_tool(name, "--deep", out_name="deep")
        self.assert_rows_match(rows, wanted)
        self.assertEqual(self.scan_of(report)["orphans"], {"files_seen": ORPHANS_SEEN[name], "roo_files_parsed": 3})
        self.assert_digests(name, rows)
        return rows

    def assert_digests(self, name, rows):
        """Every orphan row's sha256 is the digest of what icat returns for its inode, and of the file in the tree
        the image was built from (the deleted task's file of the kind the row says)."""
        icat = shutil.which("icat")
        orphan_rows = [r for r in rows if r["source"]["recovery"] == "orphan"]
        self.assertEqual(len(orphan_rows), 9)
        for r in orphan_rows:
            src = r["source"]
            self.assertIsNotNone(src["inode"])
            self.assertFalse(src["name_allocated"])
            self.assertTrue(src["path"].startswith("/$OrphanFiles/"), src["path"])
            kind_file = next(o["orphan_kind"] for o in orphan_rows
                             if o["kind"] == "orphan_file" and o["source"]["inode"] == src["inode"])
            with open(os.path.join(REPO, "fixtures", "trees", TASKS[name], DELETED_TASK, kind_file), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), src["sha256"], src["path"])
            if icat:
                data = subprocess.run([icat, image(name), str(src["inode"])], capture_output=True, check=True).stdout
                self.assertEqual(hashlib.sha256(data).hexdigest(), src["sha256"], f"icat {src['inode']}")
        if not icat:
            self.skipTest("icat not installed: digests checked against the tree only")

    # NTFS keeps an orphan's name in its MFT entry ($FILE_NAME): the kind comes from the name.
    def test_ntfs(self):
        rows = self.check_image("orphan-ntfs")
        self.assertEqual({r["kind_decided_by"] for r in rows if r["kind"] == "orphan_file"}, {"file_name"})

    # ext4 keeps no name in the inode: libtsk calls them OrphanFile-<inode>, and the kind comes from the opening bytes.
    def test_ext4(self):
        rows = self.check_image("orphan-ext4")
        self.assertEqual({r["kind_decided_by"] for r in rows if r["kind"] == "orphan_file"}, {"content"})

    # The same image gives byte-identical outputs with --deep.
    def test_determinism(self):
        a, _, _ = self.run_tool("orphan-ntfs", "--deep", out_name="a")
        b, _, _ = self.run_tool("orphan-ntfs", "--deep", out_name="b")
        for f in ("rows.jsonl", "roo.body"):
            with open(os.path.join(a, f), "rb") as x, open(os.path.join(b, f), "rb") as y:
                self.assertEqual(x.read(), y.read(), f)

    # Orphan rows have no surface, user or (but for a HistoryItem's own id) task: docs/row.schema.json allows that.
    def test_row_schema(self):
        import jsonschema

        with open(os.path.join(REPO, "docs", "row.schema.json"), encoding="utf-8") as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        for name in ("orphan-ntfs", "orphan-ext4"):
            _, rows, _ = self.run_tool(name, "--deep", out_name=name)
            for row in rows:
                self.assertEqual([e.message for e in validator.iter_errors(row)], [],
                                 f"{name}: {row['kind']} {row['source']['path']}")


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "Orphans")
