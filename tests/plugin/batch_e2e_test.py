#!/usr/bin/env python3
"""End-to-end tests of batch runs (README.md "Many drives") with the local engine: the real roo-ingest binary over a
manifest of the committed fixture images, a folder, a file that is no image and a path that is missing.

- The merged rows are the direct runs' rows (the same binary run on each image by itself, here, the usual way) with
  the evidence id put first; counts are also checked against the hand-written fixtures/expected/*.rows.jsonl.
- Bad items have their status; an item killed mid-run, or whose marker is deleted, is redone alone on the next run,
  and the case files are then byte-identical to those of an uninterrupted batch; a merge run again gives the same
  bytes, and adding a drive reads only that drive.
- A folder (--dir) item is redone when a file deep inside it changes, though the folder's own mtime does not.
- A manifest is refused up front for a repeated evidence id, the same image twice, no header, an unsafe id, or a
  BATCHDIR inside an evidence's directory.

usage: batch_e2e_test.py Batch.test_NAME --binary PATH --repo PATH
"""
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BINARY = None
REPO = None
SHIM = None  # tests/plugin/tsk_read_shim.c, to make an item's run slow (only the tests given --shim)

EXIT_PARTIAL = 5  # README "Exit codes": the batch's code when an item is not done with 0
EXIT_NOTHING_READABLE = 6
EXIT_EVIDENCE = 3
EXIT_USAGE = 2
CASE_FILES = ("case.sqlite", "case.rows.jsonl", "case.html")


def images(name):
    return os.path.join(REPO, "fixtures", "images", name)


