#!/usr/bin/env python3
"""The Slurm engine (plugin/batch/slurm_engine.h) on a real single-node cluster (tests/slurm/cluster.sh, started
by ctest's slurm_cluster fixture, found through SLURM_CONF).

    cluster_test.py Class.test_NAME ... --submit PATH --stand-in PATH --scratch DIR

The arrays are submitted through submit_batch (slurm_submit, its command-line face) with a stand-in for
`roo-ingest --run-item` (stand_in_item.py): the same command lines, the same BATCHDIR, results a test can read.
The end-to-end test with roo-ingest's own --manifest/--run-item/--merge is slurm_batch_e2e_test.py: it skips until the
binary has --manifest, and runs by itself once the batch mode is merged.

Exit status 77 (skipped) when no cluster answers: Slurm is not installed (packaging/install-build-deps.sh installs
it, so CI runs these tests). Every wait has a deadline; no check depends on how fast the cluster is.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

SKIP = 77
DEADLINE = 240  # seconds for a whole array and its merge job: generous, the cluster here takes a few seconds


def slurm(*argv, check=True):
    """A Slurm command, with a timeout; its stdout."""
    proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=60)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr}")
    return proc.stdout


def show_jobs(job_id):
    """`scontrol -o show job ID` as one dict per line (one line per array task), keys as scontrol names them."""
    jobs = []
    for line in slurm("scontrol", "-o", "show", "job", job_id).splitlines():
        fields = {}
        for word in line.split():
            key, sep, value = word.partition("=")
            if sep:
                fields[key] = value
        if fields:
            jobs.append(fields)
    return jobs


def wait_until(what, predicate, deadline=DEADLINE):
    end = time.monotonic() + deadline
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not within {deadline} s")
        time.sleep(0.3)


FINISHED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
            "DEADLINE"}


def wait_finished(job_id):
    """Waits until every line of the job has ended; returns them."""
    return wait_until(f"job {job_id} finished",
                      lambda: (lambda jobs: jobs if jobs and all(j["JobState"] in FINISHED for j in jobs) else None)(
                          show_jobs(job_id)))


class ClusterSubmission(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix=self.id().rsplit(".", 1)[-1] + ".", dir=SCRATCH)

    def tearDown(self):
        # Nothing of this test stays queued for the next one.
        for batch in getattr(self, "batches", []):
            for line in self.queued(batch):
                slurm("scancel", line.split()[0], check=False)
        shutil.rmtree(self.work, ignore_errors=True)

    def manifest(self, count):
        path = os.path.join(self.work, "drives.tsv")
        with open(path, "w") as f:
            f.write("evidence_id\tpath\n")
            for n in range(1, count + 1):
                f.write(f"drive-{n}\t/evidence/drive-{n}.E01\n")
        return path

    def batch(self, *parts):
        path = os.path.join(self.work, *parts)
        self.batches = getattr(self, "batches", []) + [path]
        return path

    def submit(self, manifest, batch, items, throttle=0, fail=(), sleep=0, sbatch=()):
        argv = [SUBMIT, "submit", "--binary", STAND_IN, "--manifest", manifest, "--batch-dir", batch,
                "--items", items, "--throttle", str(throttle)]
        for option in sbatch:
            argv += ["--sbatch-option", option]
        argv += ["--"] + [a for n in fail for a in ("--fail-item", str(n))] + ["--sleep", str(sleep)]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=180)
        return proc.returncode, proc.stdout, proc.stderr

    def submitted(self, stdout):
        """{"array": id, "merge": id, "spec": spec} from slurm_submit's line."""
        self.assertTrue(stdout.startswith("submitted "), stdout)
        return dict(word.split("=", 1) for word in stdout.split()[1:])

    def queued(self, batch):
        proc = subprocess.run([SUBMIT, "queued", batch], capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout.splitlines()

    def results(self, batch):
        folder = os.path.join(batch, "results")
        found = {}
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.endswith(".json"):
                with open(os.path.join(folder, name)) as f:
                    found[int(name[:-5])] = json.load(f)
        return found

    def merge_record(self, batch, merge_id):
        with open(os.path.join(batch, "merges", merge_id + ".json")) as f:
            return json.load(f)

    def recorded_submissions(self, batch):
        with open(os.path.join(batch, "slurm", "submissions.tsv")) as f:
            return [line.rstrip("\n").split("\t") for line in f]

    def test_available(self):
        self.assertEqual(subprocess.run([SUBMIT, "available"], timeout=60).returncode, 0)

    def test_throttled_array_and_afterany_merge_after_a_failed_task(self):
        manifest, batch = self.manifest(5), self.batch("out")
        rc, out, err = self.submit(manifest, batch, "1-5", throttle=2, fail=[3], sleep=1)
        self.assertEqual(rc, 0, out + err)
        ids = self.submitted(out)
        self.assertEqual(ids["spec"], "1-5%2")
        # The throttle is Slurm's own: scontrol shows it on the array's pending part as long as one is pending.
        shown = show_jobs(ids["array"])
        throttles = {j.get("ArrayTaskThrottle") for j in shown if "ArrayTaskThrottle" in j}
        self.assertTrue(throttles <= {"2"} and (throttles or all(j["JobState"] != "PENDING" for j in shown)), shown)
        merge_job = show_jobs(ids["merge"])[0]
        self.assertEqual(merge_job["JobName"], "out.merge")
        self.assertTrue(merge_job["Dependency"].startswith("afterany:" + ids["array"]) or
                        merge_job["JobState"] != "PENDING", merge_job)

        merge_job = wait_finished(ids["merge"])[0]
        self.assertEqual(merge_job["JobState"], "COMPLETED")  # it ran although task 3 failed: afterany
        tasks = {int(j["ArrayTaskId"]): j for j in wait_finished(ids["array"])}
        self.assertEqual(sorted(tasks), [1, 2, 3, 4, 5])
        self.assertEqual(tasks[3]["JobState"], "FAILED")
        self.assertEqual(tasks[3]["ExitCode"], "3:0")
        for n in (1, 2, 4, 5):
            self.assertEqual(tasks[n]["JobState"], "COMPLETED")

        results = self.results(batch)
        self.assertEqual(sorted(results), [1, 2, 4, 5])
        for n, result in results.items():
            self.assertEqual(result["evidence_id"], f"drive-{n}")  # SLURM_ARRAY_TASK_ID picked the line
            self.assertEqual(result["task"], str(n))
            self.assertEqual(result["array_job"], ids["array"])
        # Never more than 2 at once: each result's interval lies inside its task's run, which the throttle bounds.
        edges = sorted([(r["started"], 1) for r in results.values()] + [(r["ended"], -1) for r in results.values()],
                       key=lambda edge: (edge[0], edge[1]))
        running, most = 0, 0
        for _, step in edges:
            running += step
            most = max(most, running)
        self.assertLessEqual(most, 2)

        record = self.merge_record(batch, ids["merge"])
        self.assertEqual(record["found"], [1, 2, 4, 5])
        self.assertEqual(record["missing"], [3])
        self.assertGreaterEqual(record["started"], max(r["ended"] for r in results.values()))

        self.assertEqual([line[1:] for line in self.recorded_submissions(batch)],
                         [[ids["array"], ids["merge"], "1-5%2"]])
        with open(os.path.join(batch, "slurm", "logs", f"{ids['array']}_3.out")) as f:
            self.assertIn("item 3 fails as asked", f.read())
        self.assertTrue(os.access(os.path.join(batch, "slurm", "items.sh"), os.X_OK))
        self.assertEqual(self.queued(batch), [])

    def test_cancelled_task_is_resubmitted_alone(self):
        manifest, batch = self.manifest(4), self.batch("out")
        rc, out, err = self.submit(manifest, batch, "1-4", throttle=1, sleep=3)
        self.assertEqual(rc, 0, out + err)
        first = self.submitted(out)
        self.assertEqual(first["spec"], "1-4%1")
        # A drive's task killed while it runs: the one running task (the throttle allows one), while task 4 still
        # waits, so the array is surely not over.
        def running_task():
            lines = [line.split() for line in self.queued(batch)]
            running = [int(w[1]) for w in lines if w[2] == "RUNNING" and w[3] == "items"]
            waiting = any(w[1] == "4" and w[2] == "PENDING" for w in lines)
            return running[0] if len(running) == 1 and waiting else None
        cancelled = wait_until("a task running while task 4 waits", running_task)
        slurm("scancel", f"{first['array']}_{cancelled}")

        wait_finished(first["merge"])
        tasks = {int(j["ArrayTaskId"]): j["JobState"] for j in wait_finished(first["array"])}
        self.assertEqual(tasks, {n: "CANCELLED" if n == cancelled else "COMPLETED" for n in range(1, 5)})
        self.assertEqual(self.merge_record(batch, first["merge"])["missing"], [cancelled])

        # What the batch mode does on a rerun: only the items without a result.
        missing = [n for n in range(1, 5) if n not in self.results(batch)]
        self.assertEqual(missing, [cancelled])
        rc, out, err = self.submit(manifest, batch, str(cancelled), throttle=1, sleep=0)
        self.assertEqual(rc, 0, out + err)
        second = self.submitted(out)
        self.assertEqual(second["spec"], f"{cancelled}%1")
        wait_finished(second["merge"])
        self.assertEqual([int(j["ArrayTaskId"]) for j in show_jobs(second["array"])], [cancelled])

        record = self.merge_record(batch, second["merge"])
        self.assertEqual((record["found"], record["missing"]), ([1, 2, 3, 4], []))
        results = self.results(batch)
        self.assertEqual({n: r["array_job"] for n, r in results.items()},
                         {n: second["array"] if n == cancelled else first["array"] for n in range(1, 5)})
        self.assertEqual([line[1:] for line in self.recorded_submissions(batch)],
                         [[first["array"], first["merge"], "1-4%1"],
                          [second["array"], second["merge"], f"{cancelled}%1"]])

    def test_refused_while_an_array_of_the_same_batch_is_queued(self):
        manifest = self.manifest(3)
        # Two batch folders of the same name: the same job name, told apart by the comment.
        batch, other = self.batch("case-a", "out"), self.batch("case-b", "out")
        rc, out, err = self.submit(manifest, batch, "1-3", throttle=1, sleep=30)
        self.assertEqual(rc, 0, out + err)
        first = self.submitted(out)

        rc, out, err = self.submit(manifest, batch, "3", throttle=1)
        self.assertEqual(rc, 3, out + err)
        self.assertIn("still queued or running", out)
        blocking = [line.split()[1] for line in out.splitlines() if line.startswith("blocking ")]
        self.assertIn(f"{first['array']}_3", blocking)
        self.assertIn(first["merge"], blocking)
        self.assertEqual(len(self.recorded_submissions(batch)), 1)  # nothing more was submitted

        rc, out, err = self.submit(manifest, other, "1", throttle=1)
        self.assertEqual(rc, 0, out + err)
        self.submitted(out)

        # Once the batch's jobs are gone, it may be submitted again.
        slurm("scancel", first["array"], first["merge"])
        wait_until("the batch's jobs gone", lambda: self.queued(batch) == [])
        rc, out, err = self.submit(manifest, batch, "3", throttle=1)
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.submitted(out)["spec"], "3%1")

    def test_sbatch_options_pass_through(self):
        manifest, batch = self.manifest(1), self.batch("out")
        rc, out, err = self.submit(manifest, batch, "1", sbatch=["--time=00:05:00", "--mem=100M", "-p", "test"],
                                   sleep=5)
        self.assertEqual(rc, 0, out + err)
        ids = self.submitted(out)
        for job_id in (ids["array"], ids["merge"]):
            job = show_jobs(job_id)[0]
            self.assertEqual(job["TimeLimit"], "00:05:00", job)
            self.assertEqual(job["Partition"], "test", job)
            self.assertEqual(job["MinMemoryNode"], "100M", job)
        wait_finished(ids["merge"])

        # A partition the cluster does not have: sbatch's own words, and nothing queued or recorded.
        bad = self.batch("bad")
        rc, out, err = self.submit(manifest, bad, "1", sbatch=["--partition=nosuch"])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("sbatch (the array) exited 1", out)
        self.assertIn("Invalid partition name", out)  # sbatch: error: Batch job submission failed: Invalid ...
        self.assertEqual(self.queued(bad), [])
        self.assertFalse(os.path.exists(os.path.join(bad, "slurm", "submissions.tsv")))

        # An option the engine sets itself is refused before Slurm is asked.
        rc, out, err = self.submit(manifest, bad, "1", sbatch=["--array=1-9"])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("cannot be passed through", out)


if __name__ == "__main__":
    args = sys.argv[1:]
    flags = {}
    for flag in ("--submit", "--stand-in", "--scratch"):
        flags[flag] = os.path.abspath(args[args.index(flag) + 1])
    SUBMIT, STAND_IN, SCRATCH = flags["--submit"], flags["--stand-in"], flags["--scratch"]
    os.makedirs(SCRATCH, exist_ok=True)
    if not os.environ.get("SLURM_CONF") or not shutil.which("sbatch") or \
            subprocess.run([SUBMIT, "available"], timeout=60).returncode != 0:
        print("no Slurm cluster answers (SLURM_CONF unset, or Slurm not installed): skipped")
        sys.exit(SKIP)
    names = [a for a in args if a.startswith("ClusterSubmission.")]
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromName(n, sys.modules[__name__]) for n in names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
