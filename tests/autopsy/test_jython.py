#!/usr/bin/env python3
"""The Autopsy module's Python under Jython 2.7, the interpreter Autopsy runs it with (Debian package `jython`).

1. roo_mapping.py gives the same spec for every real row under Jython as under CPython 3.
2. roo_ingest_module.py runs under Jython with the real java.lang.ProcessBuilder / java.io.File / java.util classes
   (roo-ingest really runs), the fake org.sleuthkit.* of autopsy_fakes.py and file lookups answered from a real
   tsk_loaddb case database; the fake blackboard ends up holding exactly what the same run under CPython gives.

Exits 77 (ctest: skipped) when `jython` is not installed.

usage: test_jython.py [unittest args] --binary PATH --repo PATH
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

import common

common.parse_args()
JYTHON = shutil.which("jython")
if not JYTHON:
    print("SKIP: jython is not installed (Debian package jython); the Jython checks did not run")
    sys.exit(77)

sys.path.insert(0, common.HERE)
import autopsy_fakes as fakes  # noqa: E402

fakes.install()
import roo_ingest_module as module  # noqa: E402
import roo_mapping as m  # noqa: E402

DRIVER = os.path.join(common.HERE, "jython_driver.py")


def jython(*args):
    proc = subprocess.run([JYTHON, DRIVER, *args], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError("jython %s exited %d:\n%s%s" % (args[0], proc.returncode, proc.stdout, proc.stderr))
    return proc


class UnderJython(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-autopsy-jython-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_mapping_is_the_same_under_jython(self):
        for name, flags in (("demo", ["--native"]), ("macos-fat", [])):
            out = common.run_tool(common.image_paths(name), os.path.join(self.tmp, name), *flags)
            rows_path = os.path.join(out, "rows.jsonl")
            with open(rows_path, encoding="utf-8") as f:
                ours = [spec for _, spec, _ in m.iter_specs(f)]
            theirs_path = os.path.join(self.tmp, name + ".specs.json")
            jython("specs", common.REPO, rows_path, theirs_path)
            with open(theirs_path, encoding="utf-8") as f:
                theirs = json.load(f)
            self.assertEqual(len(theirs), len(ours))
            self.assertGreater(len(ours), 10)
            ours = json.loads(json.dumps(ours, sort_keys=True))  # tuples as lists, as Jython's JSON has them
            for i, (a, b) in enumerate(zip(ours, theirs)):
                self.assertEqual(a, b, "%s row %d differs under Jython" % (name, i))

    def test_module_runs_under_jython(self):
        image = common.image_paths("demo")
        db = common.tsk_loaddb(image[0], os.path.join(self.tmp, "case.db"))
        con = sqlite3.connect(db)
        ds_id = con.execute("SELECT obj_id FROM tsk_image_info").fetchone()[0]

        # CPython: the module with the fakes, java.* faked too
        fakes.RECORD.reset()
        sk_case = fakes.SleuthkitCase(fakes.sqlite_lookup(db))
        cpython_dir = os.path.join(self.tmp, "cpython")
        os.mkdir(cpython_dir)
        fakes.Case.current = fakes.Case(cpython_dir, sk_case)
        factory = module.RooIngestModuleFactory()
        settings = factory.getDefaultIngestJobSettings()
        settings.setSettings(m.SETTING_BINARY_PATH, common.BINARY)
        mod = factory.createDataSourceIngestModule(settings)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(fakes.Image(ds_id, "demo.E01", image), fakes.ProgressBar()), "OK")
        expected = fakes.artifacts_as_json(sk_case.getBlackboard().artifacts)
        expected_batches = [list(b) for b in fakes.RECORD.batches]

        # the answers findAllFilesWhere gave, for Jython (which has no sqlite3)
        lookup = fakes.sqlite_lookup(db)
        table = {where: lookup(where) for where in sk_case.queries}
        table_path = os.path.join(self.tmp, "lookups.json")
        with open(table_path, "w", encoding="utf-8") as f:
            json.dump(table, f)

        jython_dir = os.path.join(self.tmp, "jython")
        os.mkdir(jython_dir)
        result_path = os.path.join(self.tmp, "jython-result.json")
        jython("module", common.REPO, common.BINARY, str(ds_id), jython_dir, table_path, result_path, *image)
        with open(result_path, encoding="utf-8") as f:
            got = json.load(f)
        self.assertTrue(got["interpreter"].startswith("java"), got["interpreter"])
        self.assertEqual(got["result"], "OK", got["messages"])
        self.assertTrue(os.path.isfile(os.path.join(jython_dir, "roo-ingest-%d" % ds_id, "rows.jsonl")))
        self.assertGreater(len(got["artifacts"]), 500)
        self.assertEqual(len(got["artifacts"]), len(expected))
        for i, (a, b) in enumerate(zip(json.loads(json.dumps(expected)), got["artifacts"])):
            self.assertEqual(a, b, "artifact %d differs under Jython" % i)
        self.assertEqual(got["batches"], expected_batches)
        self.assertEqual(len(got["reports"]), 1)
        # the settings panel's choice, through the serialised form, under Jython
        self.assertEqual(got["settings"], {m.SETTING_BINARY_PATH: common.BINARY, m.SETTING_NATIVE: "false",
                                           m.SETTING_COMMAND_PREFIX: "", m.SETTING_MOUNT_ROOT: "/mnt/"})
        # inbox text escaped as under CPython
        import jython_driver
        self.assertEqual(got["html"], [m.html_text(t) for t in jython_driver.HTML_SAMPLES])
        self.assertEqual(got["html"][0], "/cases/Case &lt;b&gt;&amp;&quot;/x")


    def test_module_runs_through_the_wsl_stand_in_under_jython(self):
        """Under Jython with the real ProcessBuilder: the command prefix (the committed stand-in for
        `wsl.exe -d Debian --`) really runs, and roo-ingest gets the image's Windows path translated."""
        image = common.image_paths("macos-fat")
        db = common.tsk_loaddb(image[0], os.path.join(self.tmp, "case.db"))
        ds_id = sqlite3.connect(db).execute("SELECT obj_id FROM tsk_image_info").fetchone()[0]
        fakes.RECORD.reset()
        sk_case = fakes.SleuthkitCase(fakes.sqlite_lookup(db))
        fakes.Case.current = fakes.Case(self.tmp, sk_case)
        settings = module.RooIngestModuleFactory().getDefaultIngestJobSettings()
        settings.setSettings(m.SETTING_BINARY_PATH, common.BINARY)
        mod = module.RooIngestModuleFactory().createDataSourceIngestModule(settings)
        mod.startUp(fakes.Context())
        self.assertEqual(mod.process(fakes.Image(ds_id, "macos-fat.E01", image), fakes.ProgressBar()), "OK")
        table = {where: fakes.sqlite_lookup(db)(where) for where in sk_case.queries}
        table_path = os.path.join(self.tmp, "lookups.json")
        with open(table_path, "w", encoding="utf-8") as f:
            json.dump(table, f)
        mount_root = os.path.join(self.tmp, "mnt")
        os.mkdir(mount_root)
        os.symlink("/", os.path.join(mount_root, "c"))
        log = os.path.join(self.tmp, "argv.txt")
        wrapper = os.path.join(common.HERE, "wsl_stand_in.sh")
        jython_dir = os.path.join(self.tmp, "jython")
        os.mkdir(jython_dir)
        result_path = os.path.join(self.tmp, "jython-result.json")
        env = dict(os.environ, ROO_WRAPPER_LOG=log, ROO_TEST_COMMAND_PREFIX=wrapper + " -d Debian --",
                   ROO_TEST_MOUNT_ROOT=mount_root + "/")
        proc = subprocess.run([JYTHON, DRIVER, "module", common.REPO, common.BINARY, str(ds_id), jython_dir,
                               table_path, result_path, "C:" + image[0].replace("/", "\\")],
                              capture_output=True, text=True, timeout=600, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(result_path, encoding="utf-8") as f:
            got = json.load(f)
        self.assertEqual(got["result"], "OK", got["messages"])
        self.assertEqual(len(got["artifacts"]), len(sk_case.getBlackboard().artifacts))
        with open(log, encoding="utf-8") as f:
            calls = [b.split("\n") for b in f.read().split("\n\n") if b]
        self.assertEqual(calls[0], ["-d", "Debian", "--", common.BINARY, "--help"])
        self.assertEqual(calls[1][-1], mount_root + "/c" + image[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
