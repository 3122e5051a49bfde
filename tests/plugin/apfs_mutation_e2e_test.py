#!/usr/bin/env python3
"""The APFS pool code path on mutated containers, with the real roo-ingest binary: no crash of the run, no hang, a
report every time, and a worker that dies on a damaged volume isolated and reported with its volume.

libtsk is not instrumented, so coverage cannot guide a fuzzer through its APFS code; this is a mutation test with
fixed seeds instead. Its inputs are the small APFS images (fixtures/README.md "APFS fixtures", "External images"),
each read once into raw bytes (img_cat for an E01): macos-apfs.E01 (a bare container, free blocks for --deep),
dfvfs-apfs.raw (the container macOS wrote), macos-apfs-snap.E01 (a GPT Mac disk, three volumes, a snapshot) and
macos-apfs-filevault.E01 (an encrypted volume, read with its password) and macos-apfs-filevault-snap.E01 (an
encrypted volume with a snapshot, read with its password and --deep: carved decrypted). Each copy gets one mutation of one of four
kinds, only inside the container's blocks that hold data (the rest are zeros):

  flip      1 to 16 random bits flipped;
  zero      one block zeroed;
  truncate  the image cut at a block boundary inside the data (never before its second block);
  field     one 2-, 4- or 8-byte field of one object changed (0, all ones, a small number, the value +-1, random)
            and its Fletcher-64 checksum (Apple File System Reference, "Objects": obj_phys_t o_cksum) computed again,
            so the object passes libtsk's checksum check and the change reaches its parsing. Half of the fields are
            in the first 128 bytes (object, node and superblock headers), a quarter in the last 40 (a root node's
            btree_info_t), a quarter anywhere. Only blocks whose checksum holds are chosen (an encrypted volume's
            tree nodes do not: they are AES-XTS ciphertext).

Every run must end with one of the documented exit codes 0, 5 or 6 (README.md "Exit codes"), within the time
--stall-timeout allows, having written report.json; every partition entry there that crashed, hung or failed says
why, a worker of a container that crashed or hung names its volume (UUID, name, block), and makes the exit code 5.
One more run injects a worker crash (ROO_INGEST_TEST_CRASH_PARTITION, plugin/run.cpp) into the Mac disk's
container, so that path is held to the same rules even when no mutation makes libtsk crash.

MUTATIONS_PER_IMAGE copies per image (fixtures/README.md "Mutated containers": the count that keeps this under a
minute in CI); the seed of copy n of an image is its name and n, so every run mutates the same way.

usage: apfs_mutation_e2e_test.py ApfsMutation.test_NAME --binary PATH --repo PATH
"""
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest

import e2e_main

BINARY = None
REPO = None

BS = 4096
MUTATIONS_PER_IMAGE = 10
STALL_TIMEOUT = 10
RUN_TIMEOUT = 120
KINDS = ("flip", "zero", "truncate", "field")
# fixtures/build-apfs.sh FV_PASSWORD and FVS_PASSWORD: the password file holds both, each volume takes the one that
# unlocks it
PASSWORDS = ("tr0ub4dor&3 roo fixture", "c0rrect h0rse; roo snapshot")
# name, path below fixtures/, the container's first byte (fixtures/README.md), extra options
IMAGES = (
    ("macos-apfs", "apfs/macos-apfs.E01", 0, ["--deep"]),
    ("dfvfs-apfs", "external/dfvfs-apfs.raw", 0, ["--deep"]),
    ("macos-apfs-snap", "apfs/macos-apfs-snap.E01", 8232 * 512, []),
    ("macos-apfs-filevault", "apfs/macos-apfs-filevault.E01", 0, ["--password-file", None]),
    ("macos-apfs-filevault-snap", "apfs/macos-apfs-filevault-snap.E01", 0, ["--deep", "--password-file", None]),
)


