#!/usr/bin/env python3
"""End-to-end tests: the real roo-ingest binary on the committed fixture images.

Expected rows are the hand-written fixtures/expected/*.rows.jsonl; partition offsets come from the image build
script's layout (fixtures/images/README.md); file digests are computed here from the fixture trees, so nothing the
code under test produced is used as its own expectation.

usage: e2e_test.py E2E.test_NAME --binary PATH --repo PATH
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

# fixtures/images/README.md: demo.E01 partition 1 (ext4) starts at sector 2048 of 512 bytes.
DEMO_EXT4_OFFSET = 2048 * 512

# Bugs of the code under test that the recovery fixtures found (image, row index) -> keys of that expected row the
# row-match test leaves out until fixed (compared strictly by a test_recovery_bug_* test marked expectedFailure).
KNOWN_BUGS = {}


def images(name):
    return os.path.join(REPO, "fixtures", "images", name)


def expected(*trees):
    rows = []
    for tree in trees:
        with open(os.path.join(REPO, "fixtures", "expected", tree + ".rows.jsonl"), encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def read_rows(out):
    with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def assert_in_no_output(test, out, needles, label):
    """None of needles (bytes) is in any file the run wrote, report.html's parts under report/ included."""
    for folder, _, files in os.walk(out):
        for file in files:
            with open(os.path.join(folder, file), "rb") as f:
                data = f.read()
            for needle in needles:
                test.assertNotIn(needle, data, f"{label}/{os.path.relpath(os.path.join(folder, file), out)}")


