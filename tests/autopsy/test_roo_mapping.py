#!/usr/bin/env python3
"""plugin/autopsy/roo_mapping.py on REAL rows: the build's roo-ingest run on the fixture images.

What an artifact holds is decided in roo_mapping (the Jython module only calls Autopsy with its specs), so this is
where the row -> artifact mapping is tested: every row maps to a known artifact type, every attribute value has its
declared type (one type per attribute name across all rows), file keys carry the provenance and find the right file
in a real Sleuth Kit case database (tsk_loaddb) of the same image, every timed row gets exactly one timeline event
at the right second (some checked against times written here by hand from the fixtures), and the PLANTED secrets of
the fixtures never reach an attribute or a description.

usage: test_roo_mapping.py [unittest args] --binary PATH --repo PATH
"""
import calendar
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import common

common.parse_args()
import roo_mapping as m  # noqa: E402

OUT = None


def setUpModule():
    global OUT
    OUT = common.Outputs()


def tearDownModule():
    OUT.close()


def py_type_ok(value_type, value):
    if value_type == m.STRING:
        return isinstance(value, str)
    if value_type == m.LONG:
        return isinstance(value, int) and not isinstance(value, bool)
    if value_type == m.DOUBLE:
        return isinstance(value, float)
    return False


class Mapping(unittest.TestCase):
    def test_fixture_runs_have_rows(self):
        for name in common.IMAGES:
            self.assertGreater(len(OUT.rows(name)), 10, name)

    def test_every_row_maps_to_a_known_artifact_type(self):
        kinds = set()
        for name, row in OUT.all_rows():
            kinds.add(row["kind"])
            spec = m.row_to_spec(row)
            self.assertIn(row["kind"], m.KIND_TO_ARTIFACT_TYPE, "%s: kind %s has no type" % (name, row["kind"]))
            self.assertEqual(spec["artifact_type"], m.KIND_TO_ARTIFACT_TYPE[row["kind"]])
            self.assertNotEqual(spec["artifact_type"], m.FALLBACK_ARTIFACT_TYPE)
            self.assertEqual(spec["artifact_display_name"], m.ARTIFACT_DISPLAY_NAMES[spec["artifact_type"]])
            self.assertEqual(spec["row_id"], row["row_id"])
        self.assertGreaterEqual(len(kinds), 40)  # the fixtures exercise most of the contract's kinds

    def test_type_names_and_display_names(self):
        names = [t for t, _, _ in m.ARTIFACT_TYPES]
        self.assertEqual(len(names), len(set(names)))
        kinds = [k for _, _, ks in m.ARTIFACT_TYPES for k in ks]
        self.assertEqual(len(kinds), len(set(kinds)), "a kind in two artifact types")
        for type_name, display, _ in m.ARTIFACT_TYPES:
            self.assertRegex(type_name, r"^ROO_[A-Z_]+$")
            self.assertTrue(display.startswith("Roo Code "), display)
            self.assertNotIn("'", display)  # Blackboard.getOrAddArtifactType writes it into SQL unescaped
        for name, (value_type, display) in m.ATTRIBUTE_TYPES.items():
            self.assertRegex(name, r"^ROO_[A-Z0-9_]+$")
            self.assertIn(value_type, m.VALUE_TYPES)
            self.assertTrue(display)
            self.assertNotIn("'", display)

    def test_every_attribute_value_has_its_declared_type(self):
        seen_types = {}
        count = 0
        for name, row in OUT.all_rows():
            spec = m.row_to_spec(row)
            self.assertTrue(spec["attributes"])
            for attr_name, value_type, value in spec["attributes"]:
                count += 1
                self.assertTrue(attr_name.startswith("ROO_"), attr_name)
                self.assertIn(value_type, m.VALUE_TYPES)
                self.assertTrue(py_type_ok(value_type, value), "%s %s=%r" % (value_type, attr_name, value))
                self.assertEqual(value_type, m.attribute_value_type(attr_name))
                self.assertEqual(seen_types.setdefault(attr_name, value_type), value_type,
                                 "%s has two value types" % attr_name)
                display = m.attribute_display_name(attr_name)
                self.assertTrue(display)
                self.assertNotIn("'", display)
        self.assertGreater(count, 10000)

    def test_nothing_in_a_row_is_dropped(self):
        for name, row in OUT.all_rows():
            names = {a[0] for a in m.row_to_spec(row)["attributes"]}
            for field, value in row.items():
                if field in ("schema", "agent", "source") or value is None:
                    continue
                attr = m.field_attribute_name(field)
                self.assertTrue(attr in names or attr + "_TEXT" in names, "%s: %s not mapped" % (name, field))
            for field, value in row["source"].items():
                if value is not None:
                    self.assertIn(m.source_attribute_name(field), names, "%s: source.%s" % (name, field))

    def test_values_survive(self):
        """Spot checks: numbers stay numbers, booleans and structures become their JSON text, text is verbatim."""
        for name, row in OUT.all_rows():
            attrs = {a[0]: a[2] for a in m.row_to_spec(row)["attributes"]}
            self.assertEqual(attrs["ROO_KIND"], row["kind"])
            if row["text"] is not None:
                self.assertEqual(attrs["ROO_TEXT"], row["text"])
            if "exit_code" in row:
                self.assertEqual(attrs["ROO_EXIT_CODE"], row["exit_code"])
            if "cost_usd" in row:
                self.assertEqual(attrs["ROO_COST_USD"], float(row["cost_usd"]))
            if "tool_input" in row:
                self.assertEqual(json.loads(attrs["ROO_TOOL_INPUT"]), row["tool_input"])
            if "result_recorded" in row:
                self.assertEqual(attrs["ROO_RESULT_RECORDED"], "true" if row["result_recorded"] else "false")
            self.assertEqual(attrs["ROO_SRC_PATH"], row["source"]["path"])
            if row["source"]["inode"] is not None:
                self.assertEqual(attrs["ROO_SRC_INODE"], row["source"]["inode"])
            if row["time_utc"] is not None:
                self.assertEqual(attrs["ROO_TIME_UTC"], row["time_utc"])  # milliseconds kept on the artifact
            self.assertNotIn("ROO_SCHEMA", attrs)

    def test_native_records_map_to_one_attribute(self):
        rows = OUT.rows("demo+native")
        natives = [r for r in rows if "native" in r]
        self.assertGreater(len(natives), 100)
        for row in natives:
            attrs = {a[0]: a[2] for a in m.row_to_spec(row)["attributes"]}
            self.assertEqual(attrs["ROO_NATIVE"], row["native"])

    def test_file_keys_carry_the_provenance(self):
        ntfs_attrs = 0
        for name, row in OUT.all_rows():
            src = row["source"]
            key = m.row_to_spec(row)["file_key"]
            self.assertEqual(key["evidence"], src["evidence"])
            self.assertEqual(key["partition_offset"], src["partition_offset"])
            self.assertEqual(key["inode"], src["inode"])
            self.assertEqual(key["meta_seq"], src["meta_seq"])
            self.assertEqual(key["path"], src["path"])
            self.assertEqual(key["parent_path"] + key["name"], src["path"])
            self.assertTrue(key["parent_path"].endswith("/"))
            self.assertEqual(key["reallocated"], src["reallocated"])
            if src["attr"]:
                self.assertEqual("%d-%d" % (key["attr_type"], key["attr_id"]), src["attr"])
                ntfs_attrs += 1
            lookups = m.file_lookups(key, 1)
            self.assertEqual([method for method, _ in lookups], ["meta", "path"])
            self.assertIn("img_offset = %d" % src["partition_offset"], lookups[0][1])
            self.assertIn("meta_addr = %d" % src["inode"], lookups[0][1])
            if src["meta_seq"] is not None:
                self.assertIn("meta_seq = %d" % src["meta_seq"], lookups[0][1])
            else:
                self.assertNotIn("meta_seq", lookups[0][1])
        self.assertGreater(ntfs_attrs, 50)

    def test_file_lookup_on_a_real_case_database(self):
        """The WHERE clauses run on a tsk_loaddb database of the same image, and choose_file picks the row's file:
        its parent path and name, and (found by meta) its meta_addr."""
        import sqlite3
        for name in ("demo", "custom-path", "macos-fat"):
            db = common.tsk_loaddb(common.image_paths(name)[0], os.path.join(OUT.tmp, name + ".db"))
            con = sqlite3.connect(db)
            ds_id = con.execute("SELECT obj_id FROM tsk_image_info").fetchone()[0]
            cache = {}
            for row in OUT.rows(name):
                key = m.file_key(row)
                if key["path"] in cache:
                    continue
                found = None
                for method, where in m.file_lookups(key, ds_id):
                    files = [dict(zip(("obj_id", "name", "parent_path", "meta_addr", "attr_type", "attr_id"), r))
                             for r in con.execute("SELECT obj_id, name, parent_path, meta_addr, attr_type, attr_id "
                                                  "FROM tsk_files WHERE " + where)]
                    i = m.choose_file(method, files, key)
                    if i is not None:
                        found = (method, files[i])
                        break
                cache[key["path"]] = found
                self.assertIsNotNone(found, "%s: %s not found" % (name, key["path"]))
                method, f = found
                self.assertEqual(method, "meta", key["path"])
                self.assertEqual(f["parent_path"] + f["name"], key["path"])
                self.assertEqual(f["meta_addr"], key["inode"])
            self.assertGreater(len(cache), 5)

    def test_pool_volume_lookup_on_a_real_case_database(self):
        """On an APFS container the file system is the pool volume's (tsk_vs_parts.start = the row's
        source.pool_volume.block): the real container macOS wrote (fixtures/external/dfvfs-apfs.raw), its volume at
        block 107, a_directory/a_file at inode 17 (fls -P apfs -B 107)."""
        import sqlite3
        image = os.path.join(common.REPO, "fixtures", "external", "dfvfs-apfs.raw")
        db = common.tsk_loaddb(image, os.path.join(OUT.tmp, "dfvfs-apfs.db"))
        con = sqlite3.connect(db)
        ds_id = con.execute("SELECT obj_id FROM tsk_image_info").fetchone()[0]
        volume = {"uuid": "458ed10d-8ac3-4af1-8dfd-3954d151a3f3", "name": "apfs_test", "role": "none", "block": 107}

        def lookup(block):
            row = {"source": {"path": "/a_directory/a_file", "inode": 17, "partition_offset": 0,
                              "pool_volume": dict(volume, block=block)}}
            key = m.file_key(row)
            self.assertEqual(key["pool_volume_block"], block)
            method, where = m.file_lookups(key, ds_id)[0]
            self.assertEqual(method, "meta")
            return [r for r in con.execute("SELECT name, parent_path, meta_addr FROM tsk_files WHERE " + where)]
        self.assertEqual(lookup(107), [("a_file", "/a_directory/", 17)])
        self.assertEqual(lookup(108), [])  # no volume starts there: not another volume's inode 17
        attrs = {a[0]: a[2] for a in m.row_attributes({"kind": "task", "source": {"pool_volume": volume}})}
        self.assertEqual(attrs[m.source_attribute_name("pool_volume.uuid")], volume["uuid"])
        self.assertEqual(attrs[m.source_attribute_name("pool_volume.block")], 107)
        self.assertNotIn(m.source_attribute_name("pool_volume"), attrs)

    def test_html_text(self):
        self.assertEqual(m.html_text('/cases/Case <b>&"/x.E01'), "/cases/Case &lt;b&gt;&amp;&quot;/x.E01")
        self.assertEqual(m.html_text("&lt; already"), "&amp;lt; already")  # escaped once, from the raw text
        self.assertEqual(m.html_text("it's"), "it&#39;s")
        self.assertEqual(m.html_text("line 1\nline 2\r\nline 3"), "line 1<br>line 2<br>line 3")
        self.assertEqual(m.html_text(None), "")
        self.assertEqual(m.html_text(42), "42")

    def test_settings_strings(self):
        stored = m.settings_to_strings("  /opt/roo-ingest ", True)
        self.assertEqual(stored, {m.SETTING_BINARY_PATH: "/opt/roo-ingest", m.SETTING_NATIVE: "true",
                                  m.SETTING_COMMAND_PREFIX: "", m.SETTING_MOUNT_ROOT: m.DEFAULT_MOUNT_ROOT})
        self.assertEqual(m.settings_from_strings(stored.get), ("/opt/roo-ingest", True))
        self.assertEqual(m.settings_from_strings(m.settings_to_strings(None, False).get), ("", False))
        self.assertEqual(m.settings_from_strings({}.get), ("", False))  # never set: the defaults
        self.assertEqual(m.settings_from_strings({m.SETTING_NATIVE: "TRUE"}.get), ("", True))
        self.assertEqual(m.settings_from_strings({m.SETTING_NATIVE: "no"}.get), ("", False))

    def test_choose_file(self):
        key = m.file_key({"source": {"path": "/a/b/c.json", "inode": 5, "partition_offset": 0, "attr": "128-2",
                                     "reallocated": False}})
        same = {"name": "c.json", "parent_path": "/a/b/", "meta_addr": 5, "attr_type": 128, "attr_id": 2}
        stream = dict(same, name="c.json:zone", attr_id=3)
        other = dict(same, name="d.json", parent_path="/x/")
        self.assertEqual(m.choose_file("meta", [stream, same], key), 1)
        self.assertEqual(m.choose_file("meta", [other], key), 0)  # a hard link elsewhere: still that inode
        self.assertIsNone(m.choose_file("meta", [], key))
        self.assertIsNone(m.choose_file("path", [other], key))  # a path match needs the same path
        self.assertEqual(m.choose_file("path", [dict(same, meta_addr=9), same], key), 1)
        realloc = m.file_key({"source": {"path": "/a/b/c.json", "inode": 5, "partition_offset": 0,
                                         "reallocated": True}})
        self.assertEqual([k for k, _ in m.file_lookups(realloc, 1)], ["path"])  # that inode is another file now
        folder = m.file_key({"source": {"path": "/a/b/c.json", "inode": None, "partition_offset": None}})
        lookups = m.file_lookups(folder, 1)
        self.assertEqual([k for k, _ in lookups], ["path"])
        self.assertNotIn("img_offset", lookups[0][1])
        quoted = m.file_key({"source": {"path": "/it's/a'b", "inode": None, "partition_offset": 0}})
        self.assertIn("name = 'a''b' AND parent_path = '/it''s/'", m.file_lookups(quoted, 1)[0][1])

    def test_rows_of_a_folder_in_a_logical_file_set(self):
        """A --dir row of a folder Autopsy holds as /LogicalFileSet1/out: searched as a local file (type 3) or
        folder (8) at that path in the case, never by the host's inode."""
        row = {"source": {"path": "/C/Users/bob/x.json", "inode": 77, "partition_offset": None}}
        key = m.file_key_in_folder(m.file_key(row), "/LogicalFileSet1/out")
        self.assertEqual((key["parent_path"], key["name"], key["inode"]), ("/LogicalFileSet1/out/C/Users/bob/",
                                                                            "x.json", None))
        self.assertEqual(m.file_lookups(key, 4), [(
            "path", "data_source_obj_id = 4 AND type IN (3, 8) AND name = 'x.json' AND "
                    "parent_path = '/LogicalFileSet1/out/C/Users/bob/'")])
        self.assertEqual(m.file_key_in_folder(m.file_key(row), "/LogicalFileSet1/out/")["parent_path"],
                         "/LogicalFileSet1/out/C/Users/bob/")

    def test_local_folder_root(self):
        self.assertEqual(m.local_folder_root("/cases/kape/C/Users/bob/x.json", 4), "/cases/kape")
        self.assertEqual(m.local_folder_root("/cases/kape/x.json", 1), "/cases/kape")
        self.assertEqual(m.local_folder_root("C:\\Triage\\out\\C\\Users\\x.json", 3), "C:\\Triage\\out")
        self.assertEqual(m.local_folder_root("D:\\x.json", 1), "D:\\")
        self.assertEqual(m.local_folder_root("/x.json", 1), "/")
        self.assertEqual(m.local_folder_root("\\\\server\\share\\kape\\a", 1), "\\\\server\\share\\kape")
        self.assertIsNone(m.local_folder_root("x.json", 1))
        self.assertIsNone(m.local_folder_root("/a/b", 3))
        self.assertIsNone(m.local_folder_root(None, 1))

    def test_windows_paths_seen_from_wsl(self):
        """The paths Autopsy on Windows gives, as a WSL distribution sees them (drives under the automount root,
        /mnt/ unless wsl.conf moves it; a distribution's own files under the UNC hosts wsl$ and wsl.localhost, then
        its name), and back."""
        table = [
            ("C:\\Cases\\x.E01", "/mnt/c/Cases/x.E01"),
            ("c:\\Cases\\x.E01", "/mnt/c/Cases/x.E01"),
            ("D:/Evidence/disk 1/x.E01", "/mnt/d/Evidence/disk 1/x.E01"),
            ("E:\\", "/mnt/e/"),
            ("\\\\?\\C:\\Very\\long\\path.E01", "/mnt/c/Very/long/path.E01"),
            ("\\\\wsl$\\Debian\\home\\bob\\x.E01", "/home/bob/x.E01"),
            ("\\\\wsl.localhost\\Debian\\srv\\cases\\x.E01", "/srv/cases/x.E01"),
            ("\\\\WSL$\\debian\\x.E01", "/x.E01"),
            ("/already/linux/x.E01", "/already/linux/x.E01"),
        ]
        for windows, linux in table:
            self.assertEqual(m.windows_to_linux(windows, "/mnt/", "Debian"), linux, windows)
        self.assertEqual(m.windows_to_linux("C:\\Cases\\x.E01", "/media", None), "/media/c/Cases/x.E01")
        self.assertEqual(m.windows_to_linux("\\\\wsl$\\Ubuntu\\x.E01", "/mnt/", None), "/x.E01")  # no -d: any
        back = [
            ("/mnt/c/Cases/case1/ModuleOutput/roo-ingest-5", "C:\\Cases\\case1\\ModuleOutput\\roo-ingest-5"),
            ("/mnt/d", "D:\\"),
            ("/home/bob/out", "\\\\wsl$\\Debian\\home\\bob\\out"),
            ("/mnt/cases/x", "\\\\wsl$\\Debian\\mnt\\cases\\x"),  # not a drive letter
        ]
        for linux, windows in back:
            self.assertEqual(m.linux_to_windows(linux, "/mnt/", "Debian"), windows, linux)
        for windows in ("C:\\Cases\\case1\\ModuleOutput\\roo-ingest-5", "\\\\wsl$\\Debian\\home\\bob\\out"):
            self.assertEqual(m.linux_to_windows(m.windows_to_linux(windows, "/mnt/", "Debian"), "/mnt/", "Debian"),
                             windows)
        # not mappable: a clear error naming the path
        for windows, why in (("\\\\server\\share\\x.E01", "network share"),
                             ("\\\\wsl$\\Ubuntu\\x.E01", "distribution Ubuntu"),
                             ("C:relative.E01", "not a full path"),
                             ("\\\\?\\UNC\\server\\share\\x.E01", "network share")):
            with self.assertRaises(m.PathNotVisible) as e:
                m.windows_to_linux(windows, "/mnt/", "Debian")
            self.assertIn(windows, str(e.exception))
            self.assertIn(why, str(e.exception))
        with self.assertRaises(m.PathNotVisible):
            m.linux_to_windows("/home/bob/out", "/mnt/", None)  # which distribution: unknown

    def test_command_prefix(self):
        self.assertEqual(m.split_command_prefix("wsl.exe -d Debian --"), ["wsl.exe", "-d", "Debian", "--"])
        self.assertEqual(m.split_command_prefix('"C:\\Windows\\System32\\wsl.exe"  --distribution "Debian 12" --'),
                         ["C:\\Windows\\System32\\wsl.exe", "--distribution", "Debian 12", "--"])
        self.assertEqual(m.split_command_prefix("  "), [])
        self.assertEqual(m.split_command_prefix(None), [])
        self.assertEqual(m.wsl_distribution(["wsl.exe", "-d", "Debian", "--"]), "Debian")
        self.assertEqual(m.wsl_distribution(["wsl", "--distribution", "Ubuntu-22.04"]), "Ubuntu-22.04")
        self.assertIsNone(m.wsl_distribution(["wsl.exe", "--"]))
        stored = m.settings_to_strings("/usr/bin/roo-ingest", False, "wsl.exe -d Debian --", "/mnt/")
        self.assertEqual(m.command_settings_from_strings(stored.get), ("wsl.exe -d Debian --", "/mnt/"))
        self.assertEqual(m.command_settings_from_strings({}.get), ("", m.DEFAULT_MOUNT_ROOT))

    def test_every_timed_row_gets_exactly_one_timeline_event(self):
        timed = 0
        for name, row in OUT.all_rows():
            spec = m.row_to_spec(row)
            if row["time_utc"] is None:
                self.assertIsNone(spec["timeline"], row["kind"])
                continue
            timed += 1
            self.assertIsNotNone(spec["timeline"])
            self.assertEqual(set(spec["timeline"]), {"time", "description"})
            # an independent conversion (the standard library) for every row
            whole = time.strptime(row["time_utc"][:19], "%Y-%m-%dT%H:%M:%S")
            self.assertEqual(spec["timeline"]["time"], calendar.timegm(whole), row["time_utc"])
        self.assertGreater(timed, 500)

    def test_hand_checked_times(self):
        """Times read off the fixtures and converted by hand (date -u -d …): (image, kind, session or path end,
        time_utc, epoch seconds)."""
        wanted = [
            ("demo", "task", "019cd70b-cb3d-73c1-9a4e-5f0b2d7c8e16", "2026-03-10T09:20:51.679Z", 1773134451),
            ("demo", "command", "019cd70b-cb3d-73c1-9a4e-5f0b2d7c8e16", "2026-03-10T09:20:22.618Z", 1773134422),
            ("demo", "task", "c41e8f2a-96d3-4b57-a0e1-7f3d2b9c6a58", "2025-12-06T05:46:40.413Z", 1765000000),
            # file.mtime of the ext4 fixtures: 1714039200.1234567 (fixtures/images/README.md)
            ("demo", "mcp_server", "/global-storage/settings/mcp_settings.json", "2024-04-25T10:00:00.123Z",
             1714039200),
            ("demo", "credential_present", "/home/erin/.roo/cli-credentials.json", "2026-03-18T09:12:44.512Z",
             1773825164),
            ("macos-fat", "task", "019dabc5-57a7-7e4b-9c1d-3f5a8b20e6d4", "2026-04-20T16:42:25.190Z", 1776703345),
            ("custom-path", "task", "019d85e7-aa06-7c3e-b5d1-8f2a6e49c073", "2026-04-13T08:14:14.785Z", 1776068054),
        ]
        for image, kind, which, time_utc, epoch in wanted:
            rows = [r for r in OUT.rows(image) if r["kind"] == kind and r["time_utc"] == time_utc
                    and (r["session_id"] == which or r["source"]["path"].endswith(which))]
            self.assertTrue(rows, (image, kind, which, time_utc))
            for row in rows:
                self.assertEqual(m.row_to_spec(row)["timeline"]["time"], epoch, (image, kind, which))

    def test_iso_to_epoch_seconds(self):
        self.assertEqual(m.iso_to_epoch_seconds("1970-01-01T00:00:00.000Z"), 0)
        self.assertEqual(m.iso_to_epoch_seconds("1969-12-31T23:59:59.999Z"), -1)
        self.assertEqual(m.iso_to_epoch_seconds("2000-02-29T12:00:00.000Z"), 951825600)
        self.assertEqual(m.iso_to_epoch_seconds("2024-04-25T10:00:00.123456700Z"), 1714039200)
        self.assertEqual(m.iso_to_epoch_seconds("10000-01-01T00:00:00.000Z"), 253402300800)
        self.assertEqual(m.iso_to_epoch_seconds("0000-03-01T00:00:00.000Z"), -62162035200)  # 719468 days
        self.assertEqual(m.iso_to_epoch_seconds("-0400-03-01T00:00:00.000Z"), -74784816000)  # + 146097 days
        # the second before 0000-01-01, 60 days (year 0 is a leap year) before 0000-03-01
        self.assertEqual(m.iso_to_epoch_seconds("-0001-12-31T23:59:59.000Z"), -62162035200 - 60 * 86400 - 1)
        for bad in (None, "", "2024-04-25", "2024-13-01T00:00:00Z", "2024-04-25T10:00:00", "xxxx-01-01T00:00:00Z"):
            self.assertIsNone(m.iso_to_epoch_seconds(bad), bad)

    def test_descriptions_are_readable(self):
        for name, row in OUT.all_rows():
            spec = m.row_to_spec(row)
            if spec["timeline"] is None:
                continue
            d = spec["timeline"]["description"]
            self.assertTrue(d.startswith("Roo Code "), d)
            self.assertNotIn("\n", d)
            self.assertLessEqual(len(d), m.DESCRIPTION_MAX + 120)
            if row["session_id"]:
                self.assertIn("task " + row["session_id"], d)
        command = [r for r in OUT.rows("demo") if r["kind"] == "command" and r.get("exit_code") == 0][0]
        self.assertIn(command["command"] + " (exit 0)", m.row_to_spec(command)["timeline"]["description"])

    def test_planted_secrets_never_reach_an_attribute(self):
        planted = []
        for tree in ("linux-ext4", "windows-ntfs"):
            for base, _, files in os.walk(os.path.join(common.REPO, "fixtures", "trees", tree)):
                for f in files:
                    with open(os.path.join(base, f), "rb") as fh:
                        if b"PLANTED" in fh.read():
                            planted.append(f)
        self.assertGreaterEqual(len(planted), 8)  # the secrets are on the images, so the check can fail
        credentials = 0
        for name, row in OUT.all_rows():
            spec = m.row_to_spec(row)
            credentials += row["kind"] == "credential_present"
            for attr_name, _, value in spec["attributes"]:
                self.assertNotIn("PLANTED", str(value), "%s %s" % (name, attr_name))
            if spec["timeline"]:
                self.assertNotIn("PLANTED", spec["timeline"]["description"])
        self.assertGreater(credentials, 10)

    def test_unknown_kinds_and_fields_are_kept(self):
        row = {"schema": m.SCHEMA, "row_id": "0" * 32, "kind": "brand_new_kind", "time_utc": None,
               "time_source": "none", "text": "x", "new_field": [1, 2], "exit_code": "not a number",
               "cost_usd": 3, "source": {"path": "/x", "partition_offset": 0, "new_source_field": True}}
        spec = m.row_to_spec(row)
        self.assertEqual(spec["artifact_type"], "ROO_OTHER")
        self.assertIsNone(spec["timeline"])
        attrs = {a[0]: (a[1], a[2]) for a in spec["attributes"]}
        self.assertEqual(attrs["ROO_NEW_FIELD"], ("STRING", "[1,2]"))
        self.assertEqual(attrs["ROO_EXIT_CODE_TEXT"], ("STRING", "not a number"))  # never a LONG holding text
        self.assertNotIn("ROO_EXIT_CODE", attrs)
        self.assertEqual(attrs["ROO_COST_USD"], ("DOUBLE", 3.0))
        self.assertEqual(attrs["ROO_SRC_NEW_SOURCE_FIELD"], ("STRING", "true"))
        self.assertEqual(m.attribute_display_name("ROO_NEW_FIELD"), "New Field")
        self.assertEqual(m.attribute_display_name("ROO_EXIT_CODE_TEXT"), "Exit Code (text)")

    def test_iter_specs_reports_bad_lines(self):
        lines = common.read_lines(OUT.out["demo"])[:3] + ["", "{not json", '{"schema":"other/9"}', "[1]"]
        results = list(m.iter_specs(lines))
        self.assertEqual([n for n, _, e in results if e is None], [1, 2, 3])
        self.assertEqual([n for n, _, e in results if e is not None], [5, 6, 7])


