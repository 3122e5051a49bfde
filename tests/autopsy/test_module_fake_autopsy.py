#!/usr/bin/env python3
"""plugin/autopsy/roo_ingest_module.py run end to end against a stand-in for the Autopsy API (autopsy_fakes.py).

Autopsy itself cannot run here. This runs the module's own code (factory, start-up, process) as Autopsy would call
it, with the real roo-ingest binary on a fixture image and, for the file lookups, a real Sleuth Kit case database of
that image made by tsk_loaddb. It shows the module's logic works on that stand-in: the tool is run with the image's
paths and can be cancelled, every row becomes one artifact on the right file, every timed row one TSK_TL_EVENT,
artifacts go out in batches, failures are reported. It does not show that the fakes behave as Autopsy does.

usage: test_module_fake_autopsy.py [unittest args] --binary PATH --repo PATH
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import unittest

import common

common.parse_args()
sys.path.insert(0, common.HERE)
import autopsy_fakes as fakes  # noqa: E402

fakes.install()
import roo_ingest_module as module  # noqa: E402
import roo_mapping as m  # noqa: E402

R = fakes.RECORD

FAKE_TOOL = """#!/bin/sh
# stands in for roo-ingest: --help names --progress; a run writes JSON progress, then sleeps, copies rows, exits
if [ "$1" = "--help" ]; then echo "  --progress=json   JSON progress lines on stderr"; exit 0; fi
out=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift;; esac; shift; done
echo '{"phase":"parsing","bytes_done":10,"bytes_total":40}' >&2
echo "roo-ingest: ${FAKE_MESSAGE:-working}" >&2
echo $$ > "$FAKE_PID"
if [ -n "$FAKE_ROWS" ]; then cp "$FAKE_ROWS" "$out/rows.jsonl"; fi
if [ "${FAKE_SLEEP:-0}" != 0 ]; then exec sleep "$FAKE_SLEEP"; fi
exit "${FAKE_CODE:-0}"
"""


class FakeAutopsy(unittest.TestCase):
    def setUp(self):
        R.reset()
        self.tmp = tempfile.mkdtemp(prefix="roo-autopsy-fake-")
        self.module_dir = os.path.join(self.tmp, "ModuleOutput")
        os.mkdir(self.module_dir)
        self.env = dict(os.environ)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def make_case(self, image_name, lookup=None):
        image = common.image_paths(image_name)
        db = common.tsk_loaddb(image[0], os.path.join(self.tmp, "case.db"))
        con = sqlite3.connect(db)
        ds_id = con.execute("SELECT obj_id FROM tsk_image_info").fetchone()[0]
        sk_case = fakes.SleuthkitCase(lookup or fakes.sqlite_lookup(db))
        fakes.Case.current = fakes.Case(self.module_dir, sk_case)
        return con, sk_case, fakes.Image(ds_id, os.path.basename(image[0]), image)

    def make_module(self, binary, native=False):
        factory = module.RooIngestModuleFactory()
        self.assertTrue(factory.isDataSourceIngestModuleFactory())
        settings = factory.getDefaultIngestJobSettings()
        self.assertIsInstance(settings, fakes.GenericIngestModuleJobSettings)
        settings.setSettings(m.SETTING_BINARY_PATH, binary)
        settings.setSettings(m.SETTING_NATIVE, "true" if native else "false")
        return factory.createDataSourceIngestModule(settings)

    def fake_tool(self):
        path = os.path.join(self.tmp, "fake-roo-ingest")
        with open(path, "w") as f:
            f.write(FAKE_TOOL)
        os.chmod(path, 0o755)
        os.environ["FAKE_PID"] = os.path.join(self.tmp, "pid")
        return path

    # -- Autopsy's loader -----------------------------------------------------------------------------------

    def test_autopsy_loader_finds_exactly_the_factory(self):
        """JythonModuleLoader reads every .py of the module folder and loads each `class X(...IngestModuleFactory…`
        line's class by calling X() with no argument."""
        folder = os.path.join(common.REPO, "plugin", "autopsy")
        found = []
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("class ") and "IngestModuleFactory" in line:
                            found.append((name, line[6:line.index("(")]))
        self.assertEqual(found, [("roo_ingest_module.py", "RooIngestModuleFactory")])
        factory = getattr(module, found[0][1])()
        self.assertEqual(factory.getModuleDisplayName(), m.MODULE_NAME)
        self.assertTrue(factory.hasIngestJobSettingsPanel())
        panel = factory.getIngestJobSettingsPanel(factory.getDefaultIngestJobSettings())
        panel.path_field.setText(" /opt/roo-ingest ")
        panel.native_box.setSelected(True)
        settings = panel.getSettings()
        self.assertEqual((settings.getSettings(m.SETTING_BINARY_PATH), settings.getSettings(m.SETTING_NATIVE)),
                         ("/opt/roo-ingest", "true"))
        mod = factory.createDataSourceIngestModule(settings)
        self.assertEqual((mod.binary_path, mod.native), ("/opt/roo-ingest", True))

    # -- settings ------------------------------------------------------------------------------------------

    def test_settings_survive_a_round_trip(self):
        """Autopsy serialises the job's GenericIngestModuleJobSettings and hands them back to a new factory in a
        later session: the panel's choices reach the new module, which runs the configured executable."""
        tool = self.fake_tool()
        factory = module.RooIngestModuleFactory()
        panel = factory.getIngestJobSettingsPanel(factory.getDefaultIngestJobSettings())
        panel.path_field.setText(tool + "  ")
        panel.native_box.setSelected(True)
        stored = panel.getSettings().serialised()
        self.assertEqual(stored, {m.SETTING_BINARY_PATH: tool, m.SETTING_NATIVE: "true", m.SETTING_COMMAND_PREFIX: "",
                                  m.SETTING_MOUNT_ROOT: "/mnt/"})

        restored = fakes.GenericIngestModuleJobSettings.deserialised(stored)
        later = module.RooIngestModuleFactory()
        again = later.getIngestJobSettingsPanel(restored)  # the panel shows what was chosen
        self.assertEqual((again.path_field.getText(), again.native_box.isSelected()), (tool, True))
        mod = later.createDataSourceIngestModule(restored)
        self.assertEqual((mod.binary_path, mod.native), (tool, True))
        mod.startUp(fakes.Context())
        self.assertEqual(R.commands, [[tool, "--help"]])

        # unticked and emptied: the defaults again ($PATH search, no --native)
        again.path_field.setText("")
        again.native_box.setSelected(False)
        stored = again.getSettings().serialised()
        mod = module.RooIngestModuleFactory().createDataSourceIngestModule(
            fakes.GenericIngestModuleJobSettings.deserialised(stored))
        self.assertEqual((mod.binary_path, mod.native), ("", False))

    def test_settings_never_set_or_of_the_old_form(self):
        factory = module.RooIngestModuleFactory()
        mod = factory.createDataSourceIngestModule(fakes.GenericIngestModuleJobSettings())  # empty map
        self.assertEqual((mod.binary_path, mod.native), ("", False))
        mod = factory.createDataSourceIngestModule(None)
        self.assertEqual((mod.binary_path, mod.native), ("", False))

        class OldSettings(object):  # what the module's own settings class held before
            binary_path = "/opt/old/roo-ingest"
            native = True
        mod = factory.createDataSourceIngestModule(OldSettings())
        self.assertEqual((mod.binary_path, mod.native), ("/opt/old/roo-ingest", True))
        with self.assertRaises(AttributeError):  # as on the Java object: no Python attributes
            fakes.GenericIngestModuleJobSettings().binary_path = "/x"

    # -- the ingest inbox ----------------------------------------------------------------------------------

    def test_inbox_messages_are_escaped(self):
        """IngestMessage subject and details are HTML: a path with markup in it shows as text, not markup."""
        _, _, image = self.make_case("demo")
        case_dir = os.path.join(self.tmp, 'Case <b>&"')
        os.makedirs(os.path.join(case_dir, "ModuleOutput"))
        fakes.Case.current.module_dir = os.path.join(case_dir, "ModuleOutput")
        mod = self.make_module(self.fake_tool())  # exits 0 and writes no rows.jsonl
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.ERROR)
        out_dir = os.path.join(case_dir, "ModuleOutput", m.output_dir_name(image.getId()))
        self.assertEqual(R.messages, [("ERROR", m.MODULE_NAME, "roo-ingest wrote no rows.jsonl in " +
                                       out_dir.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                                       .replace('"', "&quot;"), None)])
        self.assertIn("Case &lt;b&gt;&amp;&quot;", R.messages[0][2])
        self.assertNotIn("<b>", R.messages[0][2])

        # tool output in the details: escaped, its lines kept as <br>
        R.reset()
        os.environ["FAKE_CODE"] = "3"
        os.environ["FAKE_MESSAGE"] = 'error: cannot open /evidence/<b>&".E01'
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.ERROR)
        errors = [msg for msg in R.messages if msg[0] == "ERROR"]
        self.assertEqual(len(errors), 1)
        self.assertIn("cannot open /evidence/&lt;b&gt;&amp;&quot;.E01", errors[0][3])
        self.assertNotIn("<b>", errors[0][3])
        self.assertIn("<br>", errors[0][3])
        # the Autopsy log keeps the plain text
        self.assertTrue(any('/evidence/<b>&".E01' in msg for _, msg in R.logs))

    def test_every_inbox_text_goes_through_html_text(self):
        """Each IngestMessage.createMessage call in the module passes its subject and details through
        roo_mapping.html_text, so no interpolated value (a path, a name, a tool's line) reaches the inbox raw."""
        import ast
        path = os.path.join(common.REPO, "plugin", "autopsy", "roo_ingest_module.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr == "createMessage"]
        self.assertEqual(len(calls), 2)
        for call in calls:
            for arg in call.args[2:]:  # (type, module name, subject[, details])
                self.assertEqual(ast.unparse(arg.func) if isinstance(arg, ast.Call) else ast.unparse(arg),
                                 "roo_mapping.html_text", "line %d" % call.lineno)

    # -- a full run ----------------------------------------------------------------------------------------

    def test_demo_image_end_to_end(self):
        con, sk_case, image = self.make_case("demo")
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.binary, common.BINARY)
        result = mod.process(image, fakes.ProgressBar())
        self.assertEqual(result, fakes.ProcessResult.OK, R.messages)

        out = os.path.join(self.module_dir, "roo-ingest-%d" % image.getId())
        self.assertEqual(R.commands[-1], m.build_command(common.BINARY, image.getPaths(), out,
                                                         mod.progress_json))
        rows = [json.loads(line) for line in common.read_lines(out)]
        bb = sk_case.getBlackboard()
        custom = [a for a in bb.artifacts if a.artifact_type.getTypeName() != "TSK_TL_EVENT"]
        events = [a for a in bb.artifacts if a.artifact_type.getTypeName() == "TSK_TL_EVENT"]
        self.assertEqual(len(custom), len(rows))
        self.assertEqual(len(events), sum(1 for r in rows if r["time_utc"] is not None))

        by_id = {a.getArtifactID(): a for a in bb.artifacts}
        files = {}
        for obj_id, name, parent in con.execute("SELECT obj_id, name, parent_path FROM tsk_files "
                                                "WHERE parent_path IS NOT NULL"):
            files[obj_id] = parent + name
        for row, art in zip(rows, custom):
            spec = m.row_to_spec(row)
            self.assertEqual(art.artifact_type.getTypeName(), spec["artifact_type"])
            self.assertGreaterEqual(art.artifact_type.getTypeID(), 10000)
            self.assertEqual(art.attribute("ROO_ROW_ID"), row["row_id"])
            self.assertEqual(art.ds_id, image.getId())
            self.assertEqual(files.get(art.obj_id), row["source"]["path"], "attached to the wrong file")
            self.assertEqual(art.attribute("ROO_ATTACHED_BY"), m.ATTACHED_BY_TEXT["meta"])
            self.assertEqual(len(art.attributes), len(spec["attributes"]) + 1)
            for a in art.attributes:
                self.assertNotIn("PLANTED", str(a.value))
        for ev in events:
            owner = by_id[ev.attribute("TSK_ASSOCIATED_ARTIFACT")]
            row = rows[custom.index(owner)]
            spec = m.row_to_spec(row)
            self.assertEqual(ev.attribute("TSK_DATETIME"), spec["timeline"]["time"])
            self.assertEqual(ev.attribute("TSK_DESCRIPTION"), spec["timeline"]["description"])
            self.assertEqual(ev.attribute("TSK_TL_EVENT_TYPE"), 23)  # TimelineEventType.STANDARD_ARTIFACT_CATCH_ALL
            self.assertEqual(ev.obj_id, owner.obj_id)

        self.assertTrue(all(a.posted for a in bb.artifacts))
        # one post per batch of POST_BATCH_SIZE rows (each row's artifact and its event), after its transaction
        batches = (len(rows) + m.POST_BATCH_SIZE - 1) // m.POST_BATCH_SIZE
        self.assertGreaterEqual(batches, 2)
        self.assertEqual([k for k, _ in R.transactions], ["explicit"] * batches)
        self.assertEqual([n for n, _, _ in R.batches], [n for _, n in R.transactions])
        self.assertTrue(all(n <= 2 * m.POST_BATCH_SIZE for n, _, _ in R.batches), R.batches)
        self.assertEqual({(mod_name, job) for _, mod_name, job in R.batches}, {(m.MODULE_NAME, 7)})
        self.assertEqual(len(R.reports), 1)
        self.assertTrue(os.path.isfile(R.reports[0][0]))
        self.assertIn("%d rows from demo.E01: %d artifacts, %d timeline events" % (
            len(rows), len(rows), len(events)), [msg[2] for msg in R.messages])
        # every file was looked up once: a row's file is cached for the next rows of the same file
        self.assertEqual(len(sk_case.queries), len({r["source"]["path"] for r in rows}))

        # a second ingest of the same data source writes into the same folder (--force) and works again
        R.reset()
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK, R.messages)

    def test_rows_are_added_in_one_transaction_per_batch(self):
        """On the fixture with the most rows (the bare ext4 as split raw): every artifact is made inside one
        case-database transaction per batch of rows, committed before the batch is posted; none is made alone (which
        costs Blackboard.newDataArtifact a transaction of its own per artifact)."""
        _, sk_case, image = self.make_case("linux-ext4-raw")
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK, R.messages)
        rows = common.read_lines(os.path.join(self.module_dir, "roo-ingest-%d" % image.getId()))
        artifacts = sk_case.getBlackboard().artifacts
        kinds = [k for k, _ in R.transactions]
        print("\nlinux-ext4.raw.001: %d rows, %d artifacts, %d transactions (%d explicit, %d implicit), %d posts"
              % (len(rows), len(artifacts), len(R.transactions), kinds.count("explicit"), kinds.count("implicit"),
                 len(R.batches)), file=sys.stderr)
        batches = (len(rows) + m.POST_BATCH_SIZE - 1) // m.POST_BATCH_SIZE
        self.assertGreater(len(rows), m.POST_BATCH_SIZE // 2)
        self.assertEqual(kinds, ["explicit"] * batches)
        self.assertEqual(sum(n for _, n in R.transactions), len(artifacts))
        self.assertEqual(len(R.batches), batches)
        self.assertEqual(sum(n for n, _, _ in R.batches), len(artifacts))
        self.assertTrue(all(a.posted for a in artifacts))

    def test_a_failed_batch_is_rolled_back(self):
        """An artifact the case database refuses: the batch's transaction is rolled back, nothing of it is posted,
        and the error reaches Autopsy (which logs it for the module)."""
        _, sk_case, image = self.make_case("macos-fat")
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        bb = sk_case.getBlackboard()
        real = bb.newDataArtifact
        made = []

        def refuse_the_fifth(*args):
            made.append(1)
            if len(made) == 5:
                raise fakes.TskCoreException("disk full")
            return real(*args)
        bb.newDataArtifact = refuse_the_fifth
        with self.assertRaises(fakes.TskCoreException):
            mod.process(image, fakes.ProgressBar())
        self.assertEqual(R.transactions, [["rolled back", 4]])
        self.assertEqual((bb.artifacts, R.batches), ([], []))

    def test_timeline_event_type_before_and_after_sleuthkit_4_11_1(self):
        """Sleuth Kit 4.11.1 renamed TimelineEventType.OTHER (id 23) to STANDARD_ARTIFACT_CATCH_ALL and kept no OTHER
        (TimelineEventType.java at tags sleuthkit-4.11.0 and sleuthkit-4.11.1, see autopsy_fakes.py): the module
        must name id 23 with either class."""
        self.assertFalse(hasattr(fakes.TimelineEventType, "OTHER"))
        self.assertFalse(hasattr(fakes.TimelineEventTypeBefore4_11_1, "STANDARD_ARTIFACT_CATCH_ALL"))
        _, sk_case, image = self.make_case("macos-fat")
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        for event_types in (fakes.TimelineEventType, fakes.TimelineEventTypeBefore4_11_1):
            R.reset()
            fakes.Case.current.sk_case = fakes.SleuthkitCase(sk_case.lookup)
            saved, module.TimelineEventType = module.TimelineEventType, event_types
            try:
                self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK, R.messages)
            finally:
                module.TimelineEventType = saved
            events = [a for a in fakes.Case.current.sk_case.getBlackboard().artifacts
                      if a.artifact_type.getTypeName() == "TSK_TL_EVENT"]
            self.assertGreater(len(events), 0, event_types.__name__)
            self.assertEqual({ev.attribute("TSK_TL_EVENT_TYPE") for ev in events}, {23}, event_types.__name__)

    def test_files_not_in_the_case_go_to_the_data_source(self):
        _, sk_case, image = self.make_case("macos-fat", lookup=lambda where: [])
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK)
        arts = sk_case.getBlackboard().artifacts
        self.assertTrue(arts)
        self.assertEqual({a.obj_id for a in arts}, {image.getId()})
        custom = [a for a in arts if a.artifact_type.getTypeName() != "TSK_TL_EVENT"]
        self.assertEqual({a.attribute("ROO_ATTACHED_BY") for a in custom}, {m.ATTACHED_BY_TEXT["data_source"]})

    def test_native_setting_is_passed(self):
        _, sk_case, image = self.make_case("custom-path")
        mod = self.make_module(common.BINARY, native=True)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK)
        self.assertIn("--native", R.commands[-1])
        natives = [a.attribute("ROO_NATIVE") for a in sk_case.getBlackboard().artifacts]
        self.assertTrue(any(natives))

    # -- running the tool ------------------------------------------------------------------------------------

    def test_cancel_stops_the_tool_and_progress_is_shown(self):
        _, sk_case, image = self.make_case("demo")
        os.environ["FAKE_SLEEP"] = "60"
        mod = self.make_module(self.fake_tool())
        # cancel once the module has shown the tool's progress lines (or after 40 polls, 20 s, whatever happened)
        shown = ("progress", "roo-ingest: working")
        context = fakes.Context(cancel_when=lambda: context.polls > 40 or shown in R.progress)
        mod.startUp(context)
        self.assertTrue(mod.progress_json)
        self.assertIn("--progress=json", m.build_command("x", [], "o", mod.progress_json))
        started = time.time()
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK)
        self.assertLess(time.time() - started, 40)
        self.assertIn("--progress=json", R.commands[-1])
        with open(os.environ["FAKE_PID"]) as f:
            pid = int(f.read())
        time.sleep(0.2)
        with self.assertRaises(OSError):  # the tool was stopped (and reaped)
            os.kill(pid, 0)
        self.assertEqual(sk_case.getBlackboard().artifacts, [])
        self.assertIn(("determinate", 100), R.progress)
        self.assertIn(("progress", "roo-ingest: parsing", 25), R.progress)
        self.assertIn(("progress", "roo-ingest: working"), R.progress)

    def test_tool_failure_is_reported(self):
        _, sk_case, image = self.make_case("demo")
        os.environ["FAKE_CODE"] = "3"
        os.environ["FAKE_MESSAGE"] = "error: cannot open /evidence/demo.E01"
        mod = self.make_module(self.fake_tool())
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.ERROR)
        errors = [msg for msg in R.messages if msg[0] == "ERROR"]
        self.assertEqual(len(errors), 1)
        self.assertIn("exit 3: the evidence cannot be opened", errors[0][2])
        self.assertIn("cannot open /evidence/demo.E01", errors[0][3])
        self.assertEqual(sk_case.getBlackboard().artifacts, [])

    def test_partial_run_still_imports_with_a_warning(self):
        _, sk_case, image = self.make_case("demo")
        rows = os.path.join(self.tmp, "rows.jsonl")
        with open(rows, "w", encoding="utf-8") as f:
            f.write('{"schema":"roo-ingest/row/1","row_id":"%s","kind":"task","time_utc":null,"time_source":"none",'
                    '"text":"t","source":{"path":"/nowhere","partition_offset":0,"inode":null}}\n' % ("0" * 32))
            f.write("{broken\n")
        os.environ["FAKE_ROWS"] = rows
        os.environ["FAKE_CODE"] = "5"
        mod = self.make_module(self.fake_tool())
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(image, fakes.ProgressBar()), fakes.ProcessResult.OK)
        self.assertEqual([msg[0] for msg in R.messages], ["WARNING", "DATA"])
        self.assertIn("unreadable lines: 1", R.messages[-1][3])
        self.assertEqual(len(sk_case.getBlackboard().artifacts), 1)

    def run_local_files(self, folders, **kwargs):
        """The module on a logical file set of the given host folders (as Autopsy adds a KAPE or Velociraptor
        collection): the data source, its tsk_files rows, the module's result."""
        ds, rows = fakes.local_files_data_source(40, "LogicalFileSet1", folders, **kwargs)
        sk_case = fakes.SleuthkitCase(fakes.rows_lookup(rows))
        fakes.Case.current = fakes.Case(self.module_dir, sk_case)
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        return ds, rows, sk_case, mod.process(ds, fakes.ProgressBar())

    def test_local_files_data_source_runs_dir_on_its_folder(self):
        """A logical file set: roo-ingest runs with --dir on the folder that was added (found from a local file's
        path on disk), and each row lands on the local file it came from."""
        folder = os.path.join(common.REPO, "fixtures", "trees", "linux-ext4")
        ds, rows, sk_case, result = self.run_local_files([folder])
        self.assertEqual(result, fakes.ProcessResult.OK, R.messages)
        out = os.path.join(self.module_dir, "roo-ingest-40")
        self.assertEqual(R.commands[-1], [common.BINARY, "--force", "-o", out, "--progress=json", "--dir", folder])
        got = [json.loads(line) for line in common.read_lines(out)]
        self.assertGreater(len(got), 100)
        local_path = {r["obj_id"]: r for r in rows}
        custom = [a for a in sk_case.getBlackboard().artifacts if a.artifact_type.getTypeName() != "TSK_TL_EVENT"]
        self.assertEqual(len(custom), len(got))
        for row, art in zip(got, custom):
            f = local_path[art.obj_id]
            # the Autopsy path of the local file: /LogicalFileSet1/linux-ext4 + the row's path in the folder
            self.assertEqual(f["parent_path"] + f["name"], "/LogicalFileSet1/linux-ext4" + row["source"]["path"])
            self.assertEqual(f["type"], 3)
            self.assertEqual(art.attribute("ROO_ATTACHED_BY"), m.ATTACHED_BY_TEXT["path"])
        self.assertIn("%d rows from LogicalFileSet1" % len(got), " ".join(msg[2] for msg in R.messages))

    def test_local_files_with_two_folders_run_twice(self):
        folders = [os.path.join(common.REPO, "fixtures", "trees", t) for t in ("linux-ext4", "macos")]
        ds, rows, sk_case, result = self.run_local_files(folders)
        self.assertEqual(result, fakes.ProcessResult.OK, R.messages)
        runs = [c for c in R.commands if "--dir" in c]
        self.assertEqual([c[c.index("--dir") + 1] for c in runs], folders)
        self.assertEqual([c[c.index("-o") + 1] for c in runs],
                         [os.path.join(self.module_dir, "roo-ingest-40-%d" % i) for i in (1, 2)])
        total = sum(len(common.read_lines(c[c.index("-o") + 1])) for c in runs)
        custom = [a for a in sk_case.getBlackboard().artifacts if a.artifact_type.getTypeName() != "TSK_TL_EVENT"]
        self.assertEqual(len(custom), total)
        self.assertEqual({a.attribute("ROO_ATTACHED_BY") for a in custom}, {m.ATTACHED_BY_TEXT["path"]})

    def test_local_files_without_a_folder_are_skipped(self):
        """Loose files (no folder was added) and other data sources: nothing to run roo-ingest on; said so."""
        ds = fakes.LocalFilesDataSource(9, "loose files", "/", [fakes.LocalFile(10, "x.txt", "/loose files/",
                                                                                 local_abs_path="/tmp/x.txt")])
        _, _, image = self.make_case("demo")
        mod = self.make_module(common.BINARY)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(ds, fakes.ProgressBar()), fakes.ProcessResult.OK)
        self.assertEqual(R.commands, [["%s" % common.BINARY, "--help"]])
        self.assertEqual(R.messages[0][0], "INFO")
        self.assertIn("no folder", R.messages[0][2])

    # -- Windows: roo-ingest through WSL ---------------------------------------------------------------------

    WRAPPER = os.path.join(common.HERE, "wsl_stand_in.sh")

    def wsl_module(self):
        """A module whose command prefix is the committed stand-in for `wsl.exe -d Debian --`, with the drives
        under <tmp>/mnt/ (wsl.conf's automount root) and drive C: there being this machine's /."""
        mount_root = os.path.join(self.tmp, "mnt")
        os.mkdir(mount_root)
        os.symlink("/", os.path.join(mount_root, "c"))
        os.environ["ROO_WRAPPER_LOG"] = os.path.join(self.tmp, "argv.txt")
        factory = module.RooIngestModuleFactory()
        panel = factory.getIngestJobSettingsPanel(factory.getDefaultIngestJobSettings())
        panel.path_field.setText(common.BINARY)
        panel.prefix_field.setText(self.WRAPPER + " -d Debian --")
        panel.mount_root_field.setText(mount_root + "/")
        stored = panel.getSettings().serialised()
        self.assertEqual(stored[m.SETTING_COMMAND_PREFIX], self.WRAPPER + " -d Debian --")
        mod = module.RooIngestModuleFactory().createDataSourceIngestModule(
            fakes.GenericIngestModuleJobSettings.deserialised(stored))
        mod.startUp(fakes.Context())
        return mod, mount_root

    def wrapper_calls(self):
        with open(os.environ["ROO_WRAPPER_LOG"], encoding="utf-8") as f:
            return [block.split("\n") for block in f.read().split("\n\n") if block]

    @staticmethod
    def windows_form(path):
        """How Autopsy on Windows would name this machine's path if / were drive C:."""
        return "C:" + path.replace("/", "\\")

    def test_image_through_wsl(self):
        con, sk_case, image = self.make_case("demo")
        mod, mount_root = self.wsl_module()
        windows = [self.windows_form(p) for p in image.getPaths()]
        result = mod.process(fakes.Image(image.getId(), "demo.E01", windows), fakes.ProgressBar())
        self.assertEqual(result, fakes.ProcessResult.OK, R.messages)
        out = os.path.join(self.module_dir, "roo-ingest-%d" % image.getId())
        linux_image = mount_root + "/c" + image.getPaths()[0]
        self.assertEqual(self.wrapper_calls(), [
            ["-d", "Debian", "--", common.BINARY, "--help"],
            ["-d", "Debian", "--", common.BINARY, "--force", "-o", out, "--progress=json", linux_image]])
        rows = common.read_lines(out)
        custom = [a for a in sk_case.getBlackboard().artifacts if a.artifact_type.getTypeName() != "TSK_TL_EVENT"]
        self.assertEqual(len(custom), len(rows))
        self.assertGreater(len(rows), 100)

    def test_logical_files_through_wsl(self):
        folder = os.path.join(common.REPO, "fixtures", "trees", "linux-ext4")
        mod, mount_root = self.wsl_module()
        ds, rows = fakes.local_files_data_source(40, "LogicalFileSet1", [folder], translate=self.windows_form)
        self.assertTrue(ds.getChildren()[0].getChildren()[0].getChildren()[0].getLocalAbsPath().startswith("C:\\"))
        sk_case = fakes.SleuthkitCase(fakes.rows_lookup(rows))
        fakes.Case.current = fakes.Case(self.module_dir, sk_case)
        self.assertEqual(mod.process(ds, fakes.ProgressBar()), fakes.ProcessResult.OK, R.messages)
        run = self.wrapper_calls()[-1]
        self.assertEqual(run[run.index("--dir") + 1], mount_root + "/c" + folder)
        custom = [a for a in sk_case.getBlackboard().artifacts if a.artifact_type.getTypeName() != "TSK_TL_EVENT"]
        self.assertEqual({a.attribute("ROO_ATTACHED_BY") for a in custom}, {m.ATTACHED_BY_TEXT["path"]})

    def test_paths_wsl_cannot_see_are_an_error(self):
        """A network share (WSL mounts none by itself) or another distribution's files: an error message naming
        the path and saying what to do; roo-ingest is not run."""
        mod, _ = self.wsl_module()
        for path, why in (("\\\\server\\cases\\x.E01", "network share"),
                          ("\\\\wsl$\\Ubuntu\\cases\\x.E01", "distribution Ubuntu")):
            R.reset()
            result = mod.process(fakes.Image(3, "x.E01", [path]), fakes.ProgressBar())
            self.assertEqual(result, fakes.ProcessResult.ERROR)
            self.assertEqual(len(R.messages), 1)
            self.assertEqual(R.messages[0][0], "ERROR")
            self.assertIn(m.html_text(path), R.messages[0][2] + (R.messages[0][3] or ""))
            self.assertIn(why, R.messages[0][2] + (R.messages[0][3] or ""))
        self.assertEqual(len(self.wrapper_calls()), 1)  # only start-up's --help

    def test_missing_binary_stops_start_up(self):
        mod = self.make_module(os.path.join(self.tmp, "no-such-roo-ingest"))
        with self.assertRaises(fakes.IngestModuleException) as e:
            mod.startUp(fakes.Context())
        self.assertIn("no-such-roo-ingest", str(e.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
