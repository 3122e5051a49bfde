#!/usr/bin/env python3
"""Counts the case-database transactions and blackboard posts the Autopsy module makes, run under the stand-ins
(autopsy_fakes.py) with the real roo-ingest: on an image (a tsk_loaddb case database answers the file lookups) or
on a folder added as logical files. Prints one line per run; it asserts nothing (the figures for docs/autopsy.md).

usage: measure_transactions.py --binary PATH --repo PATH (--image FILE... | --dir FOLDER)
"""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--image", nargs="+")
    ap.add_argument("--dir")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.repo, "plugin", "autopsy"))
    sys.path.insert(0, HERE)
    import autopsy_fakes as fakes
    fakes.install()
    import roo_ingest_module as module
    import roo_mapping

    tmp = tempfile.mkdtemp(prefix="roo-autopsy-measure-")
    try:
        if args.image:
            db = os.path.join(tmp, "case.db")
            subprocess.run(["tsk_loaddb", "-d", db, args.image[0]], check=True, capture_output=True)
            ds_id = sqlite3.connect(db).execute("SELECT obj_id FROM tsk_image_info").fetchone()[0]
            data_source = fakes.Image(ds_id, os.path.basename(args.image[0]), args.image)
            lookup = fakes.sqlite_lookup(db)
        else:
            data_source, rows = fakes.local_files_data_source(1, "LogicalFileSet1", [os.path.abspath(args.dir)])
            lookup = fakes.rows_lookup(rows)
        sk_case = fakes.SleuthkitCase(lookup)
        fakes.Case.current = fakes.Case(tmp, sk_case)
        factory = module.RooIngestModuleFactory()
        settings = factory.getDefaultIngestJobSettings()
        settings.setSettings(roo_mapping.SETTING_BINARY_PATH, os.path.abspath(args.binary))
        mod = factory.createDataSourceIngestModule(settings)
        mod.startUp(fakes.Context())
        result = mod.process(data_source, fakes.ProgressBar())
        r = fakes.RECORD
        kinds = [k for k, _ in r.transactions]
        print("%s: %s; %d rows, %d artifacts; %d transactions (%d in batches, %d one per artifact); %d posts" % (
            data_source.getName(), result, mod.counts.get("rows", 0), len(sk_case.getBlackboard().artifacts),
            len(kinds), kinds.count("explicit"), kinds.count("implicit"), len(r.batches)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
