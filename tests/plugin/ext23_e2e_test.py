#!/usr/bin/env python3
"""ext2 and ext3 coverage (ext4's siblings): recovery-ext2.E01 and recovery-ext3.E01 hold the recovery-linux
tree with the same times and the same debugfs deletions as recovery-ext4.E01 (fixtures/build-images.sh
--only recovery-ext2,recovery-ext3). Their rows must be the hand-written fixtures/expected/recovery-ext4.rows.jsonl,
except the provenance that the file system decides, which is checked against The Sleuth Kit's own tools: fs_type,
inode (fls), the file times (fls -m) and the content digest (icat, and the tree's bytes before the delete).

usage: ext23_e2e_test.py Ext23.test_NAME --binary PATH --repo PATH
"""
import datetime
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


def image(name):
    return os.path.join(REPO, "fixtures", "images", name)


def iso_seconds(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fls_body(img):
    """fls -r -m over allocated and deleted names: path -> [(inode, mtime, atime, ctime, crtime), …]."""
    out = {}
    body = subprocess.run(["fls", "-r", "-m", "/", img], capture_output=True, text=True, check=True).stdout
    for line in body.splitlines():
        f = line.split("|")
        path = f[1].removesuffix(" (deleted-realloc)").removesuffix(" (deleted)")
        out.setdefault(path, []).append((int(f[2]), int(f[8]), int(f[7]), int(f[9]), int(f[10])))
    return out


class Ext23(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-ext23-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, name):
        out = os.path.join(self.tmp, name)
        proc = subprocess.run([BINARY, "--quiet", image(name + ".E01"), "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, TZ="UTC"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def check(self, fs):
        img = image(f"recovery-{fs}.E01")
        rows = self.run_tool(f"recovery-{fs}")
        with open(os.path.join(REPO, "fixtures", "expected", "recovery-ext4.rows.jsonl"), encoding="utf-8") as f:
            wanted = [json.loads(line) for line in f if line.strip()]
        # What the file system decides is checked below against fls/icat; everything else is ext4's, row for row.
        for w in wanted:
            w["source"].pop("inode", None)
            if w["time_source"].startswith("file."):
                w.pop("time_utc")
        diffs = [f"row {i}: {d}" for i, (w, r) in enumerate(zip(wanted, rows)) for d in subset_diff(w, r)]
        self.assertEqual(diffs, [])
        self.assertEqual(len(rows), len(wanted))

        body = fls_body(img)
        tree = os.path.join(REPO, "fixtures", "trees", "recovery-linux")
        digests = 0
        for r in rows:
            s = r["source"]
            self.assertEqual(s["fs_type"], fs)
            self.assertEqual(s["partition_offset"], 0)  # a bare file system
            entries = [e for e in body[s["path"]] if e[0] == s["inode"]]
            self.assertEqual(len(entries), 1, f"{s['path']}: inode {s['inode']} not listed by fls: {body[s['path']]}")
            inode, mtime, atime, ctime, crtime = entries[0]
            # libtsk reads the large inode's nanosecond and creation fields on ext4 only: whole seconds, no crtime.
            self.assertEqual((s["mtime"], s["atime"], s["ctime"]), tuple(iso_seconds(t) for t in (mtime, atime, ctime)))
            self.assertEqual(crtime, 0)
            self.assertIsNone(s["crtime"], s["path"])
            if r["time_source"] == "file.mtime":
                self.assertEqual(r["time_utc"], iso_seconds(mtime)[:-1] + ".000Z", s["path"])
            if s["sha256"] is None:
                continue
            # debugfs rm keeps a freed inode's block pointers on ext2/3 as on ext4 (a kernel ext3 delete zeroes them):
            # every deleted file's bytes come back whole.
            data = subprocess.run(["icat", img, str(inode)], capture_output=True, check=True).stdout
            self.assertEqual(s["sha256"], hashlib.sha256(data).hexdigest(), s["path"])
            if not s["reallocated"]:
                with open(tree + s["path"], "rb") as f:
                    self.assertEqual(data, f.read(), s["path"])
            digests += 1
        # Every deleted row that reads content (the hand-written rows say which) has it: none came back as zeros.
        deleted = [w for w in wanted if w["source"]["recovery"] == "deleted"
                   and w["kind"] not in ("deleted_entry", "ephemeral_dir")]
        self.assertEqual(sum(1 for r in rows if r["source"]["recovery"] == "deleted" and r["source"]["sha256"]),
                         len(deleted))
        self.assertGreaterEqual(digests, 60)

    def test_ext2(self):
        self.check("ext2")

    def test_ext3(self):
        self.check("ext3")


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "Ext23")