class E2E(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, *args, out_name="out", check=True, quiet=True):
        out = os.path.join(self.tmp, out_name)
        flags = ["--quiet"] if quiet else []
        proc = subprocess.run([BINARY, *flags, *args, "-o", out], capture_output=True, text=True)
        if check and proc.returncode != 0:
            self.fail(f"roo-ingest {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
        return out, proc

    def assert_rows_match(self, produced, wanted):
        diffs = []
        for i, (exp, act) in enumerate(zip(wanted, produced)):
            diffs.extend(f"row {i}: {d}" for d in subset_diff(exp, act))
        self.assertEqual(diffs, [])
        self.assertEqual(len(produced), len(wanted))

    def assert_provenance(self, rows, evidence, tree_of_offset):
        """Every row names its evidence, partition, file system, inode and the sha256 of its source file; the
        digest must equal the digest of the same file in the fixture tree the image was built from."""
        for row in rows:
            src = row["source"]
            self.assertEqual(src["evidence"], evidence)
            tree = tree_of_offset[src["partition_offset"]]
            self.assertIsNotNone(src["inode"], src["path"])
            self.assertEqual(src["recovery"], "allocated")
            with open(os.path.join(REPO, "fixtures", "trees", tree) + src["path"], "rb") as f:
                self.assertEqual(src["sha256"], hashlib.sha256(f.read()).hexdigest(), src["path"])
            self.assertEqual(len(row["row_id"]), 32)
            self.assertEqual(row["schema"], "roo-ingest/row/1")

    def demo_partition_offsets(self, rows):
        offsets = sorted({r["source"]["partition_offset"] for r in rows})
        self.assertEqual(len(offsets), 2)
        self.assertEqual(offsets[0], DEMO_EXT4_OFFSET)
        return {offsets[0]: "linux-ext4", offsets[1]: "windows-ntfs"}

    # The demo run prints rows for every task in the demo image with full provenance.
    def test_demo_image(self):
        out, proc = self.run_tool(images("demo.E01"), quiet=False)
        rows = read_rows(out)
        self.assert_rows_match(rows, expected("linux-ext4", "transcripts", "stores-linux", "windows-ntfs", "stores-windows"))
        tree_of = self.demo_partition_offsets(rows)
        self.assert_provenance(rows, "demo.E01", tree_of)
        fs_types = {r["source"]["partition_offset"]: r["source"]["fs_type"] for r in rows}
        self.assertEqual(fs_types[DEMO_EXT4_OFFSET], "ext4")
        self.assertEqual([t for o, t in fs_types.items() if o != DEMO_EXT4_OFFSET], ["ntfs"])
        for task in {r["session_id"] for r in rows if r["kind"] == "task"}:
            self.assertIn(task, proc.stdout)  # the summary names every task
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        self.assertEqual(report["evidence"]["image_type"], "ewf")
        self.assertEqual(report["rows"]["total"], len(rows))
        statuses = [p.get("status") for p in report["partitions"] if p.get("kind") == "allocated"]
        self.assertEqual(statuses, ["parsed", "parsed"])
        self.assertEqual([n for n in os.listdir(out) if n.startswith(".roo-ingest-work")], [])  # work dirs gone
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))  # every fact its own stable id

    def test_folder_mode(self):
        tree = os.path.join(REPO, "fixtures", "trees", "linux-ext4")
        out, _ = self.run_tool("--dir", tree)
        rows = read_rows(out)
        # A checkout's file times are not the image's pinned ones: a row timed by its file's mtime must carry the
        # mtime this checkout has.
        wanted = expected("linux-ext4", "transcripts", "stores-linux")
        for row in wanted:
            if row["time_source"] == "file.mtime":
                ns = os.stat(tree + row["source"]["path"]).st_mtime_ns
                row["time_utc"] = datetime.datetime.fromtimestamp(ns // 1_000_000 / 1000, datetime.timezone.utc) \
                    .strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        self.assert_rows_match(rows, wanted)
        self.assertTrue(all(r["source"]["fs_type"] == "folder" for r in rows))
        self.assertTrue(all(r["source"]["partition_offset"] is None for r in rows))

    # Task trees the way older Roo releases wrote them (fixtures/README.md "trees/roo-eras/"): a v3.3.26 task whose
    # HistoryItem is only in the editor's state.vscdb taskHistory, a roo-cline v2.2.35 task whose api records have no
    # ts (timed by the ui records of their turns), the project path from the first <environment_details>, three
    # reports of one CLI task that disagree, a v3.52.1 native-protocol task (failed apply_diff, the mistake limit's
    # JSON guidance, a denial with feedback), a v3.30.0 task whose results are Roo's own texts (an unknown MCP tool,
    # a missing parameter inside toolError), and @mentions expanded in a v3.52.1 prompt, follow-up answer and
    # completion feedback and in v3.3.26 <feedback>. None of its rows is timed by a file time.
    def test_roo_eras(self):
        out, _ = self.run_tool("--dir", os.path.join(REPO, "fixtures", "trees", "roo-eras"))
        rows = read_rows(out)
        self.assert_rows_match(rows, expected("roo-eras"))
        # No transcript row is untimed while a ui record of its turn has a ts.
        self.assertEqual([r["kind"] for r in rows if r["time_utc"] is None], [])
        # The verbatim report each disagreement row keeps (seed 002), with --native.
        out, _ = self.run_tool("--native", "--dir", os.path.join(REPO, "fixtures", "trees", "roo-eras"),
                               out_name="native")
        natives = [json.loads(r["native"]) for r in read_rows(out) if r["kind"] == "history_disagreement"]
        self.assertEqual([(n["ts"], n["tokensIn"]) for n in natives], [(1773742800000, 5), (1773656400000, 3)])

    # The CLI's ~/.roo/cli-debug.log (fixtures/README.md "trees/cli-debug/"): one row per entry, timed by it, listed in
    # report.json; the two secrets in it leave in no output file, with --native neither.
    def test_cli_debug_log(self):
        tree = os.path.join(REPO, "fixtures", "trees", "cli-debug")
        out, _ = self.run_tool("--dir", tree)
        self.assert_rows_match(read_rows(out), expected("cli-debug"))
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        log = os.path.join(tree, "home", "kim", ".roo", "cli-debug.log")
        with open(log, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual([(f["path"], f["kind"], f["records"], f["errors"], f["sha256"])
                          for f in report["partitions"][0]["scan"]["files_parsed"]],
                         [("/home/kim/.roo/cli-debug.log", "cli_debug_log", 7, 0, digest)])
        native, _ = self.run_tool("--native", "--dir", tree, out_name="native")
        for d in (out, native):
            assert_in_no_output(self, d, (b"ghp_SECRETDEBUG0001kim", b"sk-or-v1-SECRETDEBUG0002kim"), d)

    # A macOS user's storage (Library/Application Support/<host>, ~/.vscode/extensions, ~/.roo) on FAT32, the one
    # macOS-like layout libtsk can read that this machine can also write; and the same tree as a folder.
    def test_macos(self):
        out, _ = self.run_tool(images("macos-fat.E01"))
        rows = read_rows(out)
        self.assert_rows_match(rows, expected("macos"))
        self.assertTrue(all(r["source"]["fs_type"].startswith("fat") for r in rows), {r["source"]["fs_type"] for r in rows})
        tree = os.path.join(REPO, "fixtures", "trees", "macos")
        out, _ = self.run_tool("--dir", tree, out_name="dir")
        wanted = expected("macos")
        for row in wanted:  # a checkout's file times are its own
            if row["time_source"] in ("file.mtime", "file.crtime"):
                row.pop("time_utc")
                row.pop("time_source")
        self.assert_rows_match(read_rows(out), wanted)

    # docs/roo-format.md §1.2: gina's settings on the system partition name D:\RooData, which is on the data partition.
    # The first round reports it not on its own file system; the second round finds and reads it on the other
    # partition. Her Cursor settings name E:\RooArchive, which no partition holds: the report says how each path was
    # resolved, or that it could not be.
    def test_custom_path_on_another_partition(self):
        out, proc = self.run_tool(images("custom-path.E01"), quiet=False)
        rows = read_rows(out)
        self.assert_rows_match(rows, expected("custom-path"))
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        scans = report["custom_storage_path_scans"]
        found = [s for s in scans if any(c["found_here"] for c in s["scan"]["custom_storage_paths"])]
        self.assertEqual(len(found), 1, scans)
        system, data = [p for p in report["partitions"] if p.get("kind") == "allocated"]
        self.assertEqual(found[0]["partition_index"], data["index"])
        self.assertEqual({r["source"]["partition_offset"] for r in rows[3:]}, {data["offset_bytes"]})
        # Windsurf names D:\RooData too (as d:\roodata): looked for once, so the root's rows are not written twice.
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))
        self.assertEqual(len(report["custom_storage_path_scans"]), 2)  # Code's (found) and Cursor's, not Windsurf's
        code, cursor, windsurf = report["custom_storage_path_resolution"]
        self.assertEqual((code["recorded_path"], code["settings_partition_index"], code["partitions_searched"],
                          code["resolved"], code["found_on_partition_index"], code["found_at"]),
                         ("D:\\RooData", system["index"], [data["index"]], True, data["index"], "/RooData"))
        self.assertEqual(code["resolution"], f"found on partition {data['index']} at /RooData (the recorded path, "
                                             "drive letter dropped, is a directory there)")
        self.assertEqual((cursor["recorded_path"], cursor["surface"], cursor["partitions_searched"], cursor["resolved"]),
                         ("E:\\RooArchive", "cursor", [data["index"]], False))
        self.assertNotIn("found_at", cursor)
        self.assertEqual(cursor["resolution"], "could not be resolved: no other file system of the evidence holds it")
        self.assertEqual((windsurf["recorded_path"], windsurf["surface"], windsurf["partitions_searched"],
                          windsurf["resolved"], windsurf["found_on_partition_index"], windsurf["found_at"],
                          windsurf["same_path_as"]),
                         ("d:\\roodata", "windsurf", [data["index"]], True, data["index"], "/RooData",
                          "/Users/gina/AppData/Roaming/Code/User/settings.json"))
        self.assertEqual(windsurf["resolution"], code["resolution"] + " (the path "
                         "/Users/gina/AppData/Roaming/Code/User/settings.json names too: looked for once, its rows "
                         "written once)")
        # The stdout summary says the same, one line per path named (plugin/report.cpp run_summary).
        summary = [line for line in proc.stdout.splitlines() if line.startswith("  customStoragePath ")]
        self.assertEqual(summary, [
            "  customStoragePath D:\\RooData (from /Users/gina/AppData/Roaming/Code/User/settings.json): found on "
            f"partition {data['index']} at /RooData (the recorded path, drive letter dropped, is a directory there)",
            "  customStoragePath E:\\RooArchive (from /Users/gina/AppData/Roaming/Cursor/User/settings.json): could "
            "not be resolved: no other file system of the evidence holds it",
            "  customStoragePath d:\\roodata (from /Users/gina/AppData/Roaming/Windsurf/User/settings.json): found on "
            f"partition {data['index']} at /RooData (the recorded path, drive letter dropped, is a directory there) "
            "(the path /Users/gina/AppData/Roaming/Code/User/settings.json names too: looked for once, its rows "
            "written once)"])
        # A folder is one file system: there is nothing else to look in, and the report says so.
        out, _ = self.run_tool("--dir", os.path.join(REPO, "fixtures", "trees", "custom-path-system"), out_name="dir")
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        self.assertEqual([(c["recorded_path"], c["resolved"], c["resolution"])
                          for c in report["custom_storage_path_resolution"]],
                         [(p, False, "could not be resolved: the evidence is one folder, whose file system does not "
                                     "hold it") for p in ("D:\\RooData", "E:\\RooArchive", "d:\\roodata")])
        self.assertEqual([r["kind"] for r in read_rows(out)], ["host_setting"] * 3)

    # A file system at offset 0 with no partition table, as split raw given its first segment.
    def test_split_raw(self):
        out, _ = self.run_tool(images("linux-ext4.raw.001"))
        rows = read_rows(out)
        self.assert_rows_match(rows, expected("linux-ext4", "transcripts", "stores-linux"))
        self.assert_provenance(rows, "linux-ext4.raw.001", {0: "linux-ext4"})

    # docs/row-contract.md "Past-use rows and secondary sources": a cli-history.json line is kept only when no task
    # user row of the home has its text, and the report counts the lines matched. alice's 3 lines match none of her
    # tasks' prompts; erin's third line is her task's prompt (fixtures/README.md, stores section).
    def test_cli_history_matches_are_counted(self):
        out, _ = self.run_tool(images("linux-ext4.raw.001"))
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        lines = {f["path"]: f for p in report["partitions"] if "scan" in p for f in p["scan"]["files_parsed"]
                 if f["kind"] == "cli_history"}
        self.assertEqual({path: (f["records"], f["entries_matching_a_task_user_row"]) for path, f in lines.items()},
                         {"/home/alice/.roo/cli-history.json": (3, 0), "/home/erin/.roo/cli-history.json": (3, 1)})
        rows = [r for r in read_rows(out) if r["kind"] == "cli_history"]
        self.assertEqual(len(rows), 3 + 2)

    def test_split_e01(self):
        out, _ = self.run_tool(images("demo-split.E01"))
        rows = read_rows(out)
        self.assert_rows_match(rows, expected("linux-ext4", "transcripts", "stores-linux", "windows-ntfs", "stores-windows"))
        self.assert_provenance(rows, "demo-split.E01", self.demo_partition_offsets(rows))
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        self.assertGreaterEqual(len(report["evidence"]["segments"]), 2)

    # The same input gives byte-identical rows.jsonl and roo.body.
    def test_determinism(self):
        a, _ = self.run_tool(images("demo.E01"), out_name="a")
        b, _ = self.run_tool(images("demo.E01"), out_name="b")
        for name in ("rows.jsonl", "roo.body"):
            with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
                self.assertEqual(fa.read(), fb.read(), name)

    # roo.body merges with `fls -r -m /` output of the same image and the real mactime reads both.
    def test_mactime_merge(self):
        out, _ = self.run_tool(images("demo.E01"))
        fls = subprocess.run(["fls", "-r", "-m", "/", "-o", str(DEMO_EXT4_OFFSET // 512), images("demo.E01")],
                             capture_output=True, text=True, check=True).stdout
        with open(os.path.join(out, "roo.body"), encoding="utf-8") as f:
            body = f.read()
        merged = os.path.join(self.tmp, "merged.body")
        with open(merged, "w", encoding="utf-8") as f:
            f.write(fls + body)
        timeline = subprocess.run(["mactime", "-b", merged, "-d", "-y"], capture_output=True, text=True,
                                  check=True).stdout.splitlines()
        roo_lines = [line for line in timeline if '"roo-code ' in line]
        fs_lines = [line for line in timeline if "ui_messages.json" in line and '"roo-code ' not in line]
        self.assertEqual(len(roo_lines), len(body.splitlines()))
        self.assertGreater(len(fs_lines), 0)
        timed = [r for r in read_rows(out) if r["time_utc"]]
        self.assertEqual(len(roo_lines), len(timed))
        # mactime -y prints UTC ISO times: the row's time, to the second.
        first = timed[0]
        self.assertTrue(any(line.startswith(first["time_utc"][:19] + "Z") for line in roo_lines))
        self.assertTrue(all(",macb," in line for line in roo_lines))

    # The summary prints the fls line of each file system searched (with its sector offset: a bare fls -r -m / finds
    # no file system on a partitioned image) and one command that merges them with roo.body; run as printed, it gives
    # a mactime timeline holding every body line and each file system's entries under its own prefix.
    def test_summary_prints_the_fls_lines_that_merge(self):
        out, proc = self.run_tool(images("demo.E01"), quiet=False)
        lines = proc.stdout.splitlines()
        fls_lines = [l.strip() for l in lines if l.startswith("    fls ")]
        self.assertEqual(fls_lines, ["fls -o 2048 -r -m /p4/ " + images("demo.E01"),
                                     "fls -o 10240 -r -m /p5/ " + images("demo.E01")])  # mmls: slots 004, 005
        merged = [l for l in lines if l.startswith("  merged with roo.body: ")]
        self.assertEqual(len(merged), 1)
        command = merged[0][len("  merged with roo.body: "):]
        timeline = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(out, "roo.body"), encoding="utf-8") as f:
            body = f.read().splitlines()
        self.assertEqual(len([l for l in timeline.splitlines() if '"roo-code ' in l]), len(body))
        self.assertIn("/p4/home/alice/", timeline)
        self.assertIn("/p5/Users/bob/", timeline)

    # roo.body names a file as the summary's fls line does: the same prefixed path and the same inode column (NTFS:
    # <entry>-<type>-<id>), so in the merged timeline a row's line and its file's own lines can be matched up. fls's
    # lines are the real fls's output on the same image.
    def test_body_lines_name_files_as_fls_does(self):
        out, proc = self.run_tool(images("demo.E01"), quiet=False)
        fls_lines = [l.strip() for l in proc.stdout.splitlines() if l.startswith("    fls ")]
        fls_files = {}
        for line in fls_lines:
            listing = subprocess.run(line.split(), capture_output=True, text=True, check=True).stdout
            for entry in listing.splitlines():
                fields = entry.split("|")
                fls_files[fields[1]] = fields[2]
        with open(os.path.join(out, "roo.body"), encoding="utf-8") as f:
            body = [l.split("|") for l in f.read().splitlines()]
        checked = set()
        for fields in body:
            name, inode = fields[1], fields[2]
            path = name[name.rindex(" (") + 2:].split(" #")[0].rstrip(")")
            if not path.startswith("/p"):
                continue
            self.assertIn(path, fls_files, name)
            self.assertEqual(inode, fls_files[path], name)
            checked.add((path.split("/")[1], "-" in inode))
        # both file systems, and NTFS's three-part inode among them
        self.assertEqual({p for p, _ in checked}, {"p4", "p5"})
        self.assertIn(("p5", True), checked)

    # The summary's headline counts what an examiner asks first, each counted here from rows.jsonl itself: tasks,
    # commands, permission decisions by decision, file edits, rows from files that are not allocated by recovery
    # class; then where the outputs are and which to open first.
    def test_summary_headline_counts_what_the_rows_hold(self):
        from collections import Counter
        for name, image in (("demo", "demo.E01"), ("recovery", "recovery-ntfs.E01")):
            out, proc = self.run_tool(images(image), out_name=name, quiet=False)
            rows = read_rows(out)
            kinds = Counter(r["kind"] for r in rows)
            decisions = Counter(r["decision"] for r in rows if r["kind"] == "permission_decision")
            recovered = Counter(r["source"]["recovery"] for r in rows
                                if r["source"] and r["source"]["recovery"] != "allocated")
            wanted = (f"  headline: {kinds['task']} task(s), {kinds['command']} command(s), "
                      f"{kinds['permission_decision']} permission decision(s)")
            if decisions:
                wanted += " (" + ", ".join(f"{n} {d}" for d, n in sorted(decisions.items())) + ")"
            wanted += f", {kinds['file_edit']} file edit(s); {sum(recovered.values())} row(s) from files that are not allocated"
            if recovered:
                wanted += " (" + ", ".join(f"{n} {h}" for h, n in sorted(recovered.items())) + ")"
            lines = proc.stdout.splitlines()
            self.assertIn(wanted, lines)
            self.assertTrue(any(l.startswith(f"  outputs in {out}: open report.html first") for l in lines))
            if name == "demo":
                self.assertGreater(decisions["denied"], 0)  # denials apart from approvals
            else:
                self.assertGreater(recovered["deleted"], 0)

    def run_crashing_ntfs_worker(self, threads):
        """demo.E01 with the NTFS partition's worker dying after its first source file that gave rows: exit 5, the
        ext4 partition's rows complete, one body line per kept timed row; returns (NTFS rows kept, report, body)."""
        env = dict(os.environ, ROO_INGEST_TEST_CRASH_PARTITION="5")  # the NTFS partition of demo.E01
        out = os.path.join(self.tmp, "out")
        proc = subprocess.run([BINARY, images("demo.E01"), "-o", out, "--threads", str(threads)], capture_output=True,
                              text=True, env=env)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        rows = read_rows(out)
        linux = expected("linux-ext4", "transcripts", "stores-linux")
        self.assert_rows_match(rows[: len(linux)], linux)
        self.assertNotIn("\u0001", open(os.path.join(out, "rows.jsonl"), encoding="utf-8").read())  # no placeholder
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        self.assertEqual(report["rows"]["total"], len(rows))
        with open(os.path.join(out, "roo.body"), encoding="utf-8") as f:
            body = f.read().splitlines()
        timed = [r for r in rows if r["time_utc"]]
        self.assertEqual(len(body), len(timed))
        for line, row in zip(body, timed):  # in row order
            self.assertIn("roo-code " + row["kind"], line)
        return rows[len(linux):], report, body

    # A crash while reading one file system loses neither the rows of the others nor the report.
    def test_worker_crash(self):
        # One worker thread: exactly what it finished before dying is known (test_worker_crash_threads: several).
        ntfs_rows, report, body = self.run_crashing_ntfs_worker(threads=1)
        # The NTFS worker finished one source file (W1's history_item.json: task, its permission mode and the
        # identity conflict) and died.
        self.assertEqual([r["kind"] for r in ntfs_rows], ["task", "permission_mode", "identity_conflict"])
        self.assertEqual(ntfs_rows[0]["source"]["fs_type"], "ntfs")
        crashed = [p for p in report["partitions"] if p.get("index") == 5][0]
        self.assertEqual(crashed["status"], "crashed")
        self.assertIn("worker killed by signal 6", crashed["reason"])
        self.assertIn("roo-code identity_conflict", body[-1])

    # The same crash with three worker threads on the file system: worker 0 dies after its first source while the
    # others may have finished task units of their own. What is kept is whole sources, in the order one thread
    # writes them: an ordered subsequence of the expected NTFS rows. Which task each worker claims depends on timing
    # (under load another worker may take W1 before worker 0 starts), so which source comes first is not fixed; but
    # worker 0 finished one source before dying, so something is kept, and the first source kept is kept whole.
    def test_worker_crash_threads(self):
        ntfs_rows, _, _ = self.run_crashing_ntfs_worker(threads=3)
        wanted = expected("windows-ntfs", "stores-windows")
        self.assertGreater(len(ntfs_rows), 0)
        first = ntfs_rows[0]["source"]["path"]
        kept_first = [r["kind"] for r in ntfs_rows if r["source"]["path"] == first]
        self.assertEqual(kept_first, [w["kind"] for w in wanted if w["source"]["path"] == first], first)
        at = 0
        for row in ntfs_rows:  # each kept row matches the next expected row that it can match, in order
            while at < len(wanted) and subset_diff(wanted[at], row):
                at += 1
            self.assertLess(at, len(wanted), f"kept row out of order or not expected: {row['kind']} {row['source']['path']}")
            at += 1

    # --threads shares a file system's tasks between workers (plugin/task_queue.h): the rows, the body file and the
    # report are the same as one thread's, whatever the number of threads.
    def test_threads_same_output(self):
        for image in ("demo.E01", "recovery-ext4.E01", "deleted-ntfs.E01"):
            outs = [self.run_tool(images(image), "--threads", str(n), out_name=f"{image}-{n}")[0] for n in (1, 2, 3)]
            for name in ("rows.jsonl", "roo.body"):
                first = open(os.path.join(outs[0], name), "rb").read()
                for other in outs[1:]:
                    self.assertEqual(first, open(os.path.join(other, name), "rb").read(), f"{image} {name}")
            reports = []
            for o in outs:
                r = json.load(open(os.path.join(o, "report.json"), encoding="utf-8"))
                r.pop("command_line")
                reports.append(r)
            self.assertEqual(reports[0], reports[1], image)
            self.assertEqual(reports[0], reports[2], image)
        self.assertGreater(len(read_rows(outs[0])), 100)

    # The row contract is a JSON Schema (docs/row.schema.json); every row of every fixture run must satisfy it.
    def test_row_schema(self):
        import jsonschema

        with open(os.path.join(REPO, "docs", "row.schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        trees = os.path.join(REPO, "fixtures", "trees")
        runs = [("demo", [images("demo.E01")]), ("dir", ["--dir", os.path.join(trees, "windows-ntfs")]),
                ("native", ["--native", images("linux-ext4.raw.001")]),
                # Every store, host and recovery kind the other fixtures give (a field's enum that drifted from the
                # code was once caught only here).
                ("custom", [images("custom-path.E01")]), ("macos", [images("macos-fat.E01")]),
                ("fat", [images("recovery-fat.E01")]), ("ntfs", [images("recovery-ntfs.E01")]),
                ("exfat", [images("recovery-exfat.E01")]),
                ("nightly", ["--dir", os.path.join(trees, "stores-nightly")]),
                ("eras", ["--dir", os.path.join(trees, "roo-eras")]),
                ("cli-debug", ["--dir", os.path.join(trees, "cli-debug")]),
                # rows from APFS volumes (source.pool_volume), with --deep's carved rows from the container's free blocks
                ("apfs", [os.path.join(REPO, "fixtures", "apfs", "macos-apfs-gpt.E01")]),
                ("apfs-snapshot", [os.path.join(REPO, "fixtures", "apfs", "macos-apfs-snap.E01")]),
                ("apfs-deep", ["--deep", os.path.join(REPO, "fixtures", "apfs", "macos-apfs.E01")])]
        rows_of = {}
        for name, args in runs:
            out, _ = self.run_tool(*args, out_name=name)
            rows_of[name] = rows = read_rows(out)
            self.assertGreater(len(rows), 0)
            for row in rows:
                errors = [e.message for e in validator.iter_errors(row)]
                self.assertEqual(errors, [], f"{name}: {row['kind']} {row['source']['path']}")
        rows = rows_of["native"]
        # The schema can fail: a row without its digest, or with an invented time source, is refused.
        broken = dict(rows[0], source=dict(rows[0]["source"], sha256="abc"))
        self.assertFalse(validator.is_valid(broken))
        self.assertFalse(validator.is_valid(dict(rows[0], time_utc=None, time_source="ui.ts")))
        apfs = rows_of["apfs"][0]
        self.assertIn("pool_volume", apfs["source"])
        no_block = {k: v for k, v in apfs["source"]["pool_volume"].items() if k != "block"}
        self.assertFalse(validator.is_valid(dict(apfs, source=dict(apfs["source"], pool_volume=no_block))))
        # Every row carries its record with --native, but a credential row (its record is the secret) and a row
        # about a directory entry (an extension folder, a ~/.roo inventory entry, a worktree: no record to copy).
        no_record = {"credential_present", "roo_config_entry", "worktree"}
        self.assertTrue(all("native" in r for r in rows
                            if r["kind"] not in no_record and not (r["text"] or "").startswith("installation: extension folder")))

    # Secrets are reported present, never written. The fixtures plant values that all contain "PLANTED"
    # (fixtures/README.md, stores section) in every kind of secret store; no output file of any run may hold one.
    def test_planted_secrets_never_leave(self):
        planted = []
        for tree in ("linux-ext4", "windows-ntfs"):
            for base, _, files in os.walk(os.path.join(REPO, "fixtures", "trees", tree)):
                for name in files:
                    with open(os.path.join(base, name), "rb") as f:
                        if b"PLANTED" in f.read():
                            planted.append(name)
        self.assertGreaterEqual(len(planted), 8, planted)  # the test can fail: the secrets are there to leak
        runs = [("img", [images("demo.E01")]), ("img-native", ["--native", images("demo.E01")]),
                ("dir-native", ["--native", "--dir", os.path.join(REPO, "fixtures", "trees", "windows-ntfs")])]
        for name, args in runs:
            out, _ = self.run_tool(*args, out_name=name)
            present = [r for r in read_rows(out) if r["kind"] == "credential_present"]
            self.assertGreater(len(present), 0, name)
            assert_in_no_output(self, out, (b"PLANTED",), name)

    # Progress on stderr. --progress=json gives one JSON object per line (for wrappers): a parsing line per
    # file system and a writing line whose bytes reach rows.jsonl's size, with an ETA once the total is known;
    # plain mode gives readable lines; --quiet gives nothing at all.
    def test_progress(self):
        out, proc = self.run_tool(images("demo.E01"), "--progress=json", quiet=False)
        events = [json.loads(line) for line in proc.stderr.splitlines()]  # every line is JSON
        parsing = [e for e in events if e["progress"] == "parsing" and e["done"]]
        self.assertEqual([e["where"] for e in parsing], ["partition 4 (ext4)", "partition 5 (ntfs)"])
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        files = [len(p["scan"]["files_parsed"]) for p in report["partitions"] if p.get("kind") == "allocated"]
        self.assertEqual([e["files"] for e in parsing], files)
        # The total is the bytes of the task files listed (so an ETA shows); the stores read after the tasks are not
        # counted ahead, so what is done can pass it: the last line then shows what was done.
        for e in parsing:
            self.assertGreaterEqual(e["total_bytes"], e["bytes"])
            self.assertEqual(e["eta_seconds"], 0)
        writing = [e for e in events if e["progress"] == "writing formats" and e["done"]]
        self.assertEqual(len(writing), 1)
        size = os.path.getsize(os.path.join(out, "rows.jsonl"))
        self.assertEqual((writing[0]["bytes"], writing[0]["total_bytes"]), (size, size))
        self.assertIsNotNone(writing[0]["eta_seconds"])
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            self.assertEqual(writing[0]["rows"], sum(1 for _ in f))

        _, proc = self.run_tool(images("demo.E01"), "--progress=plain", out_name="plain", quiet=False)
        self.assertIn("roo-ingest: parsing partition 4 (ext4): 54 files", proc.stderr)
        _, proc = self.run_tool(images("demo.E01"), "--progress=json", out_name="quiet", quiet=True)
        self.assertEqual(proc.stderr, "")
        _, proc = self.run_tool(images("demo.E01"), "--progress=loud", out_name="bad", quiet=False, check=False)
        self.assertEqual(proc.returncode, 2)

    def test_errors(self):
        # Errors of the command line itself: one prefix for every error line, exit 2, and with no argument at all
        # what the tool needs.
        for args, says in (([], "give an IMAGE (or --dir FOLDER) and -o OUTDIR"),
                           (["--bogus", "x.E01", "-o", "o"], "--bogus"),
                           # An unknown option is named even when a required one is missing too (it is usually
                           # why the required one seems missing: a misspelt --out).
                           (["--bogus"], "--bogus"),
                           (["x.E01", "--ouut", "o"], "--ouut"),
                           (["--threads", "abc", "x.E01", "-o", "o"], "--threads"),
                           (["x.E01"], "--out")):
            proc = subprocess.run([BINARY, *args], capture_output=True, text=True, cwd=self.tmp)
            self.assertEqual(proc.returncode, 2, args)
            self.assertTrue(proc.stderr.startswith("roo-ingest: error: "), proc.stderr)
            self.assertIn(says, proc.stderr.splitlines()[0])
        self.assertEqual(os.listdir(self.tmp), [])  # nothing written
        # The evidence in a folder of its own: OUTDIR may not be below the folder that holds an image.
        evidence = os.path.join(self.tmp, "evidence")
        os.mkdir(evidence)
        missing = os.path.join(evidence, "nope.E01")
        _, proc = self.run_tool(missing, check=False)
        self.assertEqual(proc.returncode, 3)
        self.assertIn(missing, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1)

        # A split E01 whose second segment is missing.
        lone = os.path.join(self.tmp, "lone")
        os.mkdir(lone)
        shutil.copy(images("demo-split.E01"), lone)
        _, proc = self.run_tool(os.path.join(lone, "demo-split.E01"), out_name="o2", check=False)
        self.assertEqual(proc.returncode, 4, proc.stderr)

        # OUTDIR not empty, and OUTDIR beside the evidence.
        full = os.path.join(self.tmp, "full")
        os.mkdir(full)
        open(os.path.join(full, "x"), "w").close()
        proc = subprocess.run([BINARY, "--dir", os.path.join(REPO, "fixtures", "trees", "linux-ext4"), "-o", full],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--force", proc.stderr)
        shutil.copy(images("demo.E01"), evidence)
        proc = subprocess.run([BINARY, os.path.join(evidence, "demo.E01"), "-o", evidence], capture_output=True,
                              text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(sorted(os.listdir(evidence)), ["demo.E01"])

        # A file that is no image at all: opened as raw, no file system found: a one-line error naming it, exit 6,
        # and the report (complete) says why; no rows.
        text = os.path.join(evidence, "notes.txt")
        with open(text, "w") as f:
            f.write("not a disk image\n" * 100)
        out, proc = self.run_tool(text, out_name="o3", check=False)
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1)
        self.assertIn(text + ": no file system could be opened", proc.stderr)
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        self.assertEqual(report["partitions"][0]["status"], "no_file_system")
        self.assertEqual(read_rows(out), [])

    # ---- What Roo Code deleted or left behind (fixtures/README.md "Recovery fixtures") ------------------------------
    # The trees hold every file before its deletion, so a recovered file's bytes are known; the images list which
    # names are deleted (fls -d) and their inodes. Every run uses TZ=UTC: FAT keeps wall-clock times that libtsk
    # converts with the reader's zone.
    RECOVERY_TREES = {"recovery-ext4": "recovery-linux", "recovery-ntfs": "recovery-windows",
                      "recovery-fat": "recovery-fat", "recovery-exfat": "recovery-fat"}

    def run_recovery(self, image, out_name="out"):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--quiet", images(image + ".E01"), "-o", out], capture_output=True, text=True,
                              env=dict(os.environ, TZ="UTC"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return out, read_rows(out)

    def assert_recovery_rows(self, image, temp_dirs):
        out, rows = self.run_recovery(image)
        wanted = expected(image)
        for (img, i), keys in KNOWN_BUGS.items():  # compared strictly by the test_recovery_bug_* tests instead
            if img == image:
                for k in keys:
                    wanted[i].pop(k)
        self.assert_rows_match(rows, wanted)
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        parts = [p for p in report["partitions"] if p.get("kind") == "allocated"]
        self.assertEqual([p["scan"]["temp_dirs_searched"] for p in parts], [temp_dirs])
        self.assertEqual(report["rows"]["total"], len(rows))
        for r in rows:  # a name deleted is never called allocated, and a temp file's rows are temp_leftover
            src = r["source"]
            if not src["name_allocated"]:
                self.assertIn(src["recovery"], ("deleted", "temp_leftover"), src["path"])
            if "/.ui_messages.json." in src["path"] or "/.api_conversation_history.json." in src["path"]:
                if r["kind"] != "deleted_entry":
                    self.assertEqual(src["recovery"], "temp_leftover", src["path"])
        return rows

    # ext4: a deleted task dir, a deleted command output, an allocated .bak and a deleted .new version, a rename's
    # left-over name (reallocated), a lock dir, a deleted index .bak; a live and a deleted roo --ephemeral dir in /tmp.
    def test_recovery_ext4(self):
        self.assert_recovery_rows("recovery-ext4", ["/tmp"])

    # NTFS: a deleted task dir, a deleted command output, an allocated api .bak, a deleted ephemeral dir in %TEMP%
    # whose names and content come back through the MFT (user = the home's owner).
    def test_recovery_ntfs(self):
        self.assert_recovery_rows("recovery-ntfs", ["/Users/ivan/AppData/Local/Temp"])

    # FAT: a deleted api history read as the task's own (its long name survives the delete), a deleted ephemeral
    # dir whose tasks/ (an 8.3 name) comes back as "_asks": followed all the same, its rows say name_match.
    def test_recovery_fat(self):
        self.assert_recovery_rows("recovery-fat", ["/Users/jana/AppData/Local/Temp"])

    # exFAT, the recovery-fat story: deleting clears only the InUse bits of the entry sets, so the deleted
    # ephemeral dir's tasks/ keeps its name (no "_asks", no name_match), and modified times keep exFAT's 10 ms
    # (global-state.json 06:58:13.250, where FAT keeps 06:58:12). fixtures/tools/exfat_put.py wrote and deleted.
    # F1's history_item.json entry is written at UTC+02:00 with an increment of 100: its rows' source times are the
    # moment it was saved (20:41:37Z), where libtsk alone reads 22:41:36Z (fixtures/README.md).
    def test_recovery_exfat(self):
        fls = shutil.which("fls")
        gone = "Users/jana/AppData/Local/Temp/roo-cli-1778828292046-a9c4e1x7u/global-storage/"
        if fls:  # the set-up is what it claims: libtsk lists the deleted tasks/ whole
            listed = subprocess.run([fls, "-r", "-d", "-p", images("recovery-exfat.E01")], capture_output=True,
                                    text=True, check=True).stdout
            self.assertIn(":\t" + gone + "tasks\n", listed)
            self.assertNotIn("_asks", listed)
        istat = shutil.which("istat")
        if istat:  # and libtsk alone misreads the zoned entry
            shown = subprocess.run([istat, images("recovery-exfat.E01"), "3079"], capture_output=True, text=True,
                                   check=True, env=dict(os.environ, TZ="UTC")).stdout
            self.assertIn("Written:\t2026-05-14 22:41:36 (UTC)\n", shown)
        rows = self.assert_recovery_rows("recovery-exfat", ["/Users/jana/AppData/Local/Temp"])
        self.assertEqual({r["source"]["fs_type"] for r in rows}, {"exfat"})
        self.assertEqual([r for r in rows if "name_match" in r], [])

    # The same recovery image gives byte-identical rows.jsonl and roo.body.
    def test_recovery_determinism(self):
        a, _ = self.run_recovery("recovery-ext4", "a")
        b, _ = self.run_recovery("recovery-ext4", "b")
        for name in ("rows.jsonl", "roo.body"):
            with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
                data = fa.read()
                self.assertGreater(len(data), 0, name)
                self.assertEqual(data, fb.read(), name)

    # Every recovered row's digest is the digest of the bytes The Sleuth Kit's own icat returns for its inode, and of
    # the file as the tree had it before the delete; a row about a name whose content is not read has none.
    def test_recovery_sha256_matches_icat(self):
        icat = shutil.which("icat")
        checked = 0
        for image, tree in self.RECOVERY_TREES.items():
            _, rows = self.run_recovery(image, out_name=image)
            cache = {}
            for r in rows:
                src = r["source"]
                if src["recovery"] == "allocated":
                    continue
                if r["kind"] in ("deleted_entry", "ephemeral_dir", "lock_dir") or "entry_outcome" in r:  # not read
                    self.assertIsNone(src["sha256"], src["path"])
                    continue
                self.assertIsNotNone(src["sha256"], src["path"])
                if src["path"] not in cache:
                    # A FAT deleted 8.3 name lost its first byte ("_asks" is the tree's "tasks"; name_match says so).
                    tree_path = src["path"].replace("/_asks/", "/tasks/") if "name_match" in r else src["path"]
                    with open(os.path.join(REPO, "fixtures", "trees", tree) + tree_path, "rb") as f:
                        self.assertEqual(hashlib.sha256(f.read()).hexdigest(), src["sha256"], src["path"])
                    if icat:
                        data = subprocess.run([icat, images(image + ".E01"), str(src["inode"])], capture_output=True,
                                              check=True).stdout
                        self.assertEqual(hashlib.sha256(data).hexdigest(), src["sha256"], f"icat {src['inode']}")
                    cache[src["path"]] = src["sha256"]
                    checked += 1
                self.assertEqual(cache[src["path"]], src["sha256"])
        self.assertGreaterEqual(checked, 20)  # every deleted and temp file of the recovery images
        if not icat:
            self.skipTest("icat not installed: digests checked against the trees only")

    # docs/roo-format.md §2.7: cmd-<executionId>.txt is named by the ts of the ask:"command" record; the deleted file's
    # row and the command's call row (whose result says "Artifact ID: cmd-<id>.txt") name the same artifact.
    def test_recovery_command_output_join(self):
        for image, tree in (("recovery-ext4", "recovery-linux"), ("recovery-ntfs", "recovery-windows")):
            _, rows = self.run_recovery(image, out_name=image)
            outputs = [r for r in rows if r["kind"] == "command_output"]
            self.assertEqual(len(outputs), 1, image)
            out = outputs[0]
            self.assertEqual(out["source"]["recovery"], "deleted")
            self.assertFalse(out["source"]["name_allocated"])
            path = os.path.join(REPO, "fixtures", "trees", tree) + out["source"]["path"]
            with open(path, encoding="utf-8", newline="") as f:  # NTFS's output has CRLF line ends
                self.assertEqual(out["text"], f.read())
            task_dir = os.path.dirname(os.path.dirname(path))
            with open(os.path.join(task_dir, "ui_messages.json"), encoding="utf-8") as f:
                asks = [m for m in json.load(f) if m.get("ask") == "command"]
            self.assertEqual(len(asks), 1)
            self.assertEqual(out["execution_id"], str(asks[0]["ts"]))
            self.assertEqual(out["output_artifact"], f"cmd-{asks[0]['ts']}.txt")
            calls = [r for r in rows if r["kind"] == "command" and r["session_id"] == out["session_id"]
                     and r["source"]["recovery"] == "allocated"]
            self.assertEqual(len(calls), 1)
            self.assertEqual(calls[0]["command"], asks[0]["text"])
            self.assertEqual(calls[0]["output_artifact"], out["output_artifact"])
            results = [r for r in rows if r["kind"] == "tool_result" and r["tool_use_id"] == calls[0]["tool_use_id"]]
            self.assertEqual(len(results), 1)
            self.assertIn(f"Artifact ID: {out['output_artifact']}\n", results[0]["text"])

    # Regression (found by these fixtures, fixed): a version's records folded into the live file must still reach the
    # ui parser, else in .ui_messages.json.bak_… the first say:text (the prompt, folded) no longer counts and the second
    # one, an assistant text the live file lost, comes out as a user_message.
    def test_recovery_bug_version_text_role(self):
        _, rows = self.run_recovery("recovery-ext4")
        wanted = expected("recovery-ext4")[18]
        self.assertTrue(wanted["source"]["path"].endswith("/.ui_messages.json.bak_1777882326655_k7f2q9xw3m1.tmp"))
        self.assertEqual(subset_diff(wanted, rows[18]), [])

    # Regression (found by these fixtures, fixed): a deleted roo-cli dir whose inode now belongs to another directory
    # must not be listed through that inode (the other directory's tasks would be reported again under the deleted
    # dir's path). Built here: a deleted /tmp/roo-cli-A whose inode debugfs gives to a new /var/tmp/roo-cli-B. The
    # deleted dir still gets its ephemeral_dir row (its name is evidence), marked reallocated, and nothing below it.
    def test_recovery_bug_reused_ephemeral_inode(self):
        if not all(shutil.which(t) for t in ("mkfs.ext4", "debugfs", "fls")):
            self.skipTest("mkfs.ext4, debugfs or fls not installed")
        tree = os.path.join(self.tmp, "tree")
        gone = "/tmp/roo-cli-1778139909330-p8d1z6w4c"
        shutil.copytree(os.path.join(REPO, "fixtures", "trees", "recovery-linux") + gone, tree + gone)
        os.makedirs(os.path.join(tree, "var", "tmp"))
        os.makedirs(os.path.join(self.tmp, "evidence"))  # OUTDIR may not be below the image's folder
        img = os.path.join(self.tmp, "evidence", "reuse.ext4")
        with open(img, "wb") as f:
            f.truncate(4 << 20)
        subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "1024", "-I", "256", "-N", "512", "-d", tree, img], check=True,
                       capture_output=True)
        task = "019e0165-d50a-7a86-93f1-2c7b5e4d0a19"
        g = gone + "/global-storage"
        live = "/var/tmp/roo-cli-1778200000000-zz9"
        ui = (os.path.join(REPO, "fixtures", "trees", "recovery-linux") + g + f"/tasks/{task}/ui_messages.json")
        cmds = [f"rm {g}/tasks/{task}/{n}" for n in ("api_conversation_history.json", "history_item.json",
                                                      "ui_messages.json")]
        cmds += [f"rmdir {g}/tasks/{task}", f"rm {g}/tasks/_index.json", f"rmdir {g}/tasks", f"rm {g}/global-state.json",
                 f"rmdir {g}", f"rmdir {gone}", f"mkdir {live}", f"mkdir {live}/global-storage",
                 f"mkdir {live}/global-storage/tasks", f"mkdir {live}/global-storage/tasks/{task}",
                 f"write {ui} {live}/global-storage/tasks/{task}/ui_messages.json"]
        with open(os.path.join(self.tmp, "cmds"), "w") as f:
            f.write("\n".join(cmds) + "\n")
        subprocess.run(["debugfs", "-w", "-f", os.path.join(self.tmp, "cmds"), img], check=True, capture_output=True)
        fls = subprocess.run(["fls", "-r", "-p", img], capture_output=True, text=True).stdout
        self.assertIn("(realloc):\ttmp/roo-cli-1778139909330-p8d1z6w4c\n", fls)  # the set-up is what it claims
        out = os.path.join(self.tmp, "out")
        subprocess.run([BINARY, "--quiet", img, "-o", out], check=True, capture_output=True)
        rows = read_rows(out)
        dirs = [r for r in rows if r["kind"] == "ephemeral_dir" and r["source"]["path"] == gone]
        self.assertEqual(len(dirs), 1)
        self.assertTrue(dirs[0]["source"]["reallocated"])
        self.assertEqual([r["source"]["path"] for r in rows if r["source"]["path"].startswith(gone + "/")], [])

    # Once a known limitation: on FAT a deleted 8.3-only name loses its first byte (0xE5, listed by libtsk as
    # "_"), so the deleted ephemeral dir's tasks/ is "_asks". It is matched as tasks/ (FAT only, deleted only, the
    # rest of the name exact), its task is read, and exactly the rows read through it say so; the path stays the one
    # fls lists.
    def test_recovery_fat_deleted_tasks_dir_first_byte_lost(self):
        fls = shutil.which("fls")
        gone = "/Users/jana/AppData/Local/Temp/roo-cli-1778828292046-a9c4e1x7u/global-storage/"
        if fls:  # the set-up is what it claims: libtsk lists the deleted tasks/ as "_asks"
            listed = subprocess.run([fls, "-r", "-d", "-p", images("recovery-fat.E01")], capture_output=True,
                                    text=True, check=True).stdout
            self.assertIn("\t" + gone[1:] + "_asks\n", listed)
        _, rows = self.run_recovery("recovery-fat")
        tasks = [r for r in rows if r["kind"] == "task" and r["surface"] == "cli-ephemeral"]
        self.assertEqual([r["session_id"] for r in tasks], ["019e2a6d-b93f-7b98-8e34-6f0d2c9a5b81"])
        marked = [r["source"]["path"] for r in rows if "name_match" in r]
        self.assertEqual(len(marked), 8)
        self.assertTrue(all(p.startswith(gone + "_asks/") for p in marked), marked)
        self.assertEqual({r["name_match"] for r in rows if "name_match" in r}, {"first byte lost (FAT deleted entry)"})
        self.assertEqual([r["source"]["path"] for r in rows if "name_match" not in r and "/_asks/" in r["source"]["path"]],
                         [])
        # Nowhere else: the ext4, NTFS and exFAT images keep deleted names whole.
        for image in ("recovery-ext4", "recovery-ntfs", "recovery-exfat"):
            _, other = self.run_recovery(image, out_name=image)
            self.assertEqual([r for r in other if "name_match" in r], [], image)

    # Regression (found by these fixtures, fixed: the field is now entry_outcome): every recovery row meets the schema.
    def test_recovery_bug_row_schema(self):
        import jsonschema

        with open(os.path.join(REPO, "docs", "row.schema.json"), encoding="utf-8") as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        for image in self.RECOVERY_TREES:
            _, rows = self.run_recovery(image, out_name=image)
            for row in rows:
                self.assertEqual([e.message for e in validator.iter_errors(row)], [],
                                 f"{image}: {row['kind']} {row['source']['path']}")

    # Regression (found by these fixtures, fixed): report.json's line for a version counts the records folded into the
    # task's own file (records_folded_into_task_file). The .bak holds 1 record of the live file, the .new 3; the NTFS
    # api .bak 2.
    def test_recovery_bug_report_version_folds(self):
        want = {"recovery-ext4": {".ui_messages.json.bak_1777882326655_k7f2q9xw3m1.tmp": 1,
                                  ".ui_messages.json.new_1777882327557_0q8w7e6r5t2.tmp": 3},
                "recovery-ntfs": {".api_conversation_history.json.bak_1778494823254_9fj3w0x6tq2.tmp": 2}}
        got = {}
        for image, files in want.items():
            out, _ = self.run_recovery(image, out_name=image)
            report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
            lines = [f for p in report["partitions"] if p.get("kind") == "allocated" for f in p["scan"]["files_parsed"]]
            got[image] = {os.path.basename(f["path"]): f.get("records_folded_into_task_file") for f in lines
                          if os.path.basename(f["path"]) in files}
        self.assertEqual(got, want)

    # Regression (found by these fixtures, fixed): an allocated index temp file (._index.json.bak_….tmp left when its
    # unlink failed) is a temp_file row, never a "deleted file" one. Seen with --dir on the ext4 tree.
    def test_recovery_bug_allocated_index_temp_called_deleted(self):
        out, _ = self.run_tool("--dir", os.path.join(REPO, "fixtures", "trees", "recovery-linux"))
        wrong = [r["text"] for r in read_rows(out) if r["source"]["name_allocated"]
                 and (r["kind"] == "deleted_entry" or (r["text"] or "").startswith("deleted "))]
        self.assertEqual(wrong, [])


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "E2E")
