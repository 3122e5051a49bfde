#!/usr/bin/env python3
"""End-to-end tests of APFS containers, with the real roo-ingest binary.

fixtures/external/dfvfs-apfs.raw is a container that macOS wrote (fixtures/README.md "External images"): one volume,
apfs_test, holding no Roo file. The values expected are what libtsk's pstat prints for it. A run must open it, search
its volume, list both in report.json, and give no row, no parser error and no failure; --deep carves the container's
free blocks (pstat: "Capacity Available: 3702784 B"). A container whose volume superblock is overwritten is reported
as damaged, with libtsk's reason.

usage: apfs_e2e_test.py Apfs.test_NAME --binary PATH --repo PATH
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

    # Mutated copies of this container (and of the other APFS fixtures): tests/plugin/apfs_mutation_e2e_test.py.


SNAPSHOT = {"name": "com.apple.TimeMachine.2026-04-23-080000.local", "xid": 1, "created": "2026-04-23T08:00:00Z"}
SNAP_TASK = "019db70c-52f8-7a16-b3e9-5c07d41f8a2b"
SNAP_TASK_DIR = "Users/frank/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks/" \
    + SNAP_TASK


def report_files(report):
    return [f for p in report["partitions"] for f in (p.get("scan") or {}).get("files_parsed", [])]


def apfs_image(name):
    return os.path.join(REPO, "fixtures", "apfs", name)


def tsk(*args):
    return subprocess.run(list(args), capture_output=True, text=True, check=True).stdout


def pstat_volumes(img, sector):
    """(container UUID, [(volume UUID, superblock block, name)]) as libtsk's pstat prints them."""
    out = tsk("pstat", "-o", str(sector), img)
    container = re.search(r"^Container ([0-9a-f-]{36})", out, re.M).group(1)
    volumes = re.findall(r"Volume ([0-9a-f-]{36})\n.*?APSB Block Number: (\d+)\n.*?Name \(Role\): (.*?) \(", out, re.S)
    return container, [(u, int(b), n) for u, b, n in volumes]


def fls_inodes(img, sector, block):
    """path -> inode of every entry of one volume, as fls -P apfs -B lists it."""
    out = {}
    for line in tsk("fls", "-o", str(sector), "-P", "apfs", "-B", str(block), "-r", "-p", img).splitlines():
        kind_inode, path = line.split("\t", 1)
        out["/" + path] = int(kind_inode.split()[-1].rstrip(":"))
    return out


def rows_of_a_run(out, img):
    subprocess.run([BINARY, "--quiet", img, "-o", out], check=True)
    with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def comparable(r):
    """A row without what says where it was read (evidence, image, volume, the container's offset, and the row id
    they make)."""
    r = json.loads(json.dumps(r))
    for k in ("row_id", "evidence", "pool_volume", "image_paths", "partition_offset"):
        r.pop(k, None)
        r["source"].pop(k, None)
    return r


def check_snapshot_only_task(test, rows, report):
    """frank's Cursor task 019db70c, only in the snapshot of the Data volume's trees (fixtures/README.md "Snapshot"):
    a deleted task recovered from it, the six kinds its files give, its task row saying its directory is gone, every
    row naming the snapshot, its sources the snapshot's files (inodes 55 and 56) with the tree's bytes, and its two
    files listed read from the snapshot."""
    task = [r for r in rows if r["session_id"] == SNAP_TASK]
    test.assertEqual(sorted(r["kind"] for r in task),
                     sorted(["task", "permission_mode", "user_message", "api_request", "assistant_message",
                             "completion_prompt"]))
    head = next(r for r in task if r["kind"] == "task")
    test.assertEqual((head["text"], head["task_dir_present"], head["task_dir_deleted"]),
                     ("What does src/middleware/requestId.js do?", False, True))
    tree = os.path.join(REPO, "fixtures", "trees", "macos-apfs", "data", SNAP_TASK_DIR)
    for r in task:
        s = r["source"]
        test.assertEqual((s["recovery"], s["name_allocated"], s["snapshot"]), ("snapshot", False, SNAPSHOT))
        name = os.path.basename(s["path"])
        test.assertEqual(s["path"], "/" + SNAP_TASK_DIR + "/" + name)
        test.assertEqual(s["inode"], {"history_item.json": 55, "ui_messages.json": 56}[name])
        with open(os.path.join(tree, name), "rb") as f:
            test.assertEqual(s["sha256"], hashlib.sha256(f.read()).hexdigest())
    parsed = [f for f in report_files(report) if SNAP_TASK in f["path"]]
    test.assertEqual(sorted((os.path.basename(f["path"]), f.get("snapshot")) for f in parsed),
                     [("history_item.json", SNAPSHOT["name"]), ("ui_messages.json", SNAPSHOT["name"])])