class Running(unittest.TestCase):
    """What the module does around the mapping: the command line, exit codes, progress, finding the binary."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-autopsy-run-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_build_command_runs_the_real_binary_on_every_segment(self):
        """The module passes every path Autopsy has for the image (Image.getPaths()): a 3-segment E01 here."""
        out = os.path.join(self.tmp, m.output_dir_name(1))
        cmd = m.build_command(common.BINARY, common.image_paths("demo-split"), out)
        self.assertEqual(cmd[:4], [common.BINARY, "--force", "-o", out])
        for _ in range(2):  # a rerun of the ingest job writes into the same folder (--force)
            proc = subprocess.run(cmd, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertTrue(m.interpret_exit(proc.returncode)[0])
        rows = [json.loads(line) for line in common.read_lines(out)]
        self.assertEqual(len(rows), len(OUT.rows("demo")))
        self.assertEqual({r["source"]["evidence"] for r in rows}, {"demo-split.E01"})
        # the stderr lines of a real run are shown as progress messages
        for line in proc.stderr.splitlines():
            percent, message = m.parse_progress_line(line)
            self.assertTrue(message)
        self.assertIn("--native", m.build_command("r", ["a"], "o", extra_args=["--native"]))
        self.assertEqual(m.build_command("r", ["a", "b"], "o", progress_json=True)[-3:], ["--progress=json", "a", "b"])

    def test_real_json_progress_lines(self):
        """The binary's own --progress=json lines: a percent once a total is known, the phase in the message."""
        out = os.path.join(self.tmp, "progress")
        proc = subprocess.run([common.BINARY, "--progress=json", *common.image_paths("demo"), "-o", out],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        parsed = [m.parse_progress_line(line) for line in proc.stderr.splitlines()]
        self.assertTrue(parsed)
        self.assertTrue(all(message.startswith("roo-ingest: ") for _, message in parsed))
        # parsing knows its total once a root is listed (the task files' bytes): a percent and an ETA
        parsing = [(p, msg) for p, msg in parsed if msg.startswith("roo-ingest: parsing partition 4 (ext4)")]
        self.assertTrue(parsing)
        self.assertEqual(parsing[-1][0], 100)
        writing = [(p, msg) for p, msg in parsed if msg.startswith("roo-ingest: writing formats")]
        self.assertEqual(writing[-1][0], 100)  # the last line: all of rows.jsonl read

    def test_exit_codes_match_the_binary(self):
        """EXIT_CODES covers every code the binary's --help lists, and a real failure is reported as one."""
        proc = subprocess.run([common.BINARY, "--help"], capture_output=True, text=True)
        listed = {int(c) for c in re.findall(r"(?:^|[;:] )(\d) (?:done|bad|evidence|a segment|internal)",
                                             proc.stdout.replace("\n", " "))}
        self.assertEqual(listed, set(m.EXIT_CODES))
        self.assertEqual(m.supports_progress_json(proc.stdout), "--progress" in proc.stdout)
        missing = subprocess.run([common.BINARY, "-q", os.path.join(self.tmp, "nope.E01"), "-o",
                                  os.path.join(self.tmp, "o")], capture_output=True)
        self.assertEqual(missing.returncode, 3)
        ok, message = m.interpret_exit(missing.returncode)
        self.assertFalse(ok)
        self.assertIn("cannot be opened", message)
        self.assertEqual(m.interpret_exit(5)[0], True)
        self.assertEqual(m.interpret_exit(-9), (False, "roo-ingest exit -9: killed or unknown failure"))

    def test_parse_progress_line(self):
        self.assertEqual(m.parse_progress_line("roo-ingest: partition 1: scanning"),
                         (None, "roo-ingest: partition 1: scanning"))
        self.assertEqual(m.parse_progress_line('{"phase":"parsing","bytes_done":50,"bytes_total":200}'),
                         (25, "roo-ingest: parsing"))
        self.assertEqual(m.parse_progress_line('{"phase":"carving","fraction":0.5,"eta_seconds":12}'),
                         (50, "roo-ingest: carving ETA 12s"))
        self.assertEqual(m.parse_progress_line('{"percent":140}')[0], 100)
        self.assertEqual(m.parse_progress_line('{"files_done":1,"files_total":0}'), (None, "roo-ingest: working"))
        self.assertEqual(m.parse_progress_line("{broken"), (None, "{broken"))
        self.assertEqual(m.parse_progress_line(""), (None, ""))

    def test_log_tail(self):
        path = os.path.join(self.tmp, "err.txt")
        tail = m.LogTail(path)
        self.assertEqual(tail.new_lines(), [])  # not there yet
        with open(path, "wb") as f:
            f.write(b"one\ntw")
        self.assertEqual(tail.new_lines(), ["one"])
        with open(path, "ab") as f:
            f.write("o \u00e9\r\nthree".encode("utf-8"))
        self.assertEqual(tail.new_lines(), ["two \u00e9"])
        self.assertEqual(tail.rest(), ["three"])
        self.assertEqual(tail.rest(), [])

    def test_find_binary(self):
        bin_dir = os.path.join(self.tmp, "bin")
        os.mkdir(bin_dir)
        exe = os.path.join(bin_dir, "roo-ingest")
        with open(exe, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(exe, 0o644)
        is_exe = lambda p: os.path.isfile(p) and os.access(p, os.X_OK)  # noqa: E731
        env = {"PATH": "/nonexistent" + os.pathsep + bin_dir}
        self.assertNotIn(m.find_binary("", env, is_exe), (exe,))
        os.chmod(exe, 0o755)
        self.assertEqual(m.find_binary("", env, is_exe), exe)
        self.assertEqual(m.find_binary("", {"PATH": "", "ROO_INGEST_BINARY": exe}, is_exe), exe)
        self.assertEqual(m.find_binary(common.BINARY, env, is_exe), common.BINARY)
        self.assertIsNone(m.find_binary(os.path.join(self.tmp, "missing"), env, is_exe))  # never another one
        self.assertEqual(m.binary_candidates("", {"PATH": ""})[-2:], ["/usr/bin/roo-ingest",
                                                                      "/usr/local/bin/roo-ingest"])

    def test_batches(self):
        self.assertEqual([len(b) for b in m.batches(range(1201), 500)], [500, 500, 201])
        self.assertEqual(list(m.batches([], 500)), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
