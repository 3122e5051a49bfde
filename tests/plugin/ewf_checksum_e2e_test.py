#!/usr/bin/env python3
"""End-to-end tests of an E01 chunk that fails its checksum, with the real roo-ingest binary.

fixtures/damaged/carve-ext4-badchunk.E01 is fixtures/images/carve-ext4.E01 with one byte of chunk 38 flipped
(fixtures/corrupt-ewf-chunk.py): sectors 2432-2495, the 1 KiB ext4 blocks 1216-1247, which hold the live task's files.
libewf reads that chunk as zeros; the scan must say so, as a warning, without --verify and without changing the exit
status. The undamaged image gives no such warning.

usage: ewf_checksum_e2e_test.py EwfChecksum.test_NAME --binary PATH --repo PATH
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY = None
REPO = None

BAD_SECTORS = (2432, 2495)  # chunk 38 of 64 sectors of 512 bytes
WARNING = ("EWF checksum error: sectors 2432-2495 (media bytes 1245184-1277951, in carve-ext4-badchunk.E01) "
           "failed their chunk checksum and were read as zeros")


def image(*parts):
    return os.path.join(REPO, "fixtures", *parts)


class EwfChecksum(unittest.TestCase):
    def run_tool(self, path, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            proc = subprocess.run([BINARY, "-q", "-o", out, *extra, path], capture_output=True, text=True)
            report = None
            if os.path.exists(os.path.join(out, "report.json")):
                with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                    report = json.load(f)
            return proc, report

    def checksum_warnings(self, report):
        return [w for w in report.get("warnings", []) if "checksum" in w]

    def test_bad_chunk_is_a_warning(self):
        good, _ = self.run_tool(image("images", "carve-ext4.E01"))
        # One worker thread, two (each with its own handle), and the scan in this process: one warning each time.
        for extra in (["--threads", "1"], ["--threads", "2"], ["--no-isolate"]):
            proc, report = self.run_tool(image("damaged", "carve-ext4-badchunk.E01"), *extra)
            self.assertEqual(proc.returncode, good.returncode, proc.stderr)  # a warning, not a failure
            self.assertEqual(self.checksum_warnings(report), [WARNING])
            self.assertEqual([l for l in proc.stderr.splitlines() if "checksum" in l],
                             ["roo-ingest: warning: " + WARNING])

    def test_good_image_has_none(self):
        proc, report = self.run_tool(image("images", "carve-ext4.E01"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.checksum_warnings(report), [])
        self.assertNotIn("checksum", proc.stderr)

    @unittest.skipUnless(shutil.which("ewfverify"), "ewfverify (ewf-tools) not installed")
    def test_range_is_the_one_ewfverify_finds(self):
        # An independent reader of the same image: ewfverify fails it at exactly the sectors the warning names.
        v = subprocess.run(["ewfverify", "-q", image("damaged", "carve-ext4-badchunk.E01")],
                           capture_output=True, text=True)
        self.assertNotEqual(v.returncode, 0)
        self.assertEqual(re.findall(r"at sector\(s\): (\d+) - (\d+)", v.stdout + v.stderr),
                         [tuple(str(s) for s in BAD_SECTORS)])
        self.assertIn("sectors %d-%d " % BAD_SECTORS, WARNING)


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "EwfChecksum")
