#!/usr/bin/env python3
"""End-to-end tests of truncated disk images with the real roo-ingest binary: the media of fixtures/images/demo.E01
(a 10 MiB GPT disk, fixtures/images/README.md: ext4 "linux" at sectors 2048-10239, NTFS "windows" at 10240-18431),
read out with The Sleuth Kit's img_cat, cut with a plain slice of its bytes, and once rewritten as a DOS MBR disk.

- Cut inside partition 1, before partition 2 starts: libtsk refuses the table (mmls finds no GPT), yet partition 1's
  rows are those of the whole disk's partition 1, and report.json lists both partitions as cut, with where.
- The same with a DOS MBR for the same two partitions.
- Cut inside partition 2: libtsk accepts the table; both partitions' rows are the whole disk's; partition 2 is cut.

Every image is written under the name demo.raw (the evidence id, which is in every row and its row_id), so rows can
be compared with the whole disk's as they are.

usage: truncated_e2e_test.py Truncated.test_NAME --binary PATH --repo PATH
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

BINARY = None
REPO = None

SECTOR = 512
P1 = (2048 * SECTOR, 8192 * SECTOR)  # (offset, length) from fixtures/images/README.md
P2 = (10240 * SECTOR, 8192 * SECTOR)
INSIDE_FIRST = 4120576  # 3072000 bytes into partition 1
INSIDE_SECOND = 7340032  # 2097152 bytes into partition 2


def images(name):
    return os.path.join(REPO, "fixtures", "images", name)


def mbr_disk(disk):
    """The disk with a DOS MBR (UEFI spec section 5.2.1: four 16-byte records from byte 446 - boot indicator, CHS,
    type, CHS, first LBA, sector count - and 55 AA at 510) for the same two partitions, ext4 type 0x83 and NTFS type
    0x07, and the GPT header and entry array (sectors 1-33) zeroed."""
    d = bytearray(disk)
    d[0:34 * SECTOR] = bytes(34 * SECTOR)
    for slot, (ptype, (offset, length)) in enumerate([(0x83, P1), (0x07, P2)]):
        r = 446 + 16 * slot
        d[r + 4] = ptype
        d[r + 8:r + 12] = (offset // SECTOR).to_bytes(4, "little")
        d[r + 12:r + 16] = (length // SECTOR).to_bytes(4, "little")
    d[510:512] = b"\x55\xaa"
    return bytes(d)


def mmls_slots(path):
    """mmls's listing: (slot, start sector, length in sectors, description), or None when it finds no table."""
    proc = subprocess.run(["mmls", "-t", "gpt", path], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return [(int(m[1]), int(m[2]), int(m[3]), m[4]) for m in
            re.finditer(r"^(\d+):\s+\S+\s+(\d+)\s+\d+\s+(\d+)\s+(.*)$", proc.stdout, re.M)]


class Truncated(unittest.TestCase):
    whole = None  # the disk's bytes
    whole_run = None  # (rows, report) of the whole disk

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.whole = subprocess.run(["img_cat", images("demo.E01")], capture_output=True, check=True).stdout
        assert len(cls.whole) == 10485760
        cls.whole_path, cls.whole_run = cls.run_tool(cls.whole, "whole")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def run_tool(cls, disk, name, want_exit=0):
        d = os.path.join(cls.tmp.name, name)
        os.makedirs(d)
        path = os.path.join(d, "demo.raw")
        with open(path, "wb") as f:
            f.write(disk)
        out = os.path.join(cls.tmp.name, name + "-out")  # never below the image's folder
        proc = subprocess.run([BINARY, "-q", "-o", out, path], capture_output=True, text=True)
        assert proc.returncode == want_exit, f"{name}: exit {proc.returncode}: {proc.stderr}"
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        return path, (rows, report)

    def rows_at(self, rows, offset):
        return [r for r in rows if r["source"].get("partition_offset") == offset]

    def partition(self, report, offset):
        [p] = [p for p in report["partitions"] if p.get("offset_bytes") == offset and p["kind"] == "allocated"]
        return p

    def listing(self, report):
        keys = ("index", "offset_bytes", "length_bytes", "description", "volume_system", "kind")
        return [tuple(p[k] for k in keys) for p in report["partitions"]]

    def assert_same_rows_on(self, rows, offset):
        want = self.rows_at(self.whole_run[0], offset)
        self.assertGreater(len(want), 50)  # the whole disk's partition has its tree's rows
        self.assertEqual(self.rows_at(rows, offset), want)

    def test_gpt_cut_inside_first(self):
        path, (rows, report) = self.run_tool(self.whole[:INSIDE_FIRST], "gpt-inside-first")
        self.assertIsNone(mmls_slots(path), "libtsk should refuse this GPT (partition 2 starts past the end)")
        self.assert_same_rows_on(rows, P1[0])
        self.assertEqual(self.rows_at(rows, P2[0]), [])
        # The whole disk's listing as mmls gives it, without the gap at the end of the disk (past the cut).
        whole = mmls_slots(self.whole_path)
        self.assertEqual(whole[-1][3], "Unallocated")
        self.assertEqual([(slot, start * SECTOR, n * SECTOR, desc) for slot, start, n, desc in whole[:-1]],
                         [p[:4] for p in self.listing(report)])
        self.assertEqual(self.listing(report), self.listing(self.whole_run[1])[:-1])
        for p in report["partitions"]:
            self.assertEqual(p["table_read_by"], "roo-ingest")
        p1, p2 = self.partition(report, P1[0]), self.partition(report, P2[0])
        self.assertEqual(p1["status"], "parsed")
        self.assertEqual(p1["fs_type"], "ext4")
        self.assertEqual(p1["cut"], {"image_ends_at_byte": INSIDE_FIRST, "partition_ends_at_byte": sum(P1),
                                     "bytes_in_image": INSIDE_FIRST - P1[0]})
        self.assertEqual(p2["status"], "no_file_system")
        self.assertEqual(p2["reason"], "partition starts past the end of the image")
        self.assertEqual(p2["cut"], {"image_ends_at_byte": INSIDE_FIRST, "partition_ends_at_byte": sum(P2),
                                     "bytes_in_image": 0})
        for p in self.whole_run[1]["partitions"]:
            self.assertNotIn("cut", p)
            self.assertNotIn("table_read_by", p)

    def test_dos_cut_inside_first(self):
        _, (full_rows, full_report) = self.run_tool(mbr_disk(self.whole), "dos-whole")
        path, (rows, report) = self.run_tool(mbr_disk(self.whole[:INSIDE_FIRST]), "dos-inside-first")
        # The whole MBR disk is libtsk's as before: its partition 1 gives the GPT disk's rows.
        self.assertEqual(self.partition(full_report, P1[0])["volume_system"], "dos")
        self.assertNotIn("table_read_by", self.partition(full_report, P1[0]))
        self.assertEqual(self.rows_at(full_rows, P1[0]), self.rows_at(self.whole_run[0], P1[0]))
        self.assertEqual(subprocess.run(["mmls", "-t", "dos", path], capture_output=True).returncode, 1,
                         "libtsk should refuse this MBR (partition 2 starts past the end)")
        self.assert_same_rows_on(rows, P1[0])
        p1, p2 = self.partition(report, P1[0]), self.partition(report, P2[0])
        self.assertEqual((p1["length_bytes"], p1["description"], p1["volume_system"]), (P1[1], "DOS type 0x83", "dos"))
        self.assertEqual((p2["length_bytes"], p2["description"]), (P2[1], "DOS type 0x07"))
        self.assertEqual(p1["cut"], {"image_ends_at_byte": INSIDE_FIRST, "partition_ends_at_byte": sum(P1),
                                     "bytes_in_image": INSIDE_FIRST - P1[0]})
        self.assertEqual(p2["cut"]["bytes_in_image"], 0)
        self.assertEqual(p1["table_read_by"], "roo-ingest")

    def test_gpt_cut_inside_second(self):
        _, (rows, report) = self.run_tool(self.whole[:INSIDE_SECOND], "gpt-inside-second")
        self.assert_same_rows_on(rows, P1[0])
        self.assert_same_rows_on(rows, P2[0])  # the NTFS tree's files lie in its first 2 MiB
        self.assertEqual(self.listing(report), self.listing(self.whole_run[1])[:-1])
        p1, p2 = self.partition(report, P1[0]), self.partition(report, P2[0])
        self.assertNotIn("cut", p1)
        self.assertNotIn("table_read_by", p2)
        self.assertEqual(p2["cut"], {"image_ends_at_byte": INSIDE_SECOND, "partition_ends_at_byte": sum(P2),
                                     "bytes_in_image": INSIDE_SECOND - P2[0]})


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "Truncated")
