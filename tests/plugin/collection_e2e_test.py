#!/usr/bin/env python3
"""--dir on triage collections as KAPE and Velociraptor lay them out (docs/collectors.md "Reading a collection").

Each test builds a collection from a committed fixture tree the way the collector stores what it copied: KAPE keeps
each drive in a folder named by its letter (<tdest>/C/Users/...) and writes <timestamp>_CopyLog.csv beside them (UTF-8
with a byte order mark, CRLF, the header CopiedTimestamp,SourceFile,DestinationFile,FileSize,SourceFileSha1,
DeferredCopy,CreatedOnUtc,ModifiedOnUtc,LastAccessedOnUtc,CopyDuration, times in UTC with seven fractional digits);
Velociraptor keeps them under uploads/auto/ with the drive's colon %-encoded (uploads/auto/C%3A/...), a macOS or
Linux root's paths directly below uploads/auto/, and the Generic.Forensic.RooCode artifact of packaging/collectors
writes one JSON row per file to results/Generic.Forensic.RooCode.json with OSPath and the Mtime, Atime, Ctime and Btime
it uploaded the file with. The times written into those records here are chosen by hand; the rows must carry them,
not the copies' own times, and say where they came from.

usage: collection_e2e_test.py Collection.test_NAME --binary PATH --repo PATH
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import e2e_main

BINARY = None
REPO = None

MCP = "Users/dana/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"
UI = ("Users/bob/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
      "019d0063-84cf-70f4-9d1e-2c3b4a5f6071/ui_messages.json")


def rows_of(out):
    with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def report_of(out):
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        return json.load(f)


def without_provenance(row):
    """A row without what must differ between the tree and its collection: ids, evidence, times of files."""
    r = dict(row)
    r.pop("row_id")
    src = dict(r.pop("source"))
    for key in ("evidence", "collection", "times_from", "mtime", "atime", "ctime", "crtime", "inode", "sha256"):
        src.pop(key, None)
    r["source"] = src
    if r.get("time_source", "").startswith("file."):
        r.pop("time_utc")
    return json.dumps(r, sort_keys=True)


class Collection(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_dir(self, folder, name):
        out = os.path.join(self.tmp, name)
        run = subprocess.run([BINARY, "--dir", folder, "-o", out], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        return out, run

    def tree(self, name):
        return os.path.join(REPO, "fixtures", "trees", name)

    def test_kape_drive_folders_and_copy_log_times(self):
        kape = os.path.join(self.tmp, "kape-out")
        shutil.copytree(self.tree("windows-ntfs"), os.path.join(kape, "C"))
        log = ["CopiedTimestamp,SourceFile,DestinationFile,FileSize,SourceFileSha1,DeferredCopy,CreatedOnUtc,"
               "ModifiedOnUtc,LastAccessedOnUtc,CopyDuration"]
        for rel, created, modified, accessed in [
                (MCP, "2026-03-01 08:00:00.0000000", "2026-03-19 09:30:15.1234567", "2026-03-20 07:00:00.5000000"),
                (UI, "2026-03-18 10:00:15.0000000", "2026-03-18 10:09:59.9999999", "2026-03-18 10:10:00.0000000")]:
            src = "C:\\" + rel.replace("/", "\\")
            log.append(f"2026-04-01 10:00:01.0000000,{src},E:\\kape-out\\C\\{rel.replace('/', chr(92))},1,"
                       f"ABCDEF,False,{created},{modified},{accessed},00:00:00.0010000")
        # a source path with a comma is quoted, as any CSV writer does; a line that is no record is skipped
        log.append('2026-04-01 10:00:02.0000000,"C:\\Users\\bob\\a,b.txt",E:\\x,1,AB,False,'
                   '2026-01-01 00:00:00.0000000,2026-01-01 00:00:00.0000000,2026-01-01 00:00:00.0000000,00:00:00')
        log.append("not,a,record")
        with open(os.path.join(kape, "2026-04-01T10_00_00_1234567_CopyLog.csv"), "wb") as f:
            f.write(("\ufeff" + "\r\n".join(log) + "\r\n").encode("utf-8"))

        out, run = self.run_dir(kape, "out")
        direct, _ = self.run_dir(self.tree("windows-ntfs"), "direct")
        report = report_of(out)
        coll = report["evidence"]["collection"]
        self.assertEqual(coll["collector"], "kape")
        self.assertEqual([(d["drive"], d["files_with_recorded_times"]) for d in coll["drives"]], [("C:", 3)])
        self.assertEqual(coll["time_records"], ["2026-04-01T10_00_00_1234567_CopyLog.csv"])
        self.assertEqual(report["partitions"][0]["drive"], "C:")
        self.assertIn("drive C: (kape", run.stdout)
        # the customStoragePath C:\RooTasks is on the drive of the settings file
        self.assertEqual(report["custom_storage_path_resolution"][0]["found_at"], "/RooTasks")

        rows, direct_rows = rows_of(out), rows_of(direct)
        self.assertEqual(sorted(map(without_provenance, rows)), sorted(map(without_provenance, direct_rows)))
        for r in rows:
            self.assertEqual(r["source"]["evidence"], "kape-out")
            self.assertEqual(r["source"]["collection"], {"collector": "kape", "drive": "C:"})
        self.assertEqual(len({r["row_id"] for r in rows}), len(rows))
        mcp = [r for r in rows if r["source"]["path"] == "/" + MCP]
        self.assertTrue(mcp)
        for r in mcp:
            s = r["source"]
            self.assertEqual((s["mtime"], s["atime"], s["ctime"], s["crtime"], s["times_from"]),
                             ("2026-03-19T09:30:15.123456700Z", "2026-03-20T07:00:00.500000000Z", None,
                              "2026-03-01T08:00:00Z", "kape_copy_log"))
        # a row timed by its file's modification time has the time the file had on the drive
        timed = [r for r in mcp if r["time_source"] == "file.mtime"]
        self.assertTrue(timed)
        self.assertEqual({r["time_utc"] for r in timed}, {"2026-03-19T09:30:15.123Z"})
        ui = [r for r in rows if r["source"]["path"] == "/" + UI]
        self.assertTrue(ui and all(r["source"]["mtime"] == "2026-03-18T10:09:59.999999900Z" for r in ui))
        other = [r for r in rows if r["source"]["path"] not in ("/" + MCP, "/" + UI)]
        self.assertTrue(other and all(r["source"]["times_from"] == "copy" for r in other))
        self.assertTrue(any("line 5" in w and "CopyLog" in w for w in report.get("warnings", [])),
                        report.get("warnings"))

    def test_kape_custom_storage_path_on_another_drive(self):
        # dana's settings name C:\RooTasks; here the collection holds that folder on D: and the settings name D:
        kape = os.path.join(self.tmp, "kape-two")
        shutil.copytree(self.tree("windows-ntfs"), os.path.join(kape, "C"))
        shutil.move(os.path.join(kape, "C", "RooTasks"), os.path.join(kape, "D", "RooTasks"))
        settings = os.path.join(kape, "C", "Users", "dana", "AppData", "Roaming", "Code", "User", "settings.json")
        with open(settings, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("C:\\\\RooTasks", text)
        with open(settings, "w", encoding="utf-8") as f:
            f.write(text.replace("C:\\\\RooTasks", "D:\\\\RooTasks"))
        out, run = self.run_dir(kape, "out")
        report = report_of(out)
        self.assertEqual([d["drive"] for d in report["evidence"]["collection"]["drives"]], ["C:", "D:"])
        res = report["custom_storage_path_resolution"]
        self.assertEqual(len(res), 1)
        self.assertEqual((res[0]["resolved"], res[0]["found_on_drive"], res[0]["found_at"]), (True, "D:", "/RooTasks"))
        task = "019d4e90-d313-71f6-a4c2-7e90b3d58f16"
        on_d = [r for r in rows_of(out) if r["session_id"] == task and r["kind"] == "user_message"]
        self.assertTrue(on_d)
        self.assertTrue(all(r["source"]["collection"]["drive"] == "D:" for r in on_d))
        self.assertEqual(len({r["row_id"] for r in rows_of(out)}), len(rows_of(out)))

    def test_velociraptor_uploads_and_result_times(self):
        velo = os.path.join(self.tmp, "collection")
        shutil.copytree(self.tree("windows-ntfs"), os.path.join(velo, "uploads", "auto", "C%3A"))
        os.makedirs(os.path.join(velo, "results"))
        with open(os.path.join(velo, "results", "Generic.Forensic.RooCode.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps({"OSPath": "C:\\" + MCP.replace("/", "\\"), "Size": 1,
                                "Mtime": "2026-03-19T09:30:15.123456789Z", "Atime": "2026-03-20T07:00:00Z",
                                "Ctime": "2026-03-19T09:30:15Z", "Btime": "2026-03-01T08:00:00Z"}) + "\n")
        out, run = self.run_dir(velo, "out")
        direct, _ = self.run_dir(self.tree("windows-ntfs"), "direct")
        report = report_of(out)
        self.assertEqual(report["evidence"]["collection"]["collector"], "velociraptor")
        self.assertEqual([d["drive"] for d in report["evidence"]["collection"]["drives"]], ["C:"])
        rows = rows_of(out)
        self.assertEqual(sorted(map(without_provenance, rows)), sorted(map(without_provenance, rows_of(direct))))
        mcp = [r for r in rows if r["source"]["path"] == "/" + MCP]
        self.assertTrue(mcp)
        s = mcp[0]["source"]
        self.assertEqual((s["mtime"], s["ctime"], s["crtime"], s["times_from"], s["collection"]),
                         ("2026-03-19T09:30:15.123456789Z", "2026-03-19T09:30:15Z", "2026-03-01T08:00:00Z",
                          "velociraptor_results", {"collector": "velociraptor", "drive": "C:"}))

    def test_velociraptor_unix_collection_is_one_root(self):
        velo = os.path.join(self.tmp, "linux-collection")
        shutil.copytree(self.tree("linux-ext4"), os.path.join(velo, "uploads", "auto"))
        out, _ = self.run_dir(velo, "out")
        direct, _ = self.run_dir(self.tree("linux-ext4"), "direct")
        report = report_of(out)
        self.assertEqual([d["drive"] for d in report["evidence"]["collection"]["drives"]], ["/"])
        rows = rows_of(out)
        self.assertTrue(rows)
        self.assertEqual(sorted(map(without_provenance, rows)), sorted(map(without_provenance, rows_of(direct))))
        self.assertTrue(all(r["source"]["times_from"] == "copy" for r in rows))

    def test_a_plain_folder_is_not_a_collection(self):
        out, _ = self.run_dir(self.tree("windows-ntfs"), "out")
        report = report_of(out)
        self.assertNotIn("collection", report["evidence"])
        self.assertTrue(all("collection" not in r["source"] and "times_from" not in r["source"] for r in rows_of(out)))


if __name__ == "__main__":
    e2e_main.run(__import__(__name__), "Collection")
