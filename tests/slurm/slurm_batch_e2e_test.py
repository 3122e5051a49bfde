#!/usr/bin/env python3
"""roo-ingest's batch mode on the real single-node cluster (tests/slurm/cluster.sh, ctest's slurm_cluster
fixture), end to end: `roo-ingest --manifest M -o B --engine slurm` with roo-ingest's own --run-item and --merge
in the array tasks and the merge job (plugin/batch/batch.h has the contract, plugin/batch/slurm_engine.h the
submission).

    slurm_batch_e2e_test.py BatchOnSlurm.test_NAME ... --binary ROO_INGEST --submit SLURM_SUBMIT --repo REPO \
        --scratch DIR --shim TSK_READ_SHIM

Exit status 77 (skipped) while the binary has no --manifest (before the batch mode is merged) or no cluster answers,
so it turns on by itself once both are there. What it checks does not depend on the names of the case's fields:
  - the Slurm engine gives the same case as the local engine: the same done and failed markers, and case.rows.jsonl
    with the same bytes once each batch folder's own path is written as BATCHDIR;
  - a cancelled array task (scancel <job>_<index>) leaves its item missing, the same command run again submits that
    index alone, and the case is then identical to the uninterrupted run's.
  - a rerun submits only the items without a done marker: the missing path, whose exit code 3 is not terminal.
  - --status (and --status --json) lists the items whose array task squeue shows pending (queued, with Slurm's
    reason: held, throttled) or running, and the merge job; while they are queued neither engine starts the batch
    again; once they are cancelled the items are missing.
The manifest holds fixture images, a file that is no image and a path that is missing.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

SKIP = 77
DEADLINE = 600  # seconds for a whole batch on the cluster: generous; no check depends on how fast it is


def wait_until(what, predicate, deadline=DEADLINE):
    end = time.monotonic() + deadline
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not within {deadline} s")
        time.sleep(0.3)


class BatchOnSlurm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="batch_e2e.", dir=SCRATCH)
        evidence = os.path.join(cls.work, "evidence")
        os.makedirs(evidence)
        not_an_image = os.path.join(evidence, "notes.txt")
        with open(not_an_image, "w") as f:
            f.write("this is a text file, no disk image\n" * 100)
        images = os.path.join(REPO, "fixtures", "images")
        cls.manifest = os.path.join(cls.work, "drives.tsv")
        with open(cls.manifest, "w") as f:
            f.write("evidence_id\tpath\n")
            f.write(f"demo\t{images}/demo.E01\n")
            f.write(f"recovery-ext4\t{images}/recovery-ext4.E01\n")
            f.write(f"deleted-ntfs\t{images}/deleted-ntfs.E01\n")
            f.write(f"notes\t{not_an_image}\n")
            f.write(f"gone\t{evidence}/no-such-drive.E01\n")
            f.write(f"macos-fat\t{images}/macos-fat.E01\n")
        cls.items = 6
        # The uninterrupted runs every test compares with, one per engine.
        cls.local = cls.batch_dir("local")
        cls.run_tool(cls.local, "--engine", "local", "--parallel", "2")
        cls.slurm = cls.batch_dir("slurm")
        cls.run_on_slurm(cls.slurm, "--parallel", "2")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def batch_dir(cls, name):
        return os.path.join(cls.work, "batches", name)

    @classmethod
    def run_tool(cls, batch, *args, check=True):
        proc = subprocess.run([BINARY, "--manifest", cls.manifest, "-o", batch, *args],
                              capture_output=True, text=True, timeout=DEADLINE)
        if check and proc.returncode not in (0, 5, 6, 7):
            raise AssertionError(f"roo-ingest exited {proc.returncode}: {proc.stderr}")
        return proc

    @classmethod
    def queued(cls, batch):
        proc = subprocess.run([SUBMIT, "queued", batch], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise AssertionError(proc.stderr)
        return proc.stdout.splitlines()

    @classmethod
    def run_on_slurm(cls, batch, *args):
        """Submits the batch and waits until none of its jobs (array or merge) is queued or running."""
        proc = cls.run_tool(batch, "--engine", "slurm", *args)
        wait_until(f"the batch {batch} has ended", lambda: cls.queued(batch) == [])
        return proc

    @staticmethod
    def submissions(batch):
        with open(os.path.join(batch, "slurm", "submissions.tsv")) as f:
            return [line.rstrip("\n").split("\t") for line in f]

    @staticmethod
    def markers(batch):
        return sorted(os.path.relpath(p, batch) for p in glob.glob(os.path.join(batch, "markers", "*.json")))

    @staticmethod
    def case_rows(batch):
        with open(os.path.join(batch, "case.rows.jsonl"), "rb") as f:
            return f.read().replace(os.fsencode(batch), b"BATCHDIR")

    def test_slurm_case_equals_local_case(self):
        self.assertEqual(self.submissions(self.slurm)[0][3], f"1-{self.items}%2")
        self.assertEqual(self.markers(self.slurm), self.markers(self.local))
        done = [m for m in self.markers(self.slurm) if m.endswith(".done.json")]
        for item in ("demo", "recovery-ext4", "deleted-ntfs", "macos-fat"):
            self.assertIn(f"markers/{item}.done.json", done)
        self.assertNotIn("markers/gone.done.json", done)
        rows = self.case_rows(self.slurm)
        self.assertGreater(rows.count(b"\n"), 0)
        self.assertEqual(rows, self.case_rows(self.local))

    def test_cancelled_task_is_resubmitted_alone_and_the_case_is_complete(self):
        batch = self.batch_dir("cancelled")
        # One task at a time: the last item waits behind the others, so it is surely still pending when cancelled.
        self.run_tool(batch, "--engine", "slurm", "--parallel", "1")
        array_job = self.submissions(batch)[0][1]
        last = self.items
        subprocess.run(["scancel", f"{array_job}_{last}"], check=True, timeout=60)
        wait_until("the batch has ended", lambda: self.queued(batch) == [])
        self.assertNotIn("markers/macos-fat.done.json", self.markers(batch))
        status = self.run_tool(batch, "--status", check=False)
        self.assertIn("macos-fat", status.stdout)

        self.run_on_slurm(batch, "--parallel", "1")
        # The cancelled item alone, beside item 5, the missing path, which never gets a marker (its exit code 3 is
        # not terminal) and so is tried again by every run.
        self.assertEqual([s[3] for s in self.submissions(batch)], [f"1-{self.items}%1", f"5-{last}%1"])
        self.assertEqual(self.markers(batch), self.markers(self.slurm))
        self.assertEqual(self.case_rows(batch), self.case_rows(self.slurm))

    def test_rerun_submits_only_the_item_without_a_marker(self):
        batch = self.batch_dir("slurm")
        before = self.submissions(batch)
        rows = self.case_rows(batch)
        self.run_on_slurm(batch, "--parallel", "2")
        after = self.submissions(batch)
        self.assertEqual(after[:len(before)], before)
        self.assertEqual([s[3] for s in after[len(before):]], ["5%2"])  # the missing path, item 5, alone
        self.assertEqual(self.case_rows(batch), rows)

    def test_status_shows_slurms_queued_and_running_tasks_and_a_second_start_is_refused(self):
        images = os.path.join(REPO, "fixtures", "images")
        manifest = os.path.join(self.work, "three.tsv")
        with open(manifest, "w") as f:
            f.write("evidence_id\tpath\n")
            for name in ("demo", "recovery-ext4", "deleted-ntfs"):
                f.write(f"{name}\t{images}/{name}.E01\n")
        batch = self.batch_dir("status")

        def tool(*args, check=True):
            proc = subprocess.run([BINARY, "--manifest", manifest, "-o", batch, *args], capture_output=True, text=True,
                                  timeout=DEADLINE)
            if check and proc.returncode != 0:
                raise AssertionError(f"roo-ingest {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
            return proc

        def status():
            return json.loads(tool("--status", "--json").stdout)

        # One task at a time, each libtsk file read made slow (tests/plugin/tsk_read_shim.c) through the lab's own
        # sbatch options, so item 1 surely runs while items 2 and 3 wait (for minutes; it is cancelled long before);
        # item 3 is also held. A hold by root is an administrator's: Slurm's reason is then JobHeldAdmin.
        tool("--engine", "slurm", "--parallel", "1",
             f"--sbatch-options=--export=ALL,LD_PRELOAD={SHIM},ROO_SHIM_SLOW_MS=1000")
        array_job, merge_job = self.submissions(batch)[0][1:3]
        try:
            subprocess.run(["scontrol", "hold", f"{array_job}_3"], check=True, timeout=60)
            held = "JobHeldAdmin" if os.getuid() == 0 else "JobHeldUser"
            wait_until("task 1 running, task 3 held",
                       lambda: {f"{array_job}_1 1 RUNNING items None", f"{array_job}_3 3 PENDING items {held}"}
                       <= set(self.queued(batch)))
            st = status()
            items = {i["evidence_id"]: i for i in st["items"]}
            self.assertEqual({k: v for k, v in st["counts"].items() if v}, {"queued": 2, "running": 1})
            # Nothing marked since the submission: no rows yet and no pace to estimate from.
            self.assertEqual((st["rows"], st["eta_seconds"]), (0, None))
            self.assertEqual((items["demo"]["status"], items["demo"]["slurm_task"]["job_id"],
                              items["demo"]["slurm_task"]["state"]), ("running", f"{array_job}_1", "RUNNING"))
            self.assertEqual((items["recovery-ext4"]["status"], items["recovery-ext4"]["slurm_task"]["job_id"],
                              items["recovery-ext4"]["slurm_task"]["state"]), ("queued", f"{array_job}_2", "PENDING"))
            self.assertEqual((items["deleted-ntfs"]["status"], items["deleted-ntfs"]["slurm_task"]["reason"]),
                             ("queued", held))
            self.assertIn(held, items["deleted-ntfs"]["why"])
            self.assertEqual([(j["job_id"], j["state"], j["reason"]) for j in st["slurm"]["merge_jobs"]],
                             [(merge_job, "PENDING", "Dependency")])
            self.assertIsNone(st["slurm"]["error"])
            table = tool("--status").stdout
            self.assertIn("3 items: 0 done, 0 partial, 0 failed, 2 queued, 1 running, 0 missing; 0 rows so far\n", table)
            self.assertIn(f"merge job {merge_job} PENDING (Dependency)", table)
            self.assertRegex(table, rf"3  deleted-ntfs +queued +Slurm job {array_job}_3 PENDING \({held}\)")

            # While the array is queued, neither engine starts the batch again, and nothing more is submitted.
            for engine in ("slurm", "local"):
                proc = tool("--engine", engine, "--parallel", "1", check=False)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("still queued or running", proc.stderr)
            self.assertEqual(len(self.submissions(batch)), 1)
        finally:
            subprocess.run(["scancel", array_job, merge_job], timeout=60)
        wait_until("the batch's jobs gone", lambda: self.queued(batch) == [])
        # The running task was killed before its item ended, the others never ran: all three missing, from the
        # markers alone now that Slurm lists nothing.
        st = status()
        self.assertEqual({i["evidence_id"]: (i["status"], i["slurm_task"]) for i in st["items"]},
                         {"demo": ("missing", None), "recovery-ext4": ("missing", None),
                          "deleted-ntfs": ("missing", None)})
        self.assertEqual(st["slurm"], {"error": None, "merge_jobs": []})
        # And the batch may be started again. Its last task held until the first two are marked: the status then
        # adds their rows and estimates the one left at the pace of those two since this submission.
        tool("--engine", "slurm", "--parallel", "1")
        array_job, merge_job = self.submissions(batch)[1][1:3]
        try:
            subprocess.run(["scontrol", "hold", f"{array_job}_3"], check=True, timeout=60)
            wait_until("two items done, the third held",
                       lambda: {k: v for k, v in status()["counts"].items() if v} == {"done": 2, "queued": 1})
            st = status()
            marked = [i for i in st["items"] if i["status"] == "done"]
            self.assertEqual(st["rows"], sum(i["rows"] for i in marked))
            self.assertGreater(st["rows"], 0)
            self.assertIsInstance(st["eta_seconds"], (int, float))
            self.assertGreaterEqual(st["eta_seconds"], 0)
            self.assertRegex(tool("--status").stdout.splitlines()[0],
                             rf"; {st['rows']} rows so far; ETA \d+ s \(2 item\(s\) marked since the latest submission\)$")
            subprocess.run(["scontrol", "release", f"{array_job}_3"], check=True, timeout=60)
            wait_until("the batch has ended", lambda: self.queued(batch) == [])
        finally:
            subprocess.run(["scancel", array_job, merge_job], timeout=60)
        self.assertEqual([s[3] for s in self.submissions(batch)], ["1-3%1", "1-3%1"])
        st = status()
        self.assertEqual((st["counts"]["done"], st["eta_seconds"]), (3, None), json.dumps(st))


def main():
    global BINARY, SUBMIT, REPO, SCRATCH, SHIM
    args = sys.argv[1:]
    BINARY, SUBMIT, REPO, SCRATCH, SHIM = (os.path.abspath(args[args.index(flag) + 1])
                                           for flag in ("--binary", "--submit", "--repo", "--scratch", "--shim"))
    help_text = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=60).stdout
    if "--manifest" not in help_text:
        print("roo-ingest has no --manifest yet (the batch mode is not in this build): skipped")
        return SKIP
    if not os.environ.get("SLURM_CONF") or not shutil.which("sbatch") or \
            subprocess.run([SUBMIT, "available"], timeout=60).returncode != 0:
        print("no Slurm cluster answers (SLURM_CONF unset, or Slurm not installed): skipped")
        return SKIP
    os.makedirs(SCRATCH, exist_ok=True)
    names = [a for a in args if a.startswith("BatchOnSlurm.")]
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromName(n, sys.modules[__name__]) for n in names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
