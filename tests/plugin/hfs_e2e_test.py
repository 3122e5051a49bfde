#!/usr/bin/env python3
"""HFS+ coverage: the macos tree on HFS+, read through libtsk from fixtures/images/macos-hfs.E01.

The image is an ISO 9660 / HFS+ hybrid written by xorriso (fixtures/build-images.sh --only macos-hfs): an Apple
partition map whose Apple_HFS partition is HFS+, inside an ISO 9660 file system at byte 0. Expected rows are the
hand-written fixtures/expected/macos.rows.jsonl (the same tree on FAT); partition offsets come from mmls, inodes and
times from fls, content digests from icat and the tree, so nothing roo-ingest produced is its own expectation.

usage: hfs_e2e_test.py Hfs.test_NAME --binary PATH --repo PATH
"""
import hashlib
import json
import os
import re
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


def expected(tree):
    with open(os.path.join(REPO, "fixtures", "expected", tree + ".rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tsk(*args):
    return subprocess.run(list(args), capture_output=True, text=True, check=True).stdout


def mmls_partitions(img):
    """(start sector, description) of every partition mmls lists with a slot number."""
    parts = []
    for line in tsk("mmls", img).splitlines():
        m = re.match(r"^\d+:\s+\d+\s+(\d+)\s+\d+\s+\d+\s+(.+)$", line)
        if m:
            parts.append((int(m.group(1)), m.group(2).strip()))
    return parts


def fls_body(img, offset_sectors):
    """fls -r -m: path -> (inode, mtime, atime, ctime, crtime) in whole seconds, for allocated names."""
    out = {}
    for line in tsk("fls", "-r", "-m", "/", "-o", str(offset_sectors), img).splitlines():
        f = line.split("|")
        out[f[1]] = (int(f[2].split("-")[0]), int(f[8]), int(f[7]), int(f[9]), int(f[10]))
    return out


def iso_seconds(epoch):
    import datetime
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Hfs(unittest.TestCase):
    IMG = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-hfs-")
        self.img = image("macos-hfs.E01")
        parts = mmls_partitions(self.img)
        hfs = [start for start, desc in parts if desc == "Apple_HFS"]
        self.assertEqual(len(hfs), 1, parts)
        self.hfs_start = hfs[0]
        self.iso_parts = [start for start, desc in parts if desc == "ISO9660_data"]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, img, name="out", *options):
        out = os.path.join(self.tmp, name)
        proc = subprocess.run([BINARY, "--quiet", *options, img, "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, TZ="UTC"))  # FAT keeps zone-less times (test_rows_as_on_fat)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            return out, rows, json.load(f)

    # (a) The HFS+ volume gives the hand-written macos rows, row for row, and every fact the FAT copy of the
    # same tree gives (kind, text, session, record position, and the time where it comes from the content; the file
    # times are checked against fls in test_provenance).
    def test_rows_as_on_fat(self):
        _, rows, _ = self.run_tool(self.img)
        wanted = expected("macos")
        diffs = [f"row {i}: {d}" for i, (w, r) in enumerate(zip(wanted, rows)) for d in subset_diff(w, r)]
        self.assertEqual(diffs, [])
        self.assertEqual(len(rows), len(wanted))
        _, fat_rows, _ = self.run_tool(image("macos-fat.E01"), "fat")

        def fact(r):
            s = r["source"]
            t = None if r["time_source"].startswith("file.") else r["time_utc"]
            return (r["kind"], r["text"], r["session_id"], r["surface"], r["user"], s["path"], s["record_index"],
                    s["sub_index"], r["time_source"], t)
        self.assertEqual([fact(r) for r in rows], [fact(r) for r in fat_rows])

    # (b) Provenance on HFS+. fs_type is libtsk's name for HFS+ ("hfsp"), the partition offset is the
    # Apple_HFS start mmls gives, the inode is the catalog node id fls gives the path, the four times are fls -m's
    # (HFS+ keeps whole seconds), and sha256 is the digest of what icat returns for that inode and of the tree's file.
    def test_provenance(self):
        _, rows, _ = self.run_tool(self.img)
        body = fls_body(self.img, self.hfs_start)
        digests = 0
        for r in rows:
            s = r["source"]
            self.assertEqual(s["evidence"], "macos-hfs.E01")
            self.assertEqual(s["fs_type"], "hfsp")
            self.assertEqual(s["partition_offset"], self.hfs_start * 512)
            self.assertEqual(s["recovery"], "allocated")
            self.assertTrue(s["name_allocated"] and s["meta_allocated"], s["path"])
            inode, mtime, atime, ctime, crtime = body[s["path"]]
            self.assertEqual(s["inode"], inode, s["path"])
            self.assertEqual((s["mtime"], s["atime"], s["ctime"], s["crtime"]),
                             tuple(iso_seconds(t) for t in (mtime, atime, ctime, crtime)), s["path"])
            if r["time_source"] == "file.mtime":
                self.assertEqual(r["time_utc"], iso_seconds(mtime)[:-1] + ".000Z")
            if r["time_source"] == "file.crtime":
                self.assertEqual(r["time_utc"], iso_seconds(crtime)[:-1] + ".000Z")
            if s["sha256"] is None:
                # an inventory entry (extension folder, ~/.roo rule or command, worktree): content not read
                self.assertIn(r["kind"], ("installation", "worktree", "roo_config_entry"), s["path"])
                continue
            data = subprocess.run(["icat", "-o", str(self.hfs_start), self.img, str(inode)], capture_output=True,
                                  check=True).stdout
            self.assertEqual(s["sha256"], hashlib.sha256(data).hexdigest(), s["path"])
            with open(os.path.join(REPO, "fixtures", "trees", "macos") + s["path"], "rb") as f:
                self.assertEqual(data, f.read(), s["path"])
            digests += 1
        self.assertGreaterEqual(digests, 25)

    # (c) The other parts of the hybrid. What is right for an examiner: rows from every file system libtsk
    # opens, each a copy of its own. Here libtsk opens two: HFS+ in the Apple_HFS partition, and the ISO 9660 at
    # byte 0 (fsstat) — which is not a partition of the map, and which libtsk lists with its level-1 8.3 names only
    # (USERS/FRANK/LIBRARY/APPLICAT/…; libtsk reads no Rock Ridge, and this image has no Joliet), so no Roo root can
    # be found there: the right output is the HFS+ rows once. The map's ISO9660_data partitions are pieces of that
    # ISO 9660, not file systems: each must be reported as such, not dropped silently.
    def test_iso9660_parts(self):
        _, rows, report = self.run_tool(self.img)
        self.assertEqual({r["source"]["partition_offset"] for r in rows}, {self.hfs_start * 512})
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))
        parts = {p["offset_bytes"]: p for p in report["partitions"] if p.get("kind") == "allocated"}
        self.assertEqual(len(self.iso_parts), 2)
        for start in self.iso_parts:
            self.assertEqual(parts[start * 512]["status"], "no_file_system", parts[start * 512])
            self.assertEqual(parts[start * 512]["description"], "ISO9660_data")
            # Nothing was searched there: the completeness statement (and the summary's "searched N file system(s)",
            # counted from it) must not count it as a searched file system.
            self.assertIsNone(parts[start * 512]["completeness"]["searched"], parts[start * 512])
        self.assertEqual([o for o, p in parts.items() if p["status"] == "parsed"], [self.hfs_start * 512])
        self.assertIn("File System Type: ISO9660", tsk("fsstat", self.img))
        iso_names = tsk("fls", "-r", "-p", self.img)
        self.assertIn("USERS/FRANK/LIBRARY/APPLICAT/CODE/USER/GLOBALST/ROOVETER.ROO/TASKS", iso_names)
        for name in ("Application Support", "rooveterinaryinc.roo-cline", "ui_messages.json", ".roo/"):
            self.assertNotIn(name, iso_names)

    # (d) libtsk lists only the records the HFS+ catalog B-tree still holds (hfs_dent.c flags every name it
    # lists allocated), so no deleted HFS+ name reaches roo-ingest: fls -d lists none, and no row is a recovered one.
    # (The image's deleted task comes back only by carving: test_deleted_task_carved_on_hfs.)
    def test_no_deleted_names_on_hfs(self):
        self.assertEqual(tsk("fls", "-r", "-d", "-o", str(self.hfs_start), self.img), "")
        _, rows, report = self.run_tool(self.img)
        self.assertEqual({r["source"]["recovery"] for r in rows}, {"allocated"})
        hfs = [p for p in report["partitions"] if p.get("status") == "parsed"]
        self.assertEqual([p["completeness"]["found"]["deleted_names_in_task_dirs"] for p in hfs], [0])

    # Carving on HFS+: since no deleted HFS+ name reaches roo-ingest (test_no_deleted_names_on_hfs), a deleted
    # task comes back only through --deep carving of the volume's unallocated blocks. The image holds task
    # 019dc4e1-… that frank deleted (fixtures/build-images.sh HFS_DEL_FILES: no catalog record, its three files'
    # bytes in HFS+ blocks 32, 33, 34 of 512 bytes, freed in the allocation file). Every record of those files is a
    # carved $Unallocated row: at the image offset where a plain byte search of img_cat's output finds it, in the block
    # it lies in, which blkls -l lists unallocated; the HistoryItem's rows are attributed to the task by its own id,
    # the ui and api records (nothing in them names the task, and no record of theirs is one the scan read) are
    # attributed to none (docs/row-contract.md, "Carved records": never a guess). Expected values are the tree's
    # (fixtures/trees/macos-hfs-deleted), written by hand.
    def test_deleted_task_carved_on_hfs(self):
        from carve_e2e_test import records
        task = "019dc4e1-a7c0-7b52-8e3d-6f1a2c9b0d47"
        block = 512  # fsstat -o 192: Allocation Block Size
        part = self.hfs_start * 512
        raw = subprocess.run(["img_cat", self.img], capture_output=True, check=True).stdout
        spans = {}  # image offset of each record of the deleted files -> (length, block)
        for name, blk in (("ui_messages.json", 32), ("api_conversation_history.json", 33), ("history_item.json", 34)):
            with open(os.path.join(REPO, "fixtures", "trees", "macos-hfs-deleted", task, name), "rb") as f:
                data = f.read()
            self.assertEqual(raw.count(data), 1, name)
            at = raw.find(data)
            self.assertEqual(at, part + blk * block, name)  # 98304 + 512 * block
            for s, e in records(data):
                spans[at + s] = (e - s, blk)
        free = [int(line.split("|")[0]) for line in tsk("blkls", "-o", str(self.hfs_start), "-l", self.img).splitlines()
                if line.endswith("|f")]
        self.assertEqual(free, [32, 33, 34])

        _, rows, report = self.run_tool(self.img, "deep", "--deep")
        rows = [r for r in rows if r["source"]["path"] != "$Unpartitioned"]  # test_unpartitioned_item_carved
        carved = [r for r in rows if r["source"]["recovery"] != "allocated"]
        prompt = "Is there a test for the health route? If not, say which file it would go in."
        answer = "Yes: test/health.test.js covers GET /health (status 200 and the JSON body)."
        none = {"attribution": "none", "session_id": None, "surface": None, "user": None, "project_path": None}
        wanted = [  # image offset order: ui_messages.json (block 32), api history (33), history_item.json (34)
            dict(none, kind="user_message", carved_kind="ui_message", text=prompt, time_utc="2026-04-25T13:43:36.128Z",
                 time_source="ui.ts"),
            dict(none, kind="api_request", carved_kind="ui_message", time_utc="2026-04-25T13:43:36.540Z",
                 time_source="ui.ts", tokens_in=7, tokens_out=58, cache_writes=10340, cache_reads=0, cost_usd=0.0396),
            dict(none, kind="assistant_message", carved_kind="ui_message", text=answer,
                 time_utc="2026-04-25T13:43:39.874Z", time_source="ui.ts"),
            dict(none, kind="user_message", carved_kind="api_message", text=prompt, time_utc="2026-04-25T13:43:36.532Z",
                 time_source="api.ts"),
            dict(none, kind="assistant_message", carved_kind="api_message", text=answer,
                 time_utc="2026-04-25T13:43:39.860Z", time_source="api.ts"),
            {"kind": "task", "carved_kind": "history_item", "attribution": "task_id", "session_id": task, "text": prompt,
             "time_utc": "2026-04-25T13:43:39.874Z", "time_source": "history_item.ts", "task_number": 2, "mode": "ask",
             "tokens_in": 7, "tokens_out": 58, "cost_usd": 0.0396, "known_from": "history_item",
             "task_dir_present": False, "task_id_time_utc": "2026-04-25T13:43:36.128Z"},
            {"kind": "permission_mode", "carved_kind": "history_item", "attribution": "task_id", "session_id": task,
             "mode": "ask", "time_utc": "2026-04-25T13:43:39.874Z", "time_source": "history_item.ts"},
        ]
        diffs = [f"row {i}: {d}" for i, (w, r) in enumerate(zip(wanted, carved)) for d in subset_diff(w, r)]
        self.assertEqual(diffs, [])
        self.assertEqual(len(carved), len(wanted))
        seen = set()
        for r in carved:
            s = r["source"]
            self.assertEqual((s["recovery"], s["path"], s["inode"], s["fs_type"], s["partition_offset"]),
                             ("carved", "$Unallocated", None, "hfsp", part))
            length, blk = spans[s["byte_offset"]]
            self.assertEqual(s["byte_length"], length, r["kind"])
            self.assertEqual(s["blocks"], [[blk, blk]], r["kind"])
            self.assertIn("Not Allocated", tsk("blkstat", "-o", str(self.hfs_start), self.img, str(blk)))
            seen.add(s["byte_offset"])
        self.assertEqual(seen, set(spans))  # every record of the deleted files, each once
        self.assertFalse(any(c["recovery"] == "carved" for r in rows for c in r.get("also_in", [])))
        c = [p for p in report["partitions"] if p.get("status") == "parsed"][0]["scan"]["carving"]
        self.assertEqual(c["records"]["ui_message"], {"found": 3, "folded": 0, "kept": 3})
        self.assertEqual(c["records"]["api_message"], {"found": 2, "folded": 0, "kept": 2})
        self.assertEqual(c["records"]["history_item"], {"found": 1, "folded": 0, "kept": 1})
        self.assertEqual(c["unattributed"], 5)
        self.assertEqual(c["unallocated_bytes"], 3 * block)  # the volume's three free blocks
        self.assertEqual(c["errors"], [])
        # The scan's rows are the run without --deep's, unchanged; the carved rows come after them.
        _, plain, _ = self.run_tool(self.img, "plain")
        self.assertEqual(rows[:len(plain)], plain)
        self.assertEqual(rows[len(plain):], carved)

    # Carving unpartitioned space, a bug found with this image: the gaps are carved once per image, by the
    # first partition's job, and on an Apple partition map that partition is the map itself, with no file system:
    # its job carved nothing, and the gaps were never carved. An older task's history item lies in mmls's
    # unallocated slot 003 (sectors 5-63; fixtures/build-images.sh HFS_GAP_OFFSET): it comes back as two carved
    # $Unpartitioned rows, before the HFS+ partition's, at the offset a byte search of img_cat finds, with no blocks.
    def test_unpartitioned_item_carved(self):
        with open(os.path.join(REPO, "fixtures", "trees", "macos-hfs-deleted", "unpartitioned", "history_item.json"),
                  "rb") as f:
            item = f.read()
        raw = subprocess.run(["img_cat", self.img], capture_output=True, check=True).stdout
        self.assertEqual((raw.count(item), raw.find(item)), (1, 5120))
        self.assertIn("003:  -------   0000000005   0000000063   0000000059   Unallocated", tsk("mmls", self.img))
        _, rows, report = self.run_tool(self.img, "deep", "--deep")
        task = "019d005e-b520-7a3c-9b41-5e2f8c7d0a16"
        source = {"path": "$Unpartitioned", "recovery": "carved", "fs_type": "none", "partition_offset": None,
                  "inode": None, "byte_offset": 5120, "byte_length": len(item)}
        wanted = [
            {"kind": "task", "carved_kind": "history_item", "attribution": "task_id", "session_id": task,
             "text": "Add a .nvmrc pinning Node 20 and mention it in the README.", "time_utc": "2026-03-18T10:00:12.345Z",
             "time_source": "history_item.ts", "task_number": 1, "mode": "code", "tokens_in": 5, "tokens_out": 41,
             "cost_usd": 0.0347, "known_from": "history_item", "task_dir_present": False,
             "task_id_time_utc": "2026-03-18T09:55:00.000Z", "source": source,
             # the scan read no file of the task: no identity beyond its id (docs/row-contract.md, attribution)
             "project_path": None, "user": None, "surface": None},
            {"kind": "permission_mode", "carved_kind": "history_item", "attribution": "task_id", "session_id": task,
             "mode": "code", "time_utc": "2026-03-18T10:00:12.345Z", "time_source": "history_item.ts", "source": source},
        ]
        diffs = [f"row {i}: {d}" for i, (w, r) in enumerate(zip(wanted, rows)) for d in subset_diff(w, r)]
        self.assertEqual(diffs, [])
        self.assertEqual([r for r in rows if r["source"]["path"] == "$Unpartitioned"], rows[:2])
        self.assertNotIn("blocks", rows[0]["source"])
        # Carved by the map's own job: mmls's slots 000 (sector 0) and 003 (sectors 5-63), 60 sectors.
        carving = {p["offset_bytes"]: p["scan"]["carving"] for p in report["partitions"]
                   if isinstance(p.get("scan"), dict) and "carving" in p["scan"]}
        self.assertEqual({o: c["unpartitioned_bytes"] for o, c in carving.items()}, {512: 60 * 512, self.hfs_start * 512: 0})
        self.assertEqual(carving[512]["records"]["history_item"], {"found": 1, "folded": 0, "kept": 1})

    # Same image, byte-identical rows.jsonl and roo.body.
    def test_determinism(self):
        a, _, _ = self.run_tool(self.img, "a")
        b, _, _ = self.run_tool(self.img, "b")
        for name in ("rows.jsonl", "roo.body"):
            with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
                data = fa.read()
                self.assertGreater(len(data), 0, name)
                self.assertEqual(data, fb.read(), name)


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "Hfs")
