#!/usr/bin/env python3
"""End-to-end tests of APFS containers, with the real roo-ingest binary.

fixtures/external/dfvfs-apfs.raw is a container that macOS wrote (fixtures/README.md "External images"): one volume,
apfs_test, holding no Roo file. The values expected are what libtsk's pstat prints for it. A run must open it, search
its volume, list both in report.json, and give no row, no parser error and no failure; --deep carves the container's
free blocks (pstat: "Capacity Available: 3702784 B"). A container whose volume superblock is overwritten is reported
as damaged, with libtsk's reason.

usage: apfs_e2e_test.py Apfs.test_NAME --binary PATH --repo PATH
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import e2e_main

BINARY = None
REPO = None

CONTAINER_UUID = "d08a9fa0-d5a5-458b-813e-ebf9bf5d5338"
VOLUME = {"index": 0, "name": "apfs_test", "role": "none", "uuid": "458ed10d-8ac3-4af1-8dfd-3954d151a3f3",
          "block": 107, "case_sensitive": False, "encrypted": False}


def real_container():
    return os.path.join(REPO, "fixtures", "external", "dfvfs-apfs.raw")


class Apfs(unittest.TestCase):
    def run_tool(self, path, *extra):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        out = os.path.join(tmp.name, "out")
        proc = subprocess.run([BINARY, "-q", "-o", out, *extra, path], capture_output=True, text=True)
        report = None
        if os.path.exists(os.path.join(out, "report.json")):
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        rows = []
        if os.path.exists(os.path.join(out, "rows.jsonl")):
            with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
                rows = [json.loads(line) for line in f]
        return proc, report, rows

    def test_real_container_is_searched(self):
        proc, report, rows = self.run_tool(real_container())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(report["partitions"]), 1)
        p = report["partitions"][0]
        self.assertEqual(p["status"], "parsed")
        self.assertEqual(p["fs_type"], "apfs")
        self.assertEqual(p["apfs_container"], {"uuid": CONTAINER_UUID, "block_size": 4096, "blocks": 1014,
                                               "volumes": 1})
        self.assertEqual({k: p["apfs_volume"][k] for k in VOLUME}, VOLUME)
        self.assertTrue(p["completeness"]["searched"])
        self.assertEqual(rows, [])
        self.assertNotIn("parser_error", proc.stderr)

    def test_deep_carves_the_container_free_blocks(self):
        proc, report, rows = self.run_tool(real_container(), "--deep")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        carving = report["partitions"][0]["scan"]["carving"]
        self.assertEqual(carving["unallocated_bytes"], 3702784)
        self.assertEqual(carving["errors"], [])
        self.assertEqual(rows, [])

    def test_damaged_volume_superblock_says_why(self):
        with open(real_container(), "rb") as f:
            data = bytearray(f.read())
        data[107 * 4096 + 32:108 * 4096] = b"\xff" * (4096 - 32)
        with tempfile.TemporaryDirectory() as tmp:
            damaged = os.path.join(tmp, "evidence", "damaged-apfs.raw")
            os.mkdir(os.path.dirname(damaged))
            with open(damaged, "wb") as f:
                f.write(data)
            proc, report, rows = self.run_tool(damaged)
        self.assertEqual(proc.returncode, 6, proc.stderr)  # no file system could be opened
        self.assertEqual(report["partitions"][0]["status"], "no_file_system")
        self.assertTrue(report["partitions"][0]["reason"].startswith("damaged APFS container: "),
                        report["partitions"][0]["reason"])
        self.assertEqual(rows, [])

    # The pool code path on damaged containers: each copy has a few bytes overwritten inside the blocks the container
    # uses (its metadata: superblocks, checkpoint, object maps, B-trees). Whatever libtsk makes of it, the run ends
    # with a report and an exit status the report explains (0 parsed, 5 partial: a worker crashed or hung, 6 nothing
    # opened), in bounded time; a crash stays in its worker.
    def test_mutated_containers_end_with_a_report(self):
        import random
        with open(real_container(), "rb") as f:
            original = f.read()
        rng = random.Random(20261202)  # the same copies every run
        used_blocks = 110  # pstat: 450560 bytes in use, the first blocks of the container
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "evidence"))
            for n in range(40):
                data = bytearray(original)
                for _ in range(rng.choice((1, 4, 16))):
                    at = rng.randrange(used_blocks * 4096)
                    data[at] = rng.randrange(256)
                path = os.path.join(tmp, "evidence", f"mutated-{n}.raw")
                with open(path, "wb") as f:
                    f.write(data)
                out = os.path.join(tmp, f"out-{n}")
                proc = subprocess.run([BINARY, "-q", "--deep", "--stall-timeout", "20", "-o", out, path],
                                      capture_output=True, text=True, timeout=120)
                self.assertIn(proc.returncode, (0, 5, 6), f"copy {n}: {proc.stderr}")
                with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                    report = json.load(f)
                statuses = [p["status"] for p in report["partitions"]]
                self.assertTrue(statuses, f"copy {n}")
                if proc.returncode == 0:
                    self.assertIn("parsed", statuses, f"copy {n}")
                os.remove(path)
                shutil.rmtree(out)


if __name__ == "__main__":
    e2e_main.run(sys.modules[__name__], "Apfs")
