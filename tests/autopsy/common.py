"""Shared by the Autopsy module tests: command-line arguments, fixture images, running the real roo-ingest."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = None
REPO = None

# Images the tests run the real binary on (fixtures/images/README.md), with what each covers.
IMAGES = {
    "demo": ["demo.E01"],                          # GPT: ext4 (inode, no meta_seq) + NTFS (meta_seq, attr 128-2)
    "demo-split": ["demo-split.E01", "demo-split.E02", "demo-split.E03"],  # the same disk, 3 EWF segments
    "custom-path": ["custom-path.E01"],            # two NTFS volumes, a customStoragePath on the second
    "macos-fat": ["macos-fat.E01"],                # bare FAT32 (no partition table: offset 0)
    "linux-ext4-raw": ["linux-ext4.raw.001"],      # bare ext4 as split raw
    "deleted-ntfs": ["deleted-ntfs.E01"],          # NTFS with deleted task files
}


def parse_args():
    """Strips --binary/--repo from sys.argv (the rest goes to unittest)."""
    global BINARY, REPO
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--repo", required=True)
    args, rest = parser.parse_known_args()
    BINARY = os.path.abspath(args.binary)
    REPO = os.path.abspath(args.repo)
    sys.argv[1:] = rest
    sys.path.insert(0, os.path.join(REPO, "plugin", "autopsy"))


def parse_repo_args():
    """For the tests that need no binary: strips --repo (and an unused --binary) from sys.argv; the repository."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--binary")
    args, rest = parser.parse_known_args()
    sys.argv[1:] = rest
    return os.path.abspath(args.repo)


def image_paths(name):
    return [os.path.join(REPO, "fixtures", "images", f) for f in IMAGES[name]]


def run_tool(paths, out, *flags):
    proc = subprocess.run([BINARY, "--quiet", *flags, *paths, "-o", out], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("roo-ingest %s exited %d: %s" % (" ".join(paths), proc.returncode, proc.stderr))
    return out


def read_lines(out):
    with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
        return f.read().splitlines()


class Outputs:
    """Runs roo-ingest once per image (and demo once more with --native) into one temporary folder."""

    def __init__(self, names=tuple(IMAGES), native=("demo",)):
        self.tmp = tempfile.mkdtemp(prefix="roo-autopsy-")
        self.out = {}
        for name in names:
            self.out[name] = run_tool(image_paths(name), os.path.join(self.tmp, name))
        for name in native:
            self.out[name + "+native"] = run_tool(image_paths(name), os.path.join(self.tmp, name + "-native"),
                                                  "--native")

    def rows(self, name):
        return [json.loads(line) for line in read_lines(self.out[name])]

    def all_rows(self):
        for name in self.out:
            for row in self.rows(name):
                yield name, row

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def tsk_loaddb(image, db):
    """A real Sleuth Kit case database of the image (schema 8.4: tsk_files, tsk_fs_info as Autopsy has them)."""
    if not shutil.which("tsk_loaddb"):
        raise unittest_skip("tsk_loaddb (Debian package sleuthkit) is not installed")
    subprocess.run(["tsk_loaddb", "-d", db, image], check=True, capture_output=True)
    return db


def unittest_skip(why):
    import unittest
    return unittest.SkipTest(why)