def expected(*trees):
    rows = []
    for tree in trees:
        with open(os.path.join(REPO, "fixtures", "expected", tree + ".rows.jsonl"), encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Batch(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-batch-e2e-")
        # The bad items live in a folder of their own: BATCHDIR may not lie inside any evidence's directory.
        self.ev = os.path.join(self.tmp, "evidence")
        os.mkdir(self.ev)
        self.junk = os.path.join(self.ev, "junk.E01")
        with open(self.junk, "wb") as f:
            f.write(bytes(range(256)) * 400)  # 100 kB that are no disk image and no file system
        self.gone = os.path.join(self.ev, "gone.E01")
        self.batch = os.path.join(self.tmp, "batch")
        self.items = [
            ("demo", images("demo.E01")),
            ("demo-split", images("demo-split.E01")),
            ("laptop.raw", images("linux-ext4.raw.001")),
            ("tree", os.path.join(REPO, "fixtures", "trees", "linux-ext4") + "/"),
            ("junk", self.junk),
            ("gone", self.gone),
        ]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def manifest(self, items, name="manifest.tsv"):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("evidence_id\tpath\n# a comment line, not an item\n")
            for item in items:
                f.write("\t".join(item) + "\n")
        return path

    def tool(self, *args, expect=None, env=None):
        proc = subprocess.run([BINARY, *args], capture_output=True, text=True, env=dict(os.environ, **(env or {})))
        if expect is not None and proc.returncode != expect:
            self.fail(f"roo-ingest {' '.join(args)} exited {proc.returncode}, not {expect}:\n{proc.stderr}")
        return proc

    def batch_run(self, manifest, *args, expect=EXIT_PARTIAL, env=None):
        return self.tool("--manifest", manifest, "-o", self.batch, "--parallel", "3", "--progress=json", *args,
                         expect=expect, env=env)

    def status(self, manifest):
        proc = self.tool("--manifest", manifest, "-o", self.batch, "--status", "--json", expect=0)
        return {i["evidence_id"]: i for i in json.loads(proc.stdout)["items"]}

    def case_bytes(self):
        return {name: sha256(os.path.join(self.batch, name)) for name in CASE_FILES}

    def case_rows(self):
        with open(os.path.join(self.batch, "case.rows.jsonl"), encoding="utf-8") as f:
            return f.read().splitlines()

    def direct_rows(self, *args):
        out = os.path.join(self.tmp, "direct-" + hashlib.sha256(repr(args).encode()).hexdigest()[:8])
        self.tool(*args, "-o", out, "--quiet", expect=0)
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            return f.read().splitlines()

    def markers(self):
        d = os.path.join(self.batch, "markers")
        return {n: os.stat(os.path.join(d, n)).st_mtime_ns for n in os.listdir(d) if n.endswith(".done.json")}

    def last_progress(self, stderr):
        lines = [json.loads(l) for l in stderr.splitlines() if l.startswith('{"progress":"batch"')]
        self.assertTrue(lines, stderr)
        self.assertTrue(lines[-1]["done"])
        return lines[-1]

    # ---- the case ----

    def test_merged_rows_are_the_direct_runs_rows_with_the_evidence_id(self):
        m = self.manifest(self.items)
        proc = self.batch_run(m)
        last = self.last_progress(proc.stderr)
        self.assertEqual((last["items"], last["items_done"], last["items_partial"], last["items_failed"]), (6, 4, 1, 1))
        direct = {
            "demo": self.direct_rows(images("demo.E01")),
            "demo-split": self.direct_rows(images("demo-split.E01")),
            "laptop.raw": self.direct_rows(images("linux-ext4.raw.001")),
            "tree": self.direct_rows("--dir", os.path.join(REPO, "fixtures", "trees", "linux-ext4")),
        }
        wanted = [('{"evidence_id":"%s",' % ev) + line[1:] for ev in direct for line in direct[ev]]
        merged = self.case_rows()
        self.assertEqual(len(merged), len(wanted))
        self.assertEqual(merged, wanted)  # manifest order, then each item's rows.jsonl order, byte for byte
        parsed = [json.loads(line) for line in merged]
        for row, (ev, line) in zip(parsed, [(ev, l) for ev in direct for l in direct[ev]]):
            self.assertEqual(row, {"evidence_id": ev, **json.loads(line)})
        # Hand-known counts: linux-ext4.raw holds the linux-ext4 tree, whose rows fixtures/expected writes in three
        # files (465 rows, 13 tasks: the two history_disagreement rows of CLI task D and the two user rows of the
        # feedback typed on E1's decisions among them); demo.E01 and
        # demo-split.E01 hold the same media.
        linux_expected = expected("linux-ext4", "transcripts", "stores-linux")
        self.assertEqual(sum(r["evidence_id"] == "laptop.raw" for r in parsed), len(linux_expected))
        self.assertEqual(len(linux_expected), 465)
        db = sqlite3.connect(os.path.join(self.batch, "case.sqlite"))
        counts = dict(db.execute("SELECT evidence_id, COUNT(*) FROM rows GROUP BY evidence_id"))
        self.assertEqual(counts, {ev: len(rows) for ev, rows in direct.items()})
        self.assertEqual(counts["demo"], counts["demo-split"])
        tasks = dict(db.execute("SELECT evidence_id, COUNT(*) FROM tasks GROUP BY evidence_id"))
        self.assertEqual(tasks["laptop.raw"], sum(r["kind"] == "task" for r in linux_expected))
        self.assertEqual(tasks["laptop.raw"], 13)
        # The row columns come from each row: row 1 of each evidence is its rows.jsonl line 1.
        for ev, rows in direct.items():
            (row_json, kind) = db.execute(
                "SELECT row_json, kind FROM rows WHERE evidence_id = ? AND row_number = 1", (ev,)).fetchone()
            self.assertEqual(json.loads(row_json), {"evidence_id": ev, **json.loads(rows[0])})
            self.assertEqual(kind, json.loads(rows[0])["kind"])

        # Bad items: the file that is no image ended with 6 (marked, its report in the case), the missing path
        # with 3 (no marker, why kept, retried next time).
        st = self.status(m)
        self.assertEqual({ev: s["status"] for ev, s in st.items()},
                         {"demo": "done", "demo-split": "done", "laptop.raw": "done", "tree": "done",
                          "junk": "partial", "gone": "failed"})
        self.assertEqual(st["junk"]["exit_code"], EXIT_NOTHING_READABLE)
        self.assertEqual(st["gone"]["exit_code"], EXIT_EVIDENCE)
        self.assertIn(self.gone, st["gone"]["why"])
        self.assertEqual(st["laptop.raw"]["rows"], 465)
        table = self.tool("--manifest", m, "-o", self.batch, "--status", expect=0).stdout.splitlines()
        # The rows so far are the marked items' rows: exactly the case's rows, counted there by SQLite.
        self.assertEqual(table[0], f"batch {self.batch}: 6 items: 4 done, 1 partial, 1 failed, 0 queued, 0 running, "
                                   f"0 missing; {sum(counts.values())} rows so far")
        gone_line = next(l for l in table if " gone " in l)
        self.assertIn("failed", gone_line)
        self.assertIn("exit 3", gone_line)
        self.assertIn("run again to retry", gone_line)
        items = {r[0]: r[1:] for r in db.execute("SELECT evidence_id, status, exit_code, merged FROM items")}
        self.assertEqual(items["gone"], ("failed", EXIT_EVIDENCE, 0))
        self.assertEqual(items["junk"], ("partial", EXIT_NOTHING_READABLE, 1))
        self.assertFalse(os.path.exists(os.path.join(self.batch, "markers", "gone.done.json")))

        # The evidence table: sizes and the hashes demo.E01 stores (fixtures/images/README.md: ewfacquire stores the
        # media's MD5), the segments the split raw's marker stamps (all four, 1 MiB each), each item's report.
        ev = {r[0]: r[1:] for r in db.execute(
            "SELECT evidence_id, size_bytes, stored_md5, json_array_length(evidence_files), report_html, "
            "json_extract(marker, '$.exit_code') FROM evidence")}
        self.assertEqual(ev["demo"][0], os.path.getsize(images("demo.E01")))
        self.assertEqual(ev["laptop.raw"][0:3:2], (4 * 1048576, 4))
        self.assertEqual(ev["demo"][3], "items/demo/report.html")
        self.assertIsNotNone(ev["demo"][1])
        self.assertEqual(ev["demo"][1], ev["demo-split"][1])  # the same media in both containers
        self.assertEqual(ev["junk"][4], EXIT_NOTHING_READABLE)
        self.assertNotIn("gone", ev)
        self.assertGreater(db.execute("SELECT COUNT(*) FROM completeness WHERE evidence_id = 'demo'").fetchone()[0], 0)

        # Across drives: alice's first task of linux-ext4 (fixtures/expected/linux-ext4.rows.jsonl) is on all four
        # drives that hold that tree; its workspace too.
        first_task = next(r for r in linux_expected if r["kind"] == "task")
        seen = [r[0] for r in db.execute("SELECT evidence_id FROM same_task WHERE match = 'task_id' AND key = ? "
                                         "ORDER BY rowid", (first_task["session_id"],))]
        self.assertEqual(seen, ["demo", "demo-split", "laptop.raw", "tree"])
        spaces = [r[0] for r in db.execute("SELECT evidence_id FROM same_workspace WHERE key = ? ORDER BY rowid",
                                           (first_task["project_path"],))]
        self.assertEqual(spaces, ["demo", "demo-split", "laptop.raw", "tree"])
        linux_commands = {r["command"] for r in linux_expected if r["kind"] == "command"}
        commands = {r[0] for r in db.execute("SELECT key FROM same_command WHERE evidence_id = 'laptop.raw'")}
        self.assertEqual(commands, linux_commands)
        # Every task of linux-ext4 names its API profile (api_config_name); each name is on the four drives.
        profiles = {r["api_config_name"] for r in linux_expected if r["kind"] == "task" and r.get("api_config_name")}
        self.assertTrue(profiles)
        for name in profiles:
            drives = [r[0] for r in db.execute("SELECT evidence_id FROM same_api_profile WHERE key = ?", (name,))]
            self.assertEqual(drives, ["demo", "demo-split", "laptop.raw", "tree"])
        with open(os.path.join(self.batch, "case.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertIn('<a href="items/demo/report.html">', html)
        self.assertIn(first_task["session_id"], html)
        self.assertTrue(os.path.exists(os.path.join(self.batch, "items", "demo", "report.html")))

        # Merging again gives the same bytes.
        before = self.case_bytes()
        self.tool("--manifest", m, "-o", self.batch, "--merge", expect=0)
        self.assertEqual(self.case_bytes(), before)

    # ---- resuming ----

    def test_an_interrupted_item_is_redone_alone_and_the_case_is_the_same(self):
        # Four items: two images, the file that is no image (marked with 6), the missing path (never marked).
        items = [self.items[0], self.items[2], self.items[4], self.items[5]]
        m = self.manifest(items)
        self.batch_run(m)
        uninterrupted = self.case_bytes()
        shutil.rmtree(self.batch)

        # Each item by itself, the way a Slurm array task runs it; item 2 is killed (SIGKILL) while it moves its
        # outputs into place (the test hook of plugin/output_dir.cpp).
        for index in range(1, len(items) + 1):
            env = {"ROO_INGEST_TEST_KILL_AT_PUBLISH": "1"} if index == 2 else None
            proc = self.tool("--manifest", m, "-o", self.batch, "--run-item", str(index), env=env)
            if index == 2:
                self.assertEqual(proc.returncode, -9)
        st = self.status(m)
        self.assertEqual({ev: s["status"] for ev, s in st.items()},
                         {"demo": "done", "laptop.raw": "missing", "junk": "partial", "gone": "failed"})
        self.assertFalse(os.path.exists(os.path.join(self.batch, "markers", "laptop.raw.done.json")))
        before = self.markers()

        proc = self.batch_run(m)
        last = self.last_progress(proc.stderr)
        self.assertEqual(last["items_skipped"], 2)  # demo and junk kept; laptop.raw and gone run
        after = self.markers()
        self.assertEqual({k: v for k, v in after.items() if k != "laptop.raw.done.json"}, before)
        self.assertIn("laptop.raw.done.json", after)
        self.assertEqual(self.case_bytes(), uninterrupted)
        self.assertFalse([n for n in os.listdir(os.path.join(self.batch, "items")) if n.endswith(".part")])

        # A deleted marker: that item alone is run again. It gives the same marker (no time of the run is in it),
        # so the merge finds its part already made.
        marker = os.path.join(self.batch, "markers", "demo.done.json")
        with open(marker, "rb") as f:
            marker_bytes = f.read()
        before = self.markers()
        os.remove(marker)
        proc = self.batch_run(m)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 2)
        after = self.markers()
        self.assertEqual([k for k in after if after[k] != before[k]], ["demo.done.json"])
        with open(marker, "rb") as f:
            self.assertEqual(f.read(), marker_bytes)
        self.assertIn("0 of them read anew", proc.stderr)
        self.assertEqual(self.case_bytes(), uninterrupted)

        # Workers of the local engine killed mid-run: failed, with why, and redone on the next run.
        shutil.rmtree(self.batch)
        self.batch_run(m, env={"ROO_INGEST_TEST_KILL_AT_PUBLISH": "0"})
        st = self.status(m)
        self.assertEqual(st["demo"]["status"], "failed")
        self.assertIn("signal 9", st["demo"]["why"])
        self.batch_run(m)
        self.assertEqual(self.case_bytes(), uninterrupted)

    def test_a_running_item_is_shown_running_and_when_killed_is_redone(self):
        m = self.manifest(self.items[:3])
        self.batch_run(m, expect=0)
        uninterrupted = self.case_bytes()
        shutil.rmtree(self.batch)
        # Item 1 alone, slowed down (every libtsk file read waits 100 ms), as a Slurm task would run it.
        env = dict(os.environ, LD_PRELOAD=SHIM, ROO_SHIM_SLOW_MS="100")
        proc = subprocess.Popen([BINARY, "--manifest", m, "-o", self.batch, "--run-item", "1", "--threads", "1"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        part = os.path.join(self.batch, "items", ".demo.part")
        deadline = time.time() + 60
        while time.time() < deadline and not os.path.isdir(part):
            time.sleep(0.05)
        self.assertTrue(os.path.isdir(part))
        self.assertEqual(self.status(m)["demo"]["status"], "running")
        # A second process for the same item goes away without touching it.
        second = self.tool("--manifest", m, "-o", self.batch, "--run-item", "1", expect=EXIT_USAGE)
        self.assertIn("being run by another process", second.stderr)
        self.assertTrue(os.path.isdir(part))
        os.killpg(proc.pid, signal.SIGKILL)  # the item's process and its file-system workers
        proc.wait()
        deadline = time.time() + 60
        while time.time() < deadline and self.status(m)["demo"]["status"] == "running":
            time.sleep(0.1)
        st = self.status(m)
        self.assertEqual((st["demo"]["status"], st["demo-split"]["status"]), ("missing", "missing"))
        proc = self.batch_run(m, expect=0)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 0)
        self.assertEqual(self.case_bytes(), uninterrupted)
        self.assertFalse(os.path.exists(part))

    def test_a_changed_evidence_or_option_is_redone_and_a_new_drive_alone_is_read(self):
        copy = os.path.join(self.ev, "copy.E01")
        shutil.copyfile(images("demo.E01"), copy)
        m = self.manifest([("one", copy), ("two", images("linux-ext4.raw.001"))])
        self.batch_run(m, expect=0)
        # The evidence's mtime changes: its marker is no longer valid.
        os.utime(copy, ns=(1_000_000_000, 1_000_000_000))
        st = self.status(m)
        self.assertEqual(st["one"]["status"], "missing")
        self.assertIn("changed", st["one"]["why"])
        self.assertEqual(st["two"]["status"], "done")
        proc = self.batch_run(m, expect=0)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 1)
        # Another output-changing option: every item again.
        proc = self.batch_run(m, "--tz", "Europe/Berlin", expect=0)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 0)
        two_items = self.case_rows()
        # A third drive: only it runs and is read; the case holds all three.
        m3 = self.manifest([("one", copy), ("two", images("linux-ext4.raw.001")), ("three", images("demo-split.E01"))])
        proc = self.batch_run(m3, "--tz", "Europe/Berlin", expect=0)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 2)
        self.assertIn("merged 3 of 3 items", proc.stderr)
        self.assertIn("1 of them read anew", proc.stderr)
        rows = self.case_rows()
        self.assertEqual(rows[:len(two_items)], two_items)
        self.assertEqual(len(rows), len(two_items) + len(self.direct_rows(images("demo-split.E01"))))
        self.assertEqual(os.listdir(os.path.join(self.batch, "items")).count("three"), 1)

    def test_a_folder_item_is_redone_when_a_file_deep_inside_changes(self):
        tree = os.path.join(self.ev, "home-copy")
        shutil.copytree(os.path.join(REPO, "fixtures", "trees", "linux-ext4"), tree, symlinks=True)
        m = self.manifest([("home", tree + "/"), ("two", images("demo.E01"))])
        self.batch_run(m, expect=0)
        with open(os.path.join(self.batch, "markers", "home.done.json"), encoding="utf-8") as f:
            stamped = json.load(f)["evidence_files"]
        # Every entry under the folder, counted here by os.walk (files, folders and links alike, links not followed).
        entries = sum(len(dirs) + len(files) for _, dirs, files in os.walk(tree))
        self.assertEqual([(e["path"], e["tree_entries"]) for e in stamped], [(tree, entries)])
        # Nothing touched: skipped, its marker not rewritten.
        before = self.markers()
        proc = self.batch_run(m, expect=0)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 2)
        self.assertEqual(self.markers(), before)
        # One byte of a task's ui_messages.json, five folders down, for another of the same size: no folder's
        # mtime changes (the entries of no folder change), the file's own does.
        nested = os.path.join(tree, "home", "carol", ".config", "VSCodium", "User", "globalStorage",
                              "rooveterinaryinc.roo-cline", "tasks", "1736867512406", "ui_messages.json")
        with open(nested, "rb") as f:
            text = f.read()
        self.assertIn(b"for an empty cart?", text)
        folder_mtimes = [os.stat(d).st_mtime_ns for d in (tree, os.path.dirname(nested))]
        with open(nested, "r+b") as f:
            f.write(text.replace(b"for an empty cart?", b"for an emptY cart?"))
        self.assertEqual([os.stat(d).st_mtime_ns for d in (tree, os.path.dirname(nested))], folder_mtimes)
        self.assertEqual(os.path.getsize(nested), len(text))
        st = self.status(m)
        self.assertEqual((st["home"]["status"], st["two"]["status"]), ("missing", "done"))
        self.assertIn("inside " + tree, st["home"]["why"])
        self.assertNotIn("emptY cart", "\n".join(self.case_rows()))
        proc = self.batch_run(m, expect=0)
        self.assertEqual(self.last_progress(proc.stderr)["items_skipped"], 1)
        self.assertIn("emptY cart", "\n".join(self.case_rows()))
        # A file added deep inside, or one removed, is seen as well.
        for change in (lambda: open(os.path.join(os.path.dirname(nested), "notes.txt"), "w").close(),
                       lambda: os.remove(os.path.join(os.path.dirname(nested), "notes.txt"))):
            change()
            self.assertEqual(self.status(m)["home"]["status"], "missing")
            self.batch_run(m, expect=0)
            self.assertEqual(self.status(m)["home"]["status"], "done")

    # The evidence stays as it was and is never copied: every item's writes are under BATCHDIR. The evidence here is
    # copies in a folder of the test's own (an image, a split image, a folder, and the file that is no image), so
    # their folders can be listed whole before and after: names, sizes, modes, mtimes and contents.
    def test_the_evidence_is_untouched_and_every_write_is_under_the_batch_folder(self):
        for name in ("demo.E01", "linux-ext4.raw.001", "linux-ext4.raw.002", "linux-ext4.raw.003",
                     "linux-ext4.raw.004"):
            shutil.copy2(images(name), self.ev)
        tree = os.path.join(self.ev, "tree")
        shutil.copytree(os.path.join(REPO, "fixtures", "trees", "linux-ext4"), tree, symlinks=True)
        m = self.manifest([("demo", os.path.join(self.ev, "demo.E01")),
                           ("laptop", os.path.join(self.ev, "linux-ext4.raw.001")),
                           ("tree", tree + "/"), ("junk", self.junk)])

        def state(top):
            out = {}
            for folder, dirs, files in os.walk(top):
                for name in dirs + files:
                    path = os.path.join(folder, name)
                    st = os.lstat(path)
                    digest = sha256(path) if os.path.isfile(path) and not os.path.islink(path) else None
                    out[os.path.relpath(path, top)] = (st.st_size, st.st_mode, st.st_mtime_ns, digest)
            return out

        before = state(self.ev)
        outside = sorted(os.listdir(self.tmp))
        self.batch_run(m, expect=EXIT_PARTIAL)  # junk is marked 6: partial
        self.assertEqual(state(self.ev), before)
        self.assertEqual(sorted(os.listdir(self.tmp)), sorted(outside + ["batch"]))
        # Never copied: no file in the batch folder has an evidence file's size and contents.
        evidence_digests = {v[3] for v in before.values() if v[3] and v[0] > 4096}
        for folder, _, files in os.walk(self.batch):
            for name in files:
                self.assertNotIn(sha256(os.path.join(folder, name)), evidence_digests, os.path.join(folder, name))

    # ---- refused up front ----

    def test_bad_manifests_are_refused_before_anything_runs(self):
        link = os.path.join(self.ev, "same.E01")
        os.symlink(images("demo.E01"), link)
        cases = {
            "repeated id": ([("a", images("demo.E01")), ("a", images("demo-split.E01"))], "evidence id a is on line"),
            "same image": ([("a", images("demo.E01")), ("b", link)], "already"),
            "same image by ..": ([("a", images("demo.E01")),
                                  ("b", os.path.join(REPO, "fixtures", "images", "..", "images", "demo.E01"))],
                                 "already"),
            "unsafe id": ([("../up", images("demo.E01"))], "evidence id"),
            "id with a slash": ([("a/b", images("demo.E01"))], "evidence id"),
            "hidden id": ([(".a", images("demo.E01"))], "starts with"),
        }
        for what, (items, message) in cases.items():
            with self.subTest(what):
                m = self.manifest(items)
                proc = self.tool("--manifest", m, "-o", self.batch, expect=EXIT_USAGE)
                self.assertIn("roo-ingest: error:", proc.stderr)
                self.assertIn(message, proc.stderr)
                self.assertFalse(os.path.exists(self.batch))
        no_header = os.path.join(self.tmp, "no-header.tsv")
        with open(no_header, "w") as f:
            f.write("a\t%s\n" % images("demo.E01"))
        proc = self.tool("--manifest", no_header, "-o", self.batch, expect=EXIT_USAGE)
        self.assertIn("header", proc.stderr)
        # BATCHDIR inside the folder of an evidence (the junk file's): refused, nothing written there.
        m = self.manifest([("junk", self.junk)])
        inside = os.path.join(self.ev, "batch")
        proc = self.tool("--manifest", m, "-o", inside, expect=EXIT_USAGE)
        self.assertIn("evidence", proc.stderr)
        self.assertFalse(os.path.exists(inside))
        # A folder that holds other things and is no batch folder (it has no markers/).
        other = os.path.join(self.tmp, "other")
        os.mkdir(other)
        open(os.path.join(other, "notes.txt"), "w").close()
        proc = self.tool("--manifest", m, "-o", other, expect=EXIT_USAGE)
        self.assertIn("not a batch folder", proc.stderr)
        self.assertEqual(os.listdir(other), ["notes.txt"])
        # Batch options without a manifest, and an image beside one.
        self.tool("--status", "-o", self.batch, expect=EXIT_USAGE)
        self.tool(images("demo.E01"), "--parallel", "2", "-o", self.batch, expect=EXIT_USAGE)
        self.tool("--manifest", m, images("demo.E01"), "-o", self.batch, expect=EXIT_USAGE)


if __name__ == "__main__":
    import e2e_main
    e2e_main.run(sys.modules[__name__], "Batch",
                 flags=("--binary", "--repo", "--shim") if "--shim" in sys.argv else ("--binary", "--repo"))
