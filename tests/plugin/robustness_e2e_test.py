#!/usr/bin/env python3
"""End-to-end tests of what stands around the parsers: OUTDIR kept out of the evidence by every path spelling, one
run at a time per OUTDIR, workers that die with their run, a stuck worker ended by the watchdog, outputs published so
that a kill never leaves another run's files beside this one's, bad bytes that cost no memory, and a folder with no
home that says so.

The real binary runs on the committed fixture images; a worker is made slow or stuck by tests/plugin/tsk_read_shim.c
(LD_PRELOAD), which stands between roo-ingest and libtsk's file reads.

usage: robustness_e2e_test.py Robustness.test_NAME --binary PATH --repo PATH --shim PATH
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

BINARY = None
REPO = None
SHIM = None

# fixtures/images/README.md: demo.E01 partition 1 (ext4) starts at sector 2048 of 512 bytes; partition 5 is NTFS.
DEMO_EXT4_OFFSET = 2048 * 512
# In the order they are published; report/ is report.html's folder of parts (docs/html-report.md).
OUTPUT_FILES = ["rows.jsonl", "roo.body", "timeline.jsonl", "l2t.csv", "rows.csv", "roo.sqlite", "report.html",
                "report", "report.json"]


def image(name):
    return os.path.join(REPO, "fixtures", "images", name)


def tree(name):
    return os.path.join(REPO, "fixtures", "trees", name)


def listing(top):
    """Every path below top, with size: what a run may not change in the evidence's folder."""
    out = []
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            out.append((os.path.relpath(p, top), os.path.getsize(p) if os.path.isfile(p) else None))
    return sorted(out)


def read(path):
    """A file's bytes, or a folder's files (name → bytes)."""
    if os.path.isdir(path):
        return {name: read(os.path.join(path, name)) for name in sorted(os.listdir(path))}
    with open(path, "rb") as f:
        return f.read()