class ApfsMac(unittest.TestCase):
    """The APFS fixtures apfs_put.py writes (fixtures/README.md "APFS fixtures"): a bare container holding the macos
    tree, and a GPT Mac disk (EFI system partition + a container with System, Data and Preboot volumes). The values
    expected come from libtsk's own tools run here (mmls, pstat, fls, istat, icat), from the trees, and from the
    hand-written macos rows."""

    GPT = "macos-apfs-gpt.E01"
    APFS_SECTOR = 8232  # mmls: p2 "Container", Apple APFS

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-apfs-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, img, name="out", *options):
        out = os.path.join(self.tmp, name)
        proc = subprocess.run([BINARY, "--quiet", *options, img, "-o", out], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            return out, rows, json.load(f)

    # The bare container gives the hand-written macos rows (the same tree as on FAT and HFS+), row for row. A row
    # timed by its file (time_source file.*) has the time the APFS image gives that file instead of the FAT one:
    # apfs_put.py writes every entry's creation time as 2024-04-01 (fixtures/README.md "APFS fixtures").
    def test_bare_container_rows_as_on_other_file_systems(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from rows_match import subset_diff
        _, rows, _ = self.run_tool(apfs_image("macos-apfs.E01"))
        with open(os.path.join(REPO, "fixtures", "expected", "macos.rows.jsonl"), encoding="utf-8") as f:
            wanted = [json.loads(line) for line in f if line.strip()]
        for w, r in zip(wanted, rows):
            if w.get("time_source", "").startswith("file."):
                self.assertEqual(r["time_source"], w["time_source"])
                field = w["time_source"][len("file."):]
                self.assertEqual(r["time_utc"][:19], r["source"][field][:19], r["source"]["path"])
                w.pop("time_utc", None)
        diffs = [f"row {i}: {d}" for i, (w, r) in enumerate(zip(wanted, rows)) for d in subset_diff(w, r)]
        self.assertEqual(diffs, [])
        self.assertEqual(len(rows), len(wanted))

    # report.json lists the container and each of its volumes as pstat does, each volume searched on its own; the
    # homes and the temp folders are on the Data volume, with no /System/Volumes/Data prefix.
    def test_mac_disk_lists_every_volume(self):
        img = apfs_image(self.GPT)
        self.assertIn("%010d" % self.APFS_SECTOR, tsk("mmls", img))  # the container partition's start
        container, volumes = pstat_volumes(img, self.APFS_SECTOR)
        self.assertEqual([b for _, b, _ in volumes], [1072, 1076, 1087])  # fixtures/README.md
        _, rows, report = self.run_tool(img)
        entries = [p for p in report["partitions"] if "apfs_volume" in p]
        self.assertEqual([(p["apfs_volume"]["uuid"], p["apfs_volume"]["block"], p["apfs_volume"]["name"])
                          for p in entries], volumes)
        self.assertEqual([p["apfs_volume"]["role"] for p in entries], ["system", "data", "preboot"])
        for p in entries:
            self.assertEqual(p["offset_bytes"], self.APFS_SECTOR * 512)
            self.assertEqual(p["apfs_container"]["uuid"], container)
            self.assertEqual(p["apfs_container"]["volumes"], 3)
            self.assertEqual((p["status"], p["fs_type"]), ("parsed", "apfs"))
            self.assertFalse(p["apfs_volume"]["encrypted"])
        data = entries[1]["scan"]
        self.assertTrue(any(r["path"].startswith("/Users/grace/") for r in data["roots_found"]), data["roots_found"])
        self.assertTrue(any(r["path"].startswith("/private/var/folders/") for r in data["roots_found"]))
        self.assertEqual(entries[0]["scan"]["roots_found"], [])
        self.assertEqual(entries[2]["scan"]["roots_found"], [])
        self.assertEqual({r["source"]["pool_volume"]["name"] for r in rows}, {"Macintosh HD - Data"})

    # The summary's fls line of each APFS volume names the pool type and the volume's block, and runs as printed.
    def test_summary_fls_lines_name_each_volume(self):
        img = apfs_image(self.GPT)
        out = os.path.join(self.tmp, "summary")
        proc = subprocess.run([BINARY, img, "-o", out], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        fls_lines = [l.strip() for l in proc.stdout.splitlines() if l.startswith("    fls ")]
        self.assertEqual(fls_lines, ["fls -o 40 -r -m /p4/ " + img,  # the EFI system partition (FAT)
                                     "fls -o 8232 -P apfs -B 1072 -r -m /p5v0/ " + img,
                                     "fls -o 8232 -P apfs -B 1076 -r -m /p5v1/ " + img,
                                     "fls -o 8232 -P apfs -B 1087 -r -m /p5v2/ " + img])
        data = subprocess.run(fls_lines[2].split(), capture_output=True, text=True, check=True).stdout
        self.assertIn("|/p5v1/Users/grace/", data)

    # A volume's local snapshots are listed in report.json as fsstat lists them (xid, creation time, name), each said
    # read, and none counted as skipped (fixtures/README.md "Snapshot": the Data volume has one, with file data).
    def test_snapshots_are_listed_and_read(self):
        img = apfs_image("macos-apfs-snap.E01")
        fsstat = tsk("fsstat", "-o", str(self.APFS_SECTOR), "-P", "apfs", "-B", "1076", img)
        listed = [(int(x), d + "T" + re.sub(r"\.0+$", "", t) + "Z", n) for x, d, t, n in
                  re.findall(r"^\[(\d+)\] (\S+) (\S+) \(UTC\) (\S+)", fsstat, re.M)]
        self.assertEqual(listed, [(1, "2026-04-23T08:00:00Z", SNAPSHOT["name"])])
        _, _, report = self.run_tool(img)
        entries = {p["apfs_volume"]["name"]: p for p in report["partitions"] if "apfs_volume" in p}
        data = entries["Macintosh HD - Data"]
        self.assertEqual([(s["xid"], s["created"], s["name"], s["dataless"], s["read"])
                          for s in data["apfs_volume"]["snapshots"]],
                         [listed[0] + (False, "yes: the files whose extents differ from the live volume's")])
        self.assertEqual([o for o in data["completeness"]["skipped"] if "snapshots" in o["what"]], [])
        self.assertEqual(entries["Macintosh HD"]["apfs_volume"]["snapshots"], [])

    # frank's Cursor task 019db70c is only in the snapshot (deleted after it: fixtures/README.md "Snapshot"). It comes
    # back as a deleted task recovered from the snapshot: its task row says its directory is gone, every row of it
    # names the snapshot, and its sources are the snapshot's files (fls -S 1: files 55 and 56) with the tree's bytes.
    def test_snapshot_only_task_is_a_recovered_deleted_task(self):
        img = apfs_image("macos-apfs-snap.E01")
        _, rows, report = self.run_tool(img)
        check_snapshot_only_task(self, rows, report)
        # The live volume has no such task: without -S, fls does not list it.
        self.assertNotIn(SNAP_TASK, tsk("fls", "-o", str(self.APFS_SECTOR), "-P", "apfs", "-B", "1076", "-r", "-p",
                                        img))
        # No row of the snapshot's copies is counted as a deleted name of the live volume.
        self.assertEqual(sum(r["deleted_names_seen"] for p in report["partitions"]
                             for r in (p.get("scan") or {}).get("roots_found", [])), 0)

    # frank's Code task 019dabc5: its api history is the same file in the snapshot (one extent, fixtures/README.md),
    # so it is not read again and gives no row of its own; each row of the live file names the snapshot's copy in
    # also_in, at its own record. Its ui_messages.json differs: the snapshot holds the save made while the last
    # request streamed (fixtures/trees/macos-apfs-snap-older/): records 0-8 the live file's, record 9 an
    # api_req_started with no tokens yet. Records 0-8 are folded into the live rows (also_in naming the snapshot's
    # copy and record); record 9 keeps its own row, marked snapshot. The live records 9-11 name no copy.
    def test_unchanged_and_changed_files_of_a_task(self):
        img = apfs_image("macos-apfs-snap.E01")
        _, rows, report = self.run_tool(img)
        task_dir = "/Users/frank/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/" \
                   "tasks/019dabc5-57a7-7e4b-9c1d-3f5a8b20e6d4"
        inodes = fls_inodes(img, self.APFS_SECTOR, 1076)
        api, ui = task_dir + "/api_conversation_history.json", task_dir + "/ui_messages.json"

        api_rows = [r for r in rows if r["source"]["path"] == api]
        self.assertTrue(api_rows)
        for r in api_rows:
            self.assertEqual(r["source"]["recovery"], "allocated")
            self.assertEqual(r["also_in"], [{"path": api, "inode": inodes[api], "recovery": "snapshot",
                                             "record_index": r["source"]["record_index"], "snapshot": SNAPSHOT}])
        api_lines = [f for f in report_files(report) if f["path"] == api]
        self.assertEqual([(f.get("snapshot"), f.get("same_extents_in_snapshots")) for f in api_lines],
                         [(None, [SNAPSHOT["name"]])])

        live_ui = [r for r in rows if r["source"]["path"] == ui and r["source"]["recovery"] == "allocated"]
        snap_ui = [r for r in rows if r["source"]["path"] == ui and r["source"]["recovery"] == "snapshot"]
        self.assertEqual([(r["kind"], r["source"]["record_index"], r["text"]) for r in snap_ui],
                         [("api_request", 9, '{"apiProtocol":"anthropic"}')])
        older = os.path.join(REPO, "fixtures", "trees", "macos-apfs-snap-older") + ui
        with open(older, "rb") as f:
            self.assertEqual(snap_ui[0]["source"]["sha256"], hashlib.sha256(f.read()).hexdigest())
        snap_inode = snap_ui[0]["source"]["inode"]
        self.assertEqual((snap_ui[0]["source"]["name_allocated"], snap_ui[0]["source"]["snapshot"]), (False, SNAPSHOT))
        self.assertNotIn("also_in", snap_ui[0])
        # In that copy the request never finished (docs/row-contract.md "Unfinished API requests"); the live file's
        # record 9 has its cost, so its row is not marked.
        self.assertIs(snap_ui[0].get("unfinished"), True)
        self.assertEqual([r.get("unfinished") for r in live_ui if r["kind"] == "api_request"], [None] * 3)
        for r in live_ui:
            i = r["source"]["record_index"]
            if i is not None and i <= 8:
                self.assertEqual(r["also_in"], [{"path": ui, "inode": snap_inode, "recovery": "snapshot",
                                                 "record_index": i, "snapshot": SNAPSHOT}], (r["kind"], i))
            else:
                self.assertNotIn("also_in", r, (r["kind"], i))
        self.assertEqual(sorted({r["source"]["record_index"] for r in live_ui if "also_in" in r}),
                         [1, 3, 4, 6])  # the ui records 0-8 that give rows of their own (others fold into the api's)
        ui_lines = sorted(((f.get("snapshot"), f["records"], f.get("records_folded_into_task_file"))
                           for f in report_files(report) if f["path"] == ui), key=str)
        self.assertEqual(ui_lines, sorted([(None, 12, None), (SNAPSHOT["name"], 10, 9)], key=str))
        # Every row id stays unique, the snapshot copy's among them.
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))

    # Every derived format carries the volume (docs/output-formats.md): roo.sqlite's partitions (one row per volume)
    # and sources, rows.csv's source_pool_volume, l2t.csv's extra, timeline.jsonl's source_pool_volume.
    def test_every_format_names_the_volume(self):
        import csv
        import sqlite3
        img = apfs_image(self.GPT)
        _, volumes = pstat_volumes(img, self.APFS_SECTOR)
        uuid, block, name = volumes[1]
        out, rows, _ = self.run_tool(img)
        con = sqlite3.connect(os.path.join(out, "roo.sqlite"))
        self.assertEqual(con.execute("SELECT apfs_volume_uuid, apfs_volume_block, apfs_volume_name FROM partitions "
                                     "WHERE apfs_volume_uuid IS NOT NULL ORDER BY rowid").fetchall(),
                         [tuple(v) for v in volumes])
        self.assertEqual(con.execute("SELECT DISTINCT pool_volume_uuid, pool_volume_name, pool_volume_role, "
                                     "pool_volume_block FROM sources").fetchall(), [(uuid, name, "data", block)])
        with open(os.path.join(out, "rows.csv"), newline="", encoding="utf-8") as f:
            table = list(csv.DictReader(f))
        self.assertEqual(len(table), len(rows))
        self.assertEqual({json.dumps(json.loads(r["source_pool_volume"]), sort_keys=True) for r in table},
                         {json.dumps({"uuid": uuid, "name": name, "role": "data", "block": block}, sort_keys=True)})
        with open(os.path.join(out, "l2t.csv"), newline="", encoding="utf-8") as f:
            l2t = list(csv.DictReader(f))
        self.assertTrue(l2t)
        self.assertTrue(all("source_pool_volume_uuid: " + uuid in r["extra"] for r in l2t))
        with open(os.path.join(out, "timeline.jsonl"), encoding="utf-8") as f:
            events = [json.loads(line) for line in f]
        self.assertTrue(events)
        self.assertTrue(all(json.loads(e["source_pool_volume"])["uuid"] == uuid for e in events))

    # Provenance of every row: the container's offset, the Data volume as pstat names it, the inode fls gives the
    # path on that volume, the times istat gives (nanoseconds, crtime too), and the sha256 of what icat reads, which
    # is the tree's file. The body file names the volume.
    def test_provenance_on_the_data_volume(self):
        img = apfs_image(self.GPT)
        _, volumes = pstat_volumes(img, self.APFS_SECTOR)
        uuid, block, name = volumes[1]
        inodes = fls_inodes(img, self.APFS_SECTOR, block)
        out, rows, _ = self.run_tool(img)
        digests = 0
        for r in rows:
            s = r["source"]
            self.assertEqual((s["fs_type"], s["partition_offset"]), ("apfs", self.APFS_SECTOR * 512))
            self.assertEqual(s["pool_volume"], {"uuid": uuid, "name": name, "role": "data", "block": block})
            self.assertEqual(s["inode"], inodes[s["path"]], s["path"])
            if s["sha256"] is None:
                continue
            data = subprocess.run(["icat", "-o", str(self.APFS_SECTOR), "-P", "apfs", "-B", str(block), img,
                                   str(s["inode"])], capture_output=True, check=True).stdout
            self.assertEqual(s["sha256"], hashlib.sha256(data).hexdigest(), s["path"])
            with open(os.path.join(REPO, "fixtures", "trees", "macos-apfs", "data") + s["path"], "rb") as f:
                self.assertEqual(data, f.read(), s["path"])
            digests += 1
        self.assertGreaterEqual(digests, 30)
        # The times of one file as istat prints them, to the nanosecond.
        row = next(r for r in rows if r["source"]["path"].endswith("/ui_messages.json"))
        s = row["source"]
        istat = tsk("istat", "-o", str(self.APFS_SECTOR), "-P", "apfs", "-B", str(block), img, str(s["inode"]))

        def istat_time(label):  # "2024-04-25 10:00:00.123456700 (UTC)", as the rows write it (no ".000000000")
            t = re.search(label + r":\s+(\S+) (\S+) \(UTC\)", istat)
            return t.group(1) + "T" + re.sub(r"\.0+$", "", t.group(2)) + "Z"
        self.assertEqual(s["mtime"], istat_time("Content Modified"))
        self.assertEqual(s["crtime"], istat_time("Created"))
        self.assertEqual(s["atime"], istat_time("Accessed"))
        self.assertEqual(s["mtime"], "2024-04-25T10:00:00.123456700Z")  # fixtures/README.md: the default mtime
        # Two volumes of one container share its offset: the volume is in the row id, and the body line names it.
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))
        with open(os.path.join(out, "roo.body"), encoding="utf-8") as f:
            body = f.read().splitlines()
        self.assertTrue(body)
        self.assertTrue(all(", APFS volume " + name + ")|" in line for line in body), body[0])

    # --deep: the deleted task whose files lie in blocks the space manager counts free (fixtures/README.md "Freed
    # blocks": 1072-1074 of the bare container, which pstat lists unallocated) comes back as carved $Unallocated
    # rows naming no volume (the free blocks are the container's), each at the image offset where its record's bytes
    # are, in the block they lie in.
    def test_deep_carves_a_deleted_task_from_free_blocks(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from carve_e2e_test import records
        img = apfs_image("macos-apfs.E01")
        self.assertIn("0x00000430-0x00000fff", tsk("pstat", img))
        raw = subprocess.run(["img_cat", img], capture_output=True, check=True).stdout
        task = "019dc4e1-a7c0-7b52-8e3d-6f1a2c9b0d47"
        spans = {}
        for name, blk in (("api_conversation_history.json", 1072), ("history_item.json", 1073),
                          ("ui_messages.json", 1074)):
            with open(os.path.join(REPO, "fixtures", "trees", "macos-hfs-deleted", task, name), "rb") as f:
                data = f.read()
            self.assertEqual(raw.find(data), blk * 4096, name)
            for start, end in records(data):
                spans[blk * 4096 + start] = (end - start, blk)
        _, rows, report = self.run_tool(img, "deep", "--deep")
        carved = [r for r in rows if r["source"]["recovery"] == "carved"]
        # one offset twice: the HistoryItem gives a task row and a permission_mode row
        self.assertEqual(sorted(r["source"]["byte_offset"] for r in carved), sorted(list(spans) + [4395008]))
        for r in carved:
            s = r["source"]
            self.assertEqual((s["path"], s["fs_type"], s["partition_offset"]), ("$Unallocated", "apfs", 0))
            self.assertNotIn("pool_volume", s)
            length, blk = spans[s["byte_offset"]]
            self.assertEqual((s["byte_length"], s["blocks"]), (length, [[blk, blk]]), r["kind"])
        self.assertEqual({r["session_id"] for r in carved if r["attribution"] == "task_id"}, {task})
        carving = report["partitions"][0]["scan"]["carving"]
        self.assertEqual(carving["records"]["history_item"], {"found": 1, "folded": 0, "kept": 1})
        self.assertEqual(carving["errors"], [])


class ApfsFileVault(unittest.TestCase):
    """fixtures/apfs/macos-apfs-filevault.E01 (fixtures/README.md "FileVault"): a bare container with "Macintosh HD"
    encrypted (the macos tree; password and hint as fixtures/build-apfs.sh gives them to apfs_put.py) and "Spare" not
    encrypted (the macos-apfs Data tree). Read with the password, the encrypted volume must give the rows the same
    tree gives on the unencrypted container of macos-apfs.E01; the password must be written nowhere."""

    IMAGE = "macos-apfs-filevault.E01"
    PASSWORD = "tr0ub4dor&3 roo fixture"
    WRONG = "Tr0ub4dor&3 roo fixture"   # one letter off
    HINT = "the usual one with the ampersand"
    ENCRYPTED = {"index": 0, "name": "Macintosh HD", "role": "none", "uuid": "a9f5c0de-0000-4a00-8000-00000000c011",
                 "encrypted": True, "password_hint": HINT}

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-filevault-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, name, *options, stdin=None, quiet=True):
        out = os.path.join(self.tmp, name)
        proc = subprocess.run([BINARY, *(["--quiet"] if quiet else []), *options, apfs_image(self.IMAGE), "-o", out],
                              capture_output=True, input=stdin)
        report, rows = None, []
        if os.path.exists(os.path.join(out, "report.json")):
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
            with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
                rows = [json.loads(line) for line in f]
        return proc, out, report, rows

    def password_file(self, *lines):
        path = os.path.join(self.tmp, "passwords.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        return path

    def volumes(self, report):
        return {p["apfs_volume"]["name"]: p for p in report["partitions"] if "apfs_volume" in p}

    def spare_is_searched(self, report, rows):
        spare = self.volumes(report)["Spare"]
        self.assertEqual((spare["status"], spare["apfs_volume"]["encrypted"]), ("parsed", False))
        self.assertTrue(any(r["source"]["pool_volume"]["name"] == "Spare" for r in rows))

    # Without a password the encrypted volume is skipped, said encrypted, with its password hint (read from its
    # keybag: libtsk 4.11.1 reads none); the other volume is searched, and the run is not partial.
    def test_without_a_password_it_is_skipped_with_its_hint(self):
        proc, _, report, rows = self.run_tool("none")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        enc = self.volumes(report)["Macintosh HD"]
        self.assertEqual({k: enc["apfs_volume"].get(k) for k in self.ENCRYPTED}, self.ENCRYPTED)
        self.assertEqual(enc["status"], "no_file_system")
        self.assertEqual(enc["reason"], "encrypted APFS volume (FileVault): not read without its password; "
                                        "password hint: " + self.HINT)
        self.assertFalse(enc["completeness"]["searched"])
        self.spare_is_searched(report, rows)
        self.assertFalse(any(r["source"]["pool_volume"]["name"] == "Macintosh HD" for r in rows))

    # With the password (second in the file, after a wrong one) the volume is read: its rows are the rows of the
    # same tree on the unencrypted container of macos-apfs.E01 (same paths, inodes, bytes, times), but for where
    # they come from.
    def test_the_right_password_reads_its_rows(self):
        proc, _, report, rows = self.run_tool("right", "--password-file", self.password_file(self.WRONG, self.PASSWORD))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        enc = self.volumes(report)["Macintosh HD"]
        self.assertEqual((enc["status"], enc["fs_type"]), ("parsed", "apfs"))
        self.spare_is_searched(report, rows)
        plain = rows_of_a_run(os.path.join(self.tmp, "plain"), apfs_image("macos-apfs.E01"))
        mine = [comparable(r) for r in rows if r["source"]["pool_volume"]["name"] == "Macintosh HD"]
        self.assertGreater(len(plain), 20)
        self.assertEqual(mine, [comparable(r) for r in plain])
        self.assertEqual({r["source"]["pool_volume"]["uuid"] for r in rows
                          if r["source"]["pool_volume"]["name"] == "Macintosh HD"}, {self.ENCRYPTED["uuid"]})

    # --password-stdin reads the same lines from standard input.
    def test_password_on_standard_input(self):
        proc, _, report, rows = self.run_tool("stdin", "--password-stdin", stdin=(self.PASSWORD + "\r\n").encode())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.volumes(report)["Macintosh HD"]["status"], "parsed")

    # A wrong password: the volume fails with a reason that says so (and its hint), the other volume is searched,
    # and the exit code is 5, as for any file system that could not be processed.
    def test_a_wrong_password_fails_that_volume_only(self):
        proc, _, report, rows = self.run_tool("wrong", "--password-file", self.password_file(self.WRONG))
        self.assertEqual(proc.returncode, 5, proc.stderr)
        enc = self.volumes(report)["Macintosh HD"]
        self.assertEqual(enc["status"], "failed")
        self.assertEqual(enc["reason"], "encrypted APFS volume (FileVault): the password given does not unlock it; "
                                        "password hint: " + self.HINT)
        self.assertEqual(enc["completeness"]["failed"][0]["why"], enc["reason"])
        self.spare_is_searched(report, rows)
        proc, _, report, _ = self.run_tool("wrongs", "--password-file", self.password_file(self.WRONG, "x", "y"))
        self.assertEqual(proc.returncode, 5)
        self.assertEqual(self.volumes(report)["Macintosh HD"]["reason"],
                         "encrypted APFS volume (FileVault): none of the 3 passwords given unlocks it; "
                         "password hint: " + self.HINT)

    # No output, file name, progress line or summary holds a password, right or wrong; report.json's command line
    # names the option and the file, not what is in it.
    def test_no_password_is_written_anywhere(self):
        secrets = [self.PASSWORD.encode(), self.WRONG.encode()]
        runs = [self.run_tool("file", "--password-file", self.password_file(self.WRONG, self.PASSWORD), "--deep"),
                self.run_tool("stdin2", "--password-stdin", stdin=(self.WRONG + "\n").encode()),
                self.run_tool("verbose", "--progress=json", "--password-stdin", stdin=(self.PASSWORD + "\n").encode())]
        looked = 0
        for proc, out, report, _ in runs:
            self.assertIsNotNone(report)
            for stream in (proc.stdout, proc.stderr):
                for secret in secrets:
                    self.assertNotIn(secret, stream)
            for top, dirs, files in os.walk(out):
                for name in dirs + files:
                    for secret in secrets:
                        self.assertNotIn(secret.decode(), name)
                for name in files:
                    with open(os.path.join(top, name), "rb") as f:
                        data = f.read()
                    looked += 1
                    for secret in secrets:
                        self.assertNotIn(secret, data, os.path.join(top, name))
                        self.assertNotIn(secret.decode().encode("utf-16-le"), data, os.path.join(top, name))
        self.assertGreater(looked, 10)
        self.assertIn("--password-file", runs[0][2]["command_line"])

    # With --deep and the password, the unlocked volume is carved decrypted with its key (docs/row-contract.md
    # "Carved records"): the container's free blocks, all of them again (pstat: "Capacity Available: 553041920 B"),
    # and its Roo files' slack; nothing is said skipped for it. Spare's job still carves the free blocks as stored.
    def test_deep_carves_the_unlocked_volume_decrypted(self):
        proc, _, report, _ = self.run_tool("deep", "--deep", "--password-file", self.password_file(self.PASSWORD),
                                           quiet=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        vols = self.volumes(report)
        enc, spare = vols["Macintosh HD"], vols["Spare"]
        self.assertEqual(enc["status"], "parsed")
        self.assertEqual([s["what"] for s in enc["completeness"]["skipped"]], ["directories outside the catalog"])
        self.assertEqual(enc["scan"]["errors"], [])
        carving = enc["scan"]["carving"]
        self.assertEqual((carving["unallocated_of"], carving["unallocated_bytes"], carving["errors"]),
                         ("apfs container, decrypted", 553041920, []))
        self.assertGreater(carving["slack_bytes"], 0)
        self.assertEqual((spare["scan"]["carving"]["unallocated_of"], spare["scan"]["carving"]["unallocated_bytes"]),
                         ("apfs container", 553041920))
        summary = proc.stdout.decode()
        self.assertIn("the APFS container's free blocks, decrypted with the volume's key, 553041920 bytes", summary)
        self.assertNotIn("(not carved)", summary)

    # With --deep and a wrong password the volume is not read, and its statement says its freed blocks and slack are
    # not carved, as ciphertext no password given unlocks; with none, the whole volume is said skipped (encrypted).
    # Neither run gives a row of it.
    def test_deep_without_its_password_says_not_carved(self):
        proc, _, report, rows = self.run_tool("wrong", "--deep", "--password-file", self.password_file(self.WRONG),
                                              quiet=False)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        enc = self.volumes(report)["Macintosh HD"]
        skipped = {s["what"]: s["why"] for s in enc["completeness"]["skipped"]}
        self.assertTrue(skipped["the encrypted volume's freed blocks and its Roo files' slack"].startswith(
            "not carved: they are stored as AES-XTS ciphertext"))
        self.assertIn("1 encrypted volume(s)' freed blocks and file slack (not carved)", proc.stdout.decode())
        self.assertFalse(any(r["source"].get("pool_volume", {}).get("name") == "Macintosh HD" for r in rows))
        proc, _, report, rows = self.run_tool("none", "--deep")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        enc = self.volumes(report)["Macintosh HD"]
        self.assertEqual([s["why"] for s in enc["completeness"]["skipped"]],
                         ["no file system libtsk can open: encrypted APFS volume (FileVault): not read without its "
                          "password; password hint: " + self.HINT])
        self.assertFalse(any(r["source"].get("pool_volume", {}).get("name") == "Macintosh HD" for r in rows))

    # A volume without snapshots lists none, and nothing is said skipped about snapshots.
    def test_an_encrypted_volume_without_snapshots_lists_none(self):
        proc, _, report, _ = self.run_tool("live", "--password-file", self.password_file(self.PASSWORD))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        enc = self.volumes(report)["Macintosh HD"]
        self.assertEqual(enc["apfs_volume"]["snapshots"], [])
        self.assertEqual([s["what"] for s in enc["completeness"]["skipped"] if "snapshot" in s["what"]], [])

    # Option errors: a password file that cannot be read or holds none, an empty standard input: exit code 2,
    # before any work.
    def test_password_options_that_give_no_password_are_usage_errors(self):
        for options, stdin, says in (
                (["--password-file", os.path.join(self.tmp, "missing.txt")], None, "cannot read it"),
                (["--password-file", self.password_file("", "")], None, "holds no password"),
                (["--password-stdin"], b"\n\n", "standard input holds no password")):
            proc, out, report, _ = self.run_tool("bad", *options, stdin=stdin)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn(says, proc.stderr.decode())
            self.assertIsNone(report)


class ApfsFileVaultSnap(unittest.TestCase):
    """fixtures/apfs/macos-apfs-filevault-snap.E01 (fixtures/README.md "FileVault with a snapshot"): a bare container,
    one volume "Macintosh HD - Data" encrypted (password and hint as fixtures/build-apfs.sh gives them), holding the
    live tree and the snapshot of macos-apfs-snap.E01's Data volume (frank's Cursor task 019db70c only in the
    snapshot; frank's Code task's ui_messages.json older there), and in free blocks 1123-1125, encrypted with the
    volume's key, the three files of the deleted task 019dc4e1 (fixtures/trees/macos-hfs-deleted/). What is expected
    is written from those trees; libtsk reads nothing of the encrypted volume, so no fls here."""

    IMAGE = "macos-apfs-filevault-snap.E01"
    PASSWORD = "c0rrect h0rse; roo snapshot"
    WRONG = "c0rrect h0rse; roo snapshot!"
    VOLUME = {"uuid": "a9f5c0de-0000-4a00-8000-00000000d011", "name": "Macintosh HD - Data", "role": "data",
              "block": 1050}
    FREED = (("api_conversation_history.json", 1123), ("history_item.json", 1124), ("ui_messages.json", 1125))
    DELETED_TASK = "019dc4e1-a7c0-7b52-8e3d-6f1a2c9b0d47"
    CODE_TASK_DIR = "/Users/frank/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/" \
                    "tasks/019dabc5-57a7-7e4b-9c1d-3f5a8b20e6d4"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-filevault-snap-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, name, *options, password=None, quiet=True):
        if password is not None:
            path = os.path.join(self.tmp, name + ".passwords")
            with open(path, "w", encoding="utf-8") as f:
                f.write(password + "\n")
            options = ("--password-file", path) + options
        out = os.path.join(self.tmp, name)
        proc = subprocess.run([BINARY, *(["--quiet"] if quiet else []), *options, apfs_image(self.IMAGE), "-o", out],
                              capture_output=True)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        return proc, out, report, rows

    # With the password, the encrypted volume's snapshot is listed as apfs_put.py wrote it (xid 1, its time and
    # name) and said read; nothing about snapshots is said skipped. Without it, the volume is not read and its
    # snapshots cannot be listed (listing them needs the volume opened, so decrypted).
    def test_its_snapshot_is_listed_with_the_password(self):
        proc, _, report, _ = self.run_tool("right", password=self.PASSWORD)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        (p,) = report["partitions"]
        self.assertEqual((p["status"], p["apfs_volume"]["encrypted"], p["apfs_volume"]["uuid"]),
                         ("parsed", True, self.VOLUME["uuid"]))
        self.assertEqual(p["apfs_volume"]["snapshots"],
                         [dict(SNAPSHOT, dataless=False, read="yes: the files whose extents differ from the live "
                                                                "volume's")])
        self.assertEqual([o for o in p["completeness"]["skipped"] if "snapshot" in o["what"]], [])
        self.assertEqual(p["scan"]["errors"], [])
        proc, _, report, rows = self.run_tool("none")
        self.assertEqual(proc.returncode, 6, proc.stderr)  # no file system could be opened: its one volume is locked
        (p,) = report["partitions"]
        self.assertEqual((p["status"], p["apfs_volume"]["snapshots"], rows), ("no_file_system", [], []))
        self.assertEqual(p["reason"], "encrypted APFS volume (FileVault): not read without its password; "
                                      "password hint: the horse one")

    # frank's Cursor task 019db70c, only in the snapshot, comes back as a deleted task recovered from it, as on the
    # unencrypted macos-apfs-snap.E01: the same six kinds, its task row says its directory is gone, every row names
    # the snapshot, and its sources are the snapshot's files (inodes 55 and 56: apfs_put.py numbers the union of the
    # two states' paths in byte order, as there) with the tree's bytes.
    def test_snapshot_only_task_is_a_recovered_deleted_task(self):
        _, _, report, rows = self.run_tool("right", password=self.PASSWORD)
        check_snapshot_only_task(self, rows, report)
        self.assertEqual({r["source"]["pool_volume"]["uuid"] for r in rows if r["session_id"] == SNAP_TASK},
                         {self.VOLUME["uuid"]})

    # frank's Code task: its api history has the same extent in the snapshot, so it is folded (also_in names the
    # snapshot's copy, its report line same_extents_in_snapshots); its ui_messages.json differs (the older save of
    # fixtures/trees/macos-apfs-snap-older/): record 9 keeps a row of its own marked snapshot (an api_req_started
    # with no cost yet: unfinished), records 0-8 fold into the live rows.
    def test_unchanged_and_changed_files_of_a_task(self):
        _, _, report, rows = self.run_tool("right", password=self.PASSWORD)
        api, ui = self.CODE_TASK_DIR + "/api_conversation_history.json", self.CODE_TASK_DIR + "/ui_messages.json"
        api_rows = [r for r in rows if r["source"]["path"] == api]
        self.assertTrue(api_rows)
        for r in api_rows:
            self.assertEqual(r["source"]["recovery"], "allocated")
            self.assertEqual([(a["path"], a["recovery"], a["record_index"], a["snapshot"]) for a in r["also_in"]],
                             [(api, "snapshot", r["source"]["record_index"], SNAPSHOT)])
        self.assertEqual([(f.get("snapshot"), f.get("same_extents_in_snapshots")) for f in report_files(report)
                          if f["path"] == api], [(None, [SNAPSHOT["name"]])])
        snap_ui = [r for r in rows if r["source"]["path"] == ui and r["source"]["recovery"] == "snapshot"]
        self.assertEqual([(r["kind"], r["source"]["record_index"], r["text"], r.get("unfinished")) for r in snap_ui],
                         [("api_request", 9, '{"apiProtocol":"anthropic"}', True)])
        with open(os.path.join(REPO, "fixtures", "trees", "macos-apfs-snap-older") + ui, "rb") as f:
            self.assertEqual(snap_ui[0]["source"]["sha256"], hashlib.sha256(f.read()).hexdigest())
        live_ui = [r for r in rows if r["source"]["path"] == ui and r["source"]["recovery"] == "allocated"]
        self.assertEqual(sorted({r["source"]["record_index"] for r in live_ui if "also_in" in r}), [1, 3, 4, 6])
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))

    # The same trees unencrypted (macos-apfs-snap.E01's Data volume) give the same rows, but for where they are.
    def test_rows_are_those_of_the_unencrypted_snapshot_fixture(self):
        _, _, _, rows = self.run_tool("right", password=self.PASSWORD)
        plain = rows_of_a_run(os.path.join(self.tmp, "plain"), apfs_image("macos-apfs-snap.E01"))
        self.assertGreater(len(rows), 100)
        self.assertEqual([comparable(r) for r in rows], [comparable(r) for r in plain])

    # --deep: the deleted task's files, stored encrypted in free blocks 1123-1125 (their plain bytes are nowhere in
    # the image), come back carved from the bytes decrypted with the volume's key: $Unallocated rows naming the
    # volume, each at the image offset of its record in the plain file, in that block. The blocks decrypt to the
    # tree's files with the key apfs_put.py derives (fixtures/tools/apfs_filevault.py) and the fixtures' own
    # pure-Python XTS, not roo-ingest's.
    def test_deep_carves_the_freed_encrypted_task(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        sys.path.insert(0, os.path.join(REPO, "fixtures", "tools"))
        from carve_e2e_test import records
        import apfs_crypto
        raw = subprocess.run(["img_cat", apfs_image(self.IMAGE)], capture_output=True, check=True).stdout
        vek = hashlib.sha256(b"apfs_put VEK" + bytes.fromhex(self.VOLUME["uuid"].replace("-", ""))).digest()
        spans = {}
        for name, blk in self.FREED:
            with open(os.path.join(REPO, "fixtures", "trees", "macos-hfs-deleted", self.DELETED_TASK, name), "rb") as f:
                data = f.read()
            self.assertEqual(raw.find(data), -1, name)
            stored = raw[blk * 4096:(blk + 1) * 4096]
            plain = b"".join(apfs_crypto.xts_decrypt(vek[:16], vek[16:], blk * 8 + i, stored[i * 512:(i + 1) * 512])
                             for i in range(8))
            self.assertEqual(plain[:len(data)], data, name)
            for start, end in records(data):
                spans[blk * 4096 + start] = (end - start, blk)
        proc, _, report, rows = self.run_tool("deep", "--deep", password=self.PASSWORD, quiet=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        carved = [r for r in rows if r["source"]["recovery"] == "carved"]
        # the HistoryItem's offset twice: it gives a task row and a permission_mode row
        self.assertEqual(sorted(r["source"]["byte_offset"] for r in carved), sorted(list(spans) + [1124 * 4096]))
        for r in carved:
            s = r["source"]
            self.assertEqual((s["path"], s["fs_type"], s["partition_offset"], s["pool_volume"]),
                             ("$Unallocated", "apfs", 0, self.VOLUME))
            length, blk = spans[s["byte_offset"]]
            self.assertEqual((s["byte_length"], s["blocks"]), (length, [[blk, blk]]), r["kind"])
        self.assertEqual({r["session_id"] for r in carved if r["attribution"] == "task_id"}, {self.DELETED_TASK})
        (p,) = report["partitions"]
        carving = p["scan"]["carving"]
        self.assertEqual((carving["unallocated_of"], carving["errors"]), ("apfs container, decrypted", []))
        self.assertEqual(carving["records"]["history_item"], {"found": 1, "folded": 0, "kept": 1})
        self.assertNotIn("the encrypted volume's freed blocks and its Roo files' slack",
                         [s["what"] for s in p["completeness"]["skipped"]])
        # Without the right password nothing is carved from them, and the statement says why.
        proc, _, report, rows = self.run_tool("deep-wrong", "--deep", password=self.WRONG)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertEqual([r for r in rows if r["source"]["recovery"] == "carved"], [])
        skipped = {s["what"]: s["why"] for s in report["partitions"][0]["completeness"]["skipped"]}
        self.assertTrue(skipped["the encrypted volume's freed blocks and its Roo files' slack"].startswith(
            "not carved: they are stored as AES-XTS ciphertext"))

    # No output of a run that reads the snapshot and carves decrypted, right password or wrong, holds either.
    def test_no_password_is_written_anywhere(self):
        secrets = [self.PASSWORD.encode(), self.WRONG.encode()]
        looked = 0
        for name, password in (("deep", self.PASSWORD), ("wrong", self.WRONG)):
            proc, out, _, _ = self.run_tool(name, "--deep", "--progress=json", password=password, quiet=False)
            for secret in secrets:
                self.assertNotIn(secret, proc.stdout)
                self.assertNotIn(secret, proc.stderr)
            for top, _, files in os.walk(out):
                for f in files:
                    with open(os.path.join(top, f), "rb") as fh:
                        data = fh.read()
                    looked += 1
                    for secret in secrets:
                        self.assertNotIn(secret, data, f)
                        self.assertNotIn(secret.decode().encode("utf-16-le"), data, f)
        self.assertGreater(looked, 10)


if __name__ == "__main__":
    e2e_main.run(sys.modules[__name__], "Apfs")
