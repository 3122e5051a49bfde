# -*- coding: utf-8 -*-
"""Runs the Autopsy module's Python under Jython 2.7 (Autopsy's interpreter) for test_jython.py.

  jython jython_driver.py specs REPO ROWS_JSONL OUT_JSON
      roo_mapping.row_to_spec for every row, as JSON
  jython jython_driver.py module REPO BINARY DS_ID MODULE_DIR LOOKUP_JSON OUT_JSON IMAGE...
      roo_ingest_module's factory, startUp and process with the real java.* classes (ProcessBuilder runs the real
      roo-ingest) and autopsy_fakes for org.sleuthkit.*; what the fake blackboard got, as JSON
Python 2.7 syntax (also valid Python 3).
"""
from __future__ import absolute_import, division, print_function, unicode_literals

import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write_json(path, value):
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    if isinstance(text, bytes):  # Python 2: str
        text = text.decode("ascii")
    with io.open(path, "w", encoding="utf-8") as f:
        f.write(text)


HTML_SAMPLES = ['/cases/Case <b>&"/x', "two\nlines\r\nend", "it's > 5", "", None, 42]


def roo_mapping_html():
    import roo_mapping
    return [roo_mapping.html_text(t) for t in HTML_SAMPLES]


def main(argv):
    mode, repo = argv[1], argv[2]
    sys.path.insert(0, os.path.join(repo, "plugin", "autopsy"))
    sys.path.insert(0, HERE)
    if mode == "specs":
        import roo_mapping
        with io.open(argv[3], "r", encoding="utf-8") as f:
            specs = [spec for _, spec, _ in roo_mapping.iter_specs(f)]
        write_json(argv[4], specs)
        return 0
    if mode == "module":
        import autopsy_fakes as fakes
        fakes.install()
        import roo_ingest_module as module
        binary, ds_id, module_dir, lookup, out = argv[3], int(argv[4]), argv[5], argv[6], argv[7]
        images = argv[8:]
        sk_case = fakes.SleuthkitCase(fakes.table_lookup(lookup))
        fakes.Case.current = fakes.Case(module_dir, sk_case)
        factory = module.RooIngestModuleFactory()
        # (the panel needs a real java.awt.Container under Jython: the settings are set as the panel stores them)
        settings = factory.getDefaultIngestJobSettings()
        settings.setSettings("binary_path", binary)
        if os.environ.get("ROO_TEST_COMMAND_PREFIX"):  # roo-ingest through a command prefix (the WSL stand-in)
            settings.setSettings("command_prefix", os.environ["ROO_TEST_COMMAND_PREFIX"])
            settings.setSettings("wsl_mount_root", os.environ["ROO_TEST_MOUNT_ROOT"])
        stored = settings.serialised()
        # a new factory, as in a later session, gets the settings back from their serialised form
        factory = module.RooIngestModuleFactory()
        mod = factory.createDataSourceIngestModule(fakes.GenericIngestModuleJobSettings.deserialised(stored))
        mod.startUp(fakes.Context())
        image = fakes.Image(ds_id, os.path.basename(images[0]), images)
        result = mod.process(image, fakes.ProgressBar())
        write_json(out, {"result": result, "interpreter": sys.platform,
                         "artifacts": fakes.artifacts_as_json(sk_case.getBlackboard().artifacts),
                         "batches": [list(b) for b in fakes.RECORD.batches],
                         "messages": [list(msg) for msg in fakes.RECORD.messages], "settings": stored,
                         "html": roo_mapping_html(),
                         "reports": [list(r) for r in fakes.RECORD.reports]})
        return 0
    raise SystemExit("unknown mode " + mode)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