def fletcher64(data):
    """Apple File System Reference, "Objects": the Fletcher-64 checksum of a block's bytes after its first 8."""
    s1 = s2 = 0
    for (w,) in struct.iter_unpack("<I", data[8:]):
        s1 = (s1 + w) % 0xFFFFFFFF
        s2 = (s2 + s1) % 0xFFFFFFFF
    c1 = 0xFFFFFFFF - ((s1 + s2) % 0xFFFFFFFF)
    c2 = 0xFFFFFFFF - ((s1 + c1) % 0xFFFFFFFF)
    return struct.pack("<II", c1, c2)


class Image:
    """An image's bytes as data blocks (4 KiB, counted from the container's first byte) and its size."""

    def __init__(self, path, container_offset):
        self.offset = container_offset
        if path.lower().endswith(".e01"):
            proc = subprocess.Popen(["img_cat", path], stdout=subprocess.PIPE)
            stream = proc.stdout
        else:
            proc, stream = None, open(path, "rb")
        self.head = stream.read(container_offset)   # the GPT and what precedes the container, kept as it is
        self.blocks = {}
        n = 0
        while True:
            b = stream.read(BS)
            if not b:
                break
            if b.count(0) != len(b):
                self.blocks[n] = b
            n += 1
            self.size = container_offset + (n - 1) * BS + len(b)
        stream.close()
        if proc and proc.wait() != 0:
            raise RuntimeError(f"img_cat {path} failed")
        self.data_blocks = sorted(self.blocks)
        self.objects = [n for n in self.data_blocks if len(self.blocks[n]) == BS
                        and fletcher64(self.blocks[n]) == self.blocks[n][:8]]

    def write(self, path, blocks, size):
        """A sparse copy: the head, the data blocks, zeros (holes) elsewhere, cut at size."""
        with open(path, "wb") as f:
            f.write(self.head)
            for n in sorted(blocks):
                at = self.offset + n * BS
                if at < size:
                    f.seek(at)
                    f.write(blocks[n][:size - at])
            f.truncate(size)