class Robustness(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-robust-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, *args, env=None, cwd=None):
        full_env = dict(os.environ, **(env or {}))
        return subprocess.run([BINARY, "--quiet", *args], capture_output=True, text=True, env=full_env, cwd=cwd,
                              timeout=600)

    def reference_run(self, out, *args):
        """The outputs a clean run with these arguments writes at the path `out`, moved aside: report.json, the
        database and the page carry the command line, so a run compared with it must have the same one."""
        proc = self.run_tool(*args, "-o", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        reference = out + ".reference"
        os.rename(out, reference)
        return reference

    def shimmed(self, **settings):
        return {"LD_PRELOAD": SHIM, **{f"ROO_SHIM_{k}": str(v) for k, v in settings.items()}}

    # --- OUTDIR and the evidence ---

    def evidence_copy(self):
        evidence = os.path.join(self.tmp, "evidence")
        os.makedirs(os.path.join(evidence, "sub"))
        shutil.copy(image("edge-ext4.E01"), evidence)
        return evidence, os.path.join(evidence, "edge-ext4.E01")

    def assert_refused(self, img_args, out, cwd=None, evidence=None):
        before = listing(evidence) if evidence else None
        proc = self.run_tool(*img_args, "-o", out, cwd=cwd)
        self.assertEqual(proc.returncode, 2, f"-o {out} was accepted: {proc.stderr}")
        self.assertIn("evidence", proc.stderr)
        if evidence:
            self.assertEqual(listing(evidence), before, f"-o {out} wrote into the evidence's folder")

    # Evidence is sacred: no output goes into the folder holding the image, or below it, however OUTDIR is spelt.
    def test_outdir_never_inside_the_image_folder(self):
        evidence, img = self.evidence_copy()
        os.symlink(evidence, os.path.join(self.tmp, "link"))
        spellings = [
            "evidence/new/..",            # a directory that does not exist yet, and its parent
            "evidence/",                   # a trailing slash
            "evidence/.",
            "evidence/sub",               # a subdirectory that exists
            "evidence/new/deeper",        # and one that does not
            "evidence/sub/../sub/x/",
            "link/out",                   # through a symlink to the evidence's folder
            "/proc/self/cwd/evidence/out",  # through the kernel's link to the working directory
            os.path.join(evidence, "new", "..", "..", "evidence", "x"),
        ]
        for out in spellings:
            with self.subTest(out=out):
                self.assert_refused([img], out, cwd=self.tmp, evidence=evidence)
        # The image named through a link in another folder: neither that folder nor the image's own takes outputs.
        links = os.path.join(self.tmp, "links")
        os.makedirs(links)
        os.symlink(img, os.path.join(links, "edge-ext4.E01"))
        for out in (os.path.join(links, "out"), os.path.join(evidence, "out")):
            with self.subTest(out=out, via="image link"):
                self.assert_refused([os.path.join(links, "edge-ext4.E01")], out, evidence=evidence)
        # Beside the evidence's folder is fine.
        proc = self.run_tool(img, "-o", os.path.join(self.tmp, "out"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "out", "report.json")))

    def test_outdir_never_inside_a_bind_mount_of_the_evidence(self):
        evidence, img = self.evidence_copy()
        alias = os.path.join(self.tmp, "alias")
        os.makedirs(alias)
        if subprocess.run(["mount", "--bind", evidence, alias], capture_output=True).returncode != 0:
            self.skipTest("mount --bind is not allowed here")
        try:
            self.assert_refused([img], os.path.join(alias, "out"), evidence=evidence)
            self.assert_refused([os.path.join(alias, "edge-ext4.E01")], os.path.join(evidence, "x"), evidence=evidence)
        finally:
            subprocess.run(["umount", alias], check=True)

    def test_outdir_never_inside_the_dir_folder(self):
        folder = os.path.join(self.tmp, "collection")
        shutil.copytree(tree("linux-ext4"), folder, symlinks=True)
        for out in (folder, folder + "/", os.path.join(folder, "home", "out"), os.path.join(folder, "x", "..", "y"),
                    os.path.join(folder, "new", "..")):
            with self.subTest(out=out):
                self.assert_refused(["--dir", folder], out, evidence=folder)

    # --- one run per OUTDIR, and workers that end with their run ---

    def test_a_killed_run_leaves_no_worker_and_a_rerun_is_clean(self):
        out = os.path.join(self.tmp, "out")
        clean = self.reference_run(out, image("demo.E01"), "--force")
        # A slow run (every libtsk file read waits), its parent killed while the first file system's worker runs,
        # as `setsid roo-ingest IMG -o O & sleep 1; kill -9 $!` does, and as the Autopsy module does on cancel.
        env = dict(os.environ, **self.shimmed(SLOW_MS=30))
        proc = subprocess.Popen([BINARY, "--quiet", "--threads", "1", image("demo.E01"), "-o", out], env=env,
                                start_new_session=True)
        deadline = time.time() + 60
        while time.time() < deadline and not any(n.startswith("part-") for d in self.work_dirs(out)
                                                 for n in os.listdir(d)):
            time.sleep(0.05)
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        rerun = self.run_tool(image("demo.E01"), "--force", "-o", out)
        self.assertEqual(rerun.returncode, 0, rerun.stderr)
        time.sleep(0.5)  # an orphaned worker, had there been one, would have gone on writing meanwhile
        self.assertEqual(self.processes_writing(out), [], "a worker of the killed run is still alive")
        for name in OUTPUT_FILES:
            self.assertEqual(read(os.path.join(out, name)), read(os.path.join(clean, name)), name)
        self.assertEqual(self.work_dirs(out), [])

    def work_dirs(self, out):
        if not os.path.isdir(out):
            return []
        return [os.path.join(out, n) for n in os.listdir(out) if n.startswith(".roo-ingest-work")]

    def processes_writing(self, out):
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = read(f"/proc/{pid}/cmdline").decode(errors="replace")
            except OSError:
                continue
            if BINARY in cmdline and out in cmdline:
                found.append(pid)
        return found

    def test_a_second_run_into_the_same_outdir_is_refused_while_the_first_runs(self):
        out = os.path.join(self.tmp, "out")
        env = dict(os.environ, **self.shimmed(HANG_FS_OFFSET=DEMO_EXT4_OFFSET))
        first = subprocess.Popen([BINARY, "--quiet", "--stall-timeout", "0", image("demo.E01"), "-o", out], env=env,
                                 stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 30
            while time.time() < deadline and not self.work_dirs(out):
                time.sleep(0.05)
            start = time.time()
            second = subprocess.run([BINARY, "--quiet", image("demo.E01"), "-o", out, "--force"], capture_output=True,
                                    text=True, timeout=120)
            self.assertEqual(second.returncode, 2, second.stderr)
            self.assertIn("in use by another roo-ingest run", second.stderr)
            self.assertGreaterEqual(time.time() - start, 5)  # it waited for the lock before giving up
        finally:
            first.kill()
            first.wait()

    # --- the watchdog ---

    # A worker stuck in a libtsk read that never returns is ended after --stall-timeout; its file system is reported
    # hung with what it had reached, the rows of the files it finished are kept, the other file system is scanned
    # whole, and the run ends with exit code 5.
    def test_a_stuck_worker_is_ended_and_the_run_goes_on(self):
        clean = self.reference_run(os.path.join(self.tmp, "clean"), image("demo.E01"), "--threads", "1")
        clean_rows = [json.loads(l) for l in read(os.path.join(clean, "rows.jsonl")).splitlines()]
        out = os.path.join(self.tmp, "out")
        started = time.time()
        proc = self.run_tool(image("demo.E01"), "--threads", "1", "--stall-timeout", "3", "-o", out,
                             env=self.shimmed(HANG_FS_OFFSET=DEMO_EXT4_OFFSET, HANG_AFTER=40))
        self.assertLess(time.time() - started, 120)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        report = json.loads(read(os.path.join(out, "report.json")))
        hung = [p for p in report["partitions"] if p.get("offset_bytes") == DEMO_EXT4_OFFSET][0]
        self.assertEqual(hung["status"], "hung")
        self.assertIn("no progress", hung["reason"])
        self.assertIn("--stall-timeout", hung["reason"])
        self.assertIn("row(s) of finished source files kept", hung["reason"])
        rows = [json.loads(l) for l in read(os.path.join(out, "rows.jsonl")).splitlines()]
        ext4 = [r for r in rows if r["source"]["partition_offset"] == DEMO_EXT4_OFFSET]
        other = [r for r in rows if r["source"]["partition_offset"] != DEMO_EXT4_OFFSET]
        clean_ext4 = [r for r in clean_rows if r["source"]["partition_offset"] == DEMO_EXT4_OFFSET]
        self.assertEqual(other, [r for r in clean_rows if r["source"]["partition_offset"] != DEMO_EXT4_OFFSET])
        self.assertGreater(len(ext4), 0, "the files finished before the hang are kept")
        self.assertLess(len(ext4), len(clean_ext4))
        self.assertEqual(ext4, clean_ext4[:len(ext4)])  # whole sources, as one thread writes them
        self.assertEqual(report["rows"]["total"], len(rows))

    # --- publishing ---

    # A kill at any step of publishing leaves no report.json, and none of an earlier run's outputs beside the new
    # ones: every output present is this run's, byte for byte.
    def test_a_kill_while_publishing_never_mixes_two_runs(self):
        old = os.path.join(self.tmp, "old")
        self.assertEqual(self.run_tool(image("edge-ext4.E01"), "-o", old).returncode, 0)
        for step in range(len(OUTPUT_FILES) + 1):
            with self.subTest(step=step):
                out = os.path.join(self.tmp, f"out-{step}")
                new_clean = self.reference_run(out, image("demo.E01"), "--force")
                shutil.copytree(old, out)
                proc = self.run_tool(image("demo.E01"), "--force", "-o", out,
                                     env={"ROO_INGEST_TEST_KILL_AT_PUBLISH": str(step)})
                self.assertEqual(proc.returncode, -signal.SIGKILL, proc.stderr)
                present = sorted(n for n in os.listdir(out) if not n.startswith(".roo-ingest-work"))
                self.assertEqual(present, sorted(OUTPUT_FILES[:step]))
                for name in present:
                    self.assertEqual(read(os.path.join(out, name)), read(os.path.join(new_clean, name)), name)
        # The last step is after report.json: the run is whole.
        self.assertEqual(sorted(present), sorted(OUTPUT_FILES))

    # --- bad bytes ---

    # A record followed by junk (a file extended with zeros by truncate): the run keeps the record, reports the junk,
    # and its memory stays far below the file's size (the run's target is 128 MiB).
    def test_zeros_after_a_record_cost_no_memory(self):
        folder = os.path.join(self.tmp, "case")
        task = os.path.join(folder, "home", "u", ".config", "Code", "User", "globalStorage",
                            "rooveterinaryinc.roo-cline", "tasks", "0199a0d2-7c1e-7000-8000-000000000001")
        os.makedirs(task)
        ui = os.path.join(task, "ui_messages.json")
        with open(ui, "w") as f:
            f.write('[{"ts":1760000000000,"type":"say","say":"text","text":"A"},')
        os.truncate(ui, 512 << 20)
        out = os.path.join(self.tmp, "out")
        measure = ("import resource, subprocess, sys\n"
                   "rc = subprocess.run(sys.argv[1:]).returncode\n"
                   "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
        proc = subprocess.run([sys.executable, "-c", measure, BINARY, "--quiet", "--dir", folder, "-o", out],
                              capture_output=True, text=True, timeout=600)
        rc, peak_kib = map(int, proc.stdout.split())
        self.assertEqual(rc, 0, proc.stderr)
        if not os.environ.get("ROO_SANITIZED"):  # tests/CMakeLists.txt: no memory figure under the sanitizers
            self.assertLess(peak_kib, 128 * 1024, f"peak RSS {peak_kib} KiB")
        rows = [json.loads(l) for l in read(os.path.join(out, "rows.jsonl")).splitlines()]
        self.assertIn("A", [r.get("text") for r in rows])
        errors = [r["text"] for r in rows if r["kind"] == "parser_error"]
        self.assertTrue(any("cannot begin a record" in e for e in errors), errors)

    # A state database that names Roo's extension but cannot be read gives its parser_error row, and report.json's
    # line for the file counts that error.
    def test_a_corrupt_state_db_counts_its_error(self):
        folder = os.path.join(self.tmp, "case")
        store = os.path.join(folder, "home", "u", ".config", "Code", "User", "globalStorage")
        os.makedirs(store)
        with open(os.path.join(store, "state.vscdb"), "wb") as f:
            f.write(b"SQLite format 3\0" + b"\xff" * 4000 + b"RooVeterinaryInc.roo-cline" + b"\0" * 4000)
        out = os.path.join(self.tmp, "out")
        proc = self.run_tool("--dir", folder, "-o", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = [json.loads(l) for l in read(os.path.join(out, "rows.jsonl")).splitlines()]
        errors = [r for r in rows if r["kind"] == "parser_error" and r["source"]["path"].endswith("/state.vscdb")]
        self.assertEqual(len(errors), 1, [r["text"] for r in rows])
        self.assertIn("could not be read", errors[0]["text"])
        report = json.loads(read(os.path.join(out, "report.json")))
        lines = [f for p in report["partitions"] for f in p["scan"]["files_parsed"] if f["path"].endswith("/state.vscdb")]
        self.assertEqual([f["errors"] for f in lines], [1])

    # --- what lies after a bare file system ---

    # An image with no partition table whose file system is smaller than the image: the bytes after the file system
    # are listed as unpartitioned space, and --deep carves a Roo record lying 100 MiB past the file system's end.
    def test_deep_carves_past_the_end_of_a_bare_file_system(self):
        if not shutil.which("mkfs.ext4"):
            self.skipTest("mkfs.ext4 not installed")
        evidence = os.path.join(self.tmp, "evidence")
        os.makedirs(evidence)
        img = os.path.join(evidence, "disk.raw")
        fs_end = 4 << 20
        with open(img, "wb") as f:
            f.truncate(fs_end)
        subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "1024", img], check=True, capture_output=True)
        record = read(os.path.join(REPO, "fixtures", "trees", "carve-gap", "gap", "history_item.json"))
        at = fs_end + (100 << 20)
        with open(img, "r+b") as f:
            f.seek(at)
            f.write(record)
            f.truncate(at + (1 << 20))
        size = os.path.getsize(img)
        out = os.path.join(self.tmp, "out")
        proc = self.run_tool("--deep", img, "-o", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = json.loads(read(os.path.join(out, "report.json")))
        after = [p for p in report["partitions"] if p.get("kind") == "unallocated"]
        self.assertEqual([(p["offset_bytes"], p["length_bytes"]) for p in after], [(fs_end, size - fs_end)])
        rows = [json.loads(l) for l in read(os.path.join(out, "rows.jsonl")).splitlines()]
        carved = [r for r in rows if r["source"]["recovery"] == "carved"]
        self.assertEqual({r["source"]["byte_offset"] for r in carved}, {at})
        self.assertEqual({r["session_id"] for r in carved}, {"019e586d-0400-7a3c-9b1d-5e7f2a4c6d80"})
        self.assertEqual(carved[0]["source"]["byte_length"], len(record.rstrip()))
        # Without --deep the area is listed as not searched, and nothing is carved.
        plain = os.path.join(self.tmp, "plain")
        self.assertEqual(self.run_tool(img, "-o", plain).returncode, 0)
        report = json.loads(read(os.path.join(plain, "report.json")))
        after = [p for p in report["partitions"] if p.get("kind") == "unallocated"]
        self.assertEqual([p["status"] for p in after], ["not searched: unallocated space (carved only with --deep)"])
        self.assertEqual(read(os.path.join(plain, "rows.jsonl")), b"")

    # A long value that is kept (a prompt, an answer, a tool's result of 128 MiB) costs about twice its size at the
    # peak: its parsed document and its row, the row's JSON written out a chunk at a time. One worker thread: each
    # thread holds the value it is reading, so with N threads N such files can be in memory at once.
    def test_a_long_value_costs_about_twice_its_size(self):
        size = (16 if os.environ.get("ROO_SANITIZED") else 128) << 20
        long_text = "x" * size
        tasks = os.path.join(self.tmp, "case", "home", "u", ".config", "Code", "User", "globalStorage",
                             "rooveterinaryinc.roo-cline", "tasks")
        files = {
            "0199a0d2-7c1e-7000-8000-00000000000a/ui_messages.json":
                '[{"ts":1760000000000,"type":"say","say":"text","text":"%s"}]' % long_text,
            "0199a0d2-7c1e-7000-8000-00000000000b/api_conversation_history.json":
                '[{"role":"user","content":[{"type":"text","text":"%s"}],"ts":1760000000000}]' % long_text,
            "0199a0d2-7c1e-7000-8000-00000000000c/api_conversation_history.json":
                '[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}}],'
                '"ts":1760000000000},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"%s"}],'
                '"ts":1760000000001}]' % long_text,
        }
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tasks, name)), exist_ok=True)
            with open(os.path.join(tasks, name), "w") as f:
                f.write(text)
        del long_text, files
        out = os.path.join(self.tmp, "out")
        measure = ("import resource, subprocess, sys\n"
                   "rc = subprocess.run(sys.argv[1:]).returncode\n"
                   "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
        proc = subprocess.run([sys.executable, "-c", measure, BINARY, "--quiet", "--threads", "1", "--format", "jsonl", "--dir",
                               os.path.join(self.tmp, "case"), "-o", out], capture_output=True, text=True, timeout=600)
        rc, peak_kib = map(int, proc.stdout.split())
        self.assertEqual(rc, 0, proc.stderr)
        long_rows = []
        with open(os.path.join(out, "rows.jsonl"), "rb") as f:
            for line in f:
                if len(line) > size:
                    row = json.loads(line)
                    long_rows.append((row["kind"], len(row["text"])))
        self.assertEqual(sorted(long_rows), [("tool_result", size), ("user_message", size), ("user_message", size)])
        if not os.environ.get("ROO_SANITIZED"):  # tests/CMakeLists.txt: no memory figure under the sanitizers
            self.assertLess(peak_kib * 1024, 2.25 * size + (48 << 20), f"peak RSS {peak_kib} KiB for {size} bytes")

    # --- a folder with no home ---

    def test_a_folder_without_a_home_says_so_and_where_homes_are(self):
        # The drive's copy is one level down under a name that is no drive letter (a folder named C is a KAPE
        # collection's drive and is read: collection_e2e_test.py).
        collection = os.path.join(self.tmp, "collection")
        shutil.copytree(tree("linux-ext4"), os.path.join(collection, "copy-of-disk"), symlinks=True)
        out = os.path.join(self.tmp, "out")
        proc = subprocess.run([BINARY, "--dir", collection, "-o", out], capture_output=True, text=True, timeout=600)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for text in (proc.stderr, proc.stdout):
            self.assertIn("no user home found", text)
            self.assertIn("Users/*, home/*, root", text)
            self.assertIn(os.path.join(collection, "copy-of-disk"), text)
        report = json.loads(read(os.path.join(out, "report.json")))
        self.assertEqual(len(report["warnings"]), 1)
        self.assertIn("no user home found", report["warnings"][0])
        # A folder that holds homes gives no such warning.
        out2 = os.path.join(self.tmp, "out2")
        proc = subprocess.run([BINARY, "--dir", os.path.join(collection, "copy-of-disk"), "-o", out2], capture_output=True,
                              text=True, timeout=600)
        self.assertNotIn("no user home found", proc.stderr + proc.stdout)
        self.assertNotIn("warnings", json.loads(read(os.path.join(out2, "report.json"))))


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "Robustness", flags=("--binary", "--repo", "--shim"))