def mutate(image, rng, kind):
    """A copy of the image's data blocks with one mutation, the copy's size, and what was done."""
    blocks = dict(image.blocks)
    size = image.size
    if kind == "flip":
        flips = rng.choice((1, 4, 16))
        for _ in range(flips):
            n = rng.choice(image.data_blocks)
            b = bytearray(blocks[n])
            bit = rng.randrange(len(b) * 8)
            b[bit // 8] ^= 1 << (bit % 8)
            blocks[n] = bytes(b)
        return blocks, size, f"{flips} bit(s) flipped"
    if kind == "zero":
        n = rng.choice(image.data_blocks)
        blocks[n] = bytes(BS)
        return blocks, size, f"block {n} zeroed"
    if kind == "truncate":
        n = rng.choice([n for n in image.data_blocks if n >= 1])
        size = image.offset + n * BS
        return blocks, size, f"cut at block {n}"
    n = rng.choice(image.objects)
    b = bytearray(blocks[n])
    width = rng.choice((2, 4, 8))
    where = rng.random()
    if where < 0.5:
        at = rng.randrange(32, 128, width)
    elif where < 0.75:
        at = rng.randrange(BS - 40, BS, width)
    else:
        at = rng.randrange(8, BS, width)
    fmt = {2: "<H", 4: "<I", 8: "<Q"}[width]
    old = struct.unpack_from(fmt, b, at)[0]
    top = (1 << (8 * width)) - 1
    new = rng.choice((0, top, rng.randrange(1, 64), (old + 1) & top, (old - 1) & top, rng.randrange(top + 1)))
    struct.pack_into(fmt, b, at, new)
    b[:8] = fletcher64(b)
    blocks[n] = bytes(b)
    return blocks, size, f"block {n} byte {at}: {width}-byte field {old:#x} -> {new:#x}, checksum recomputed"


class ApfsMutation(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="roo-apfs-mutation-")
        self.addCleanup(self.tmp.cleanup)
        self.password_file = os.path.join(self.tmp.name, "password.txt")
        with open(self.password_file, "w", encoding="utf-8") as f:
            f.write("".join(p + "\n" for p in PASSWORDS))

    def run_and_check(self, path, options, what, env=None):
        """Runs roo-ingest on path; checks the exit code, report.json and its failed entries. Returns the report
        and the exit code."""
        out = os.path.join(self.tmp.name, "out")
        cmd = [BINARY, "-q", "--stall-timeout", str(STALL_TIMEOUT), "-o", out, "--force", *options, path]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                                  env=dict(os.environ, **(env or {})))
        except subprocess.TimeoutExpired:
            self.fail(f"{what}: no end within {RUN_TIMEOUT} s (--stall-timeout {STALL_TIMEOUT})")
        self.assertIn(proc.returncode, (0, 5, 6), f"{what}: exit {proc.returncode}: {proc.stderr[-2000:]}")
        report_path = os.path.join(out, "report.json")
        self.assertTrue(os.path.exists(report_path), f"{what}: no report.json")
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
        self.assertTrue(report["partitions"], what)
        for p in report["partitions"]:
            if p["status"] not in ("crashed", "hung", "failed"):
                continue
            self.assertTrue(p.get("reason"), f"{what}: {p['status']} entry without a reason: {p}")
            self.assertTrue(p["completeness"]["failed"], f"{what}: {p['status']} entry, completeness says nothing")
            if p["status"] in ("crashed", "hung"):
                # A container's volumes each have a worker: the one that died is named.
                if "apfs_container" in p:
                    vol = p.get("apfs_volume") or {}
                    self.assertTrue(vol.get("uuid") and vol.get("name") is not None and vol.get("block"),
                                    f"{what}: {p['status']} worker of a container does not name its volume: {p}")
                self.assertEqual(proc.returncode, 5, f"{what}: a {p['status']} worker, exit {proc.returncode}")
        return report, proc.returncode

    def test_mutated_containers_end_with_a_report(self):
        outcomes = {}
        for name, rel, offset, options in IMAGES:
            image = Image(os.path.join(REPO, "fixtures", rel), offset)
            self.assertTrue(image.objects, name)
            options = [self.password_file if o is None else o for o in options]
            os.makedirs(os.path.join(self.tmp.name, "evidence"), exist_ok=True)
            path = os.path.join(self.tmp.name, "evidence", name + ".raw")
            for n in range(MUTATIONS_PER_IMAGE):
                rng = random.Random(f"{name}/{n}")
                kind = KINDS[n % len(KINDS)]
                blocks, size, done = mutate(image, rng, kind)
                image.write(path, blocks, size)
                report, code = self.run_and_check(path, options, f"{name} copy {n} ({done})")
                statuses = sorted({p["status"] for p in report["partitions"]})
                outcomes.setdefault((name, kind, code, tuple(statuses)), 0)
                outcomes[(name, kind, code, tuple(statuses))] += 1
        for (name, kind, code, statuses), count in sorted(outcomes.items()):
            print(f"{name:22} {kind:8} exit {code}  {count:2} cop{'y' if count == 1 else 'ies'}  {', '.join(statuses)}")

    # A worker killed by a signal inside the Mac disk's container (what a libtsk crash on a damaged volume does):
    # that volume's entry is crashed, names its volume, and the exit code is 5; the other volumes are parsed.
    def test_a_crashed_volume_worker_is_reported_with_its_volume(self):
        path = os.path.join(REPO, "fixtures", "apfs", "macos-apfs-snap.E01")
        report, code = self.run_and_check(path, [], "injected crash", env={"ROO_INGEST_TEST_CRASH_PARTITION": "5"})
        self.assertEqual(code, 5)
        volumes = {p["apfs_volume"]["name"]: p["status"] for p in report["partitions"] if p.get("apfs_volume")}
        # mmls: partition 5 is the container; the Data volume (frank's and grace's homes) is the one that gives
        # rows, so its worker is the one that dies after its first source file.
        self.assertEqual(volumes, {"Macintosh HD": "parsed", "Macintosh HD - Data": "crashed", "Preboot": "parsed"})


if __name__ == "__main__":
    e2e_main.run(sys.modules[__name__], "ApfsMutation")
