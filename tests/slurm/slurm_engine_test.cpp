// The pure part of the Slurm engine (plugin/batch/slurm_engine.h), against hand-written expectations, and
// run_command on real programs (sh, sleep). The submission itself is tested on a real cluster in
// tests/slurm/cluster_test.py.
#include "plugin/batch/slurm_engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace roo::slurm {
namespace {

using namespace std::chrono_literals;

TEST(ArraySpec, CompressesRunsAndSingles) {
  EXPECT_EQ(compress_array_indices({3, 7, 8, 9}), "3,7-9");
  EXPECT_EQ(compress_array_indices({1}), "1");
  EXPECT_EQ(compress_array_indices({1, 2}), "1-2");
  EXPECT_EQ(compress_array_indices({1, 3, 5}), "1,3,5");
  EXPECT_EQ(compress_array_indices({1, 2, 3, 5, 6, 10, 12, 13, 14}), "1-3,5-6,10,12-14");
  EXPECT_EQ(compress_array_indices({0, 1, 1000}), "0-1,1000");
  EXPECT_EQ(compress_array_indices({}), "");
}

TEST(ArraySpec, RefusesUnsortedRepeatedOrNegative) {
  EXPECT_EQ(compress_array_indices({3, 2}), std::nullopt);
  EXPECT_EQ(compress_array_indices({2, 2}), std::nullopt);
  EXPECT_EQ(compress_array_indices({-1, 2}), std::nullopt);
  EXPECT_EQ(compress_array_indices({1, 5, 4}), std::nullopt);
}

TEST(ArraySpec, ExpandsWhatSqueuePrints) {
  EXPECT_EQ(expand_array_spec("3,7-9"), (std::vector<int>{3, 7, 8, 9}));
  EXPECT_EQ(expand_array_spec("5-9%2"), (std::vector<int>{5, 6, 7, 8, 9}));
  EXPECT_EQ(expand_array_spec("1-7:3"), (std::vector<int>{1, 4, 7}));
  EXPECT_EQ(expand_array_spec("12"), (std::vector<int>{12}));
  EXPECT_EQ(expand_array_spec(""), std::nullopt);
  EXPECT_EQ(expand_array_spec("N/A"), std::nullopt);
  EXPECT_EQ(expand_array_spec("9-5"), std::nullopt);
  EXPECT_EQ(expand_array_spec("1-3%"), std::nullopt);
  EXPECT_EQ(expand_array_spec("1,,2"), std::nullopt);
  EXPECT_EQ(expand_array_spec("1-5:0"), std::nullopt);
  EXPECT_EQ(expand_array_spec("0-2147483647"), std::nullopt);  // more than Slurm could ever hold
}

TEST(Names, JobNameAndCommentOfABatchFolder) {
  EXPECT_EQ(batch_job_name("/cases/2026-117/batch one"), "batch_one");
  EXPECT_EQ(batch_job_name("/cases/b,1|x/"), "b_1_x");
  EXPECT_EQ(batch_job_name("/cases/é"), "roo-batch");  // two bytes, neither kept
  EXPECT_EQ(batch_job_name("/cases/" + std::string(100, 'a')), std::string(64, 'a'));
  // The key is the start of sha256("/cases/b1"), computed by hand with `printf %s /cases/b1 | sha256sum`.
  EXPECT_EQ(batch_key("/cases/b1"), "d11582a5effc9ce9");
  EXPECT_EQ(batch_key("/cases/./x/../b1/"), "d11582a5effc9ce9");
  EXPECT_EQ(batch_key("/cases/b1/"), "d11582a5effc9ce9");
  EXPECT_EQ(batch_comment("d11582a5effc9ce9", false), "roo-ingest:d11582a5effc9ce9:items");
  EXPECT_EQ(batch_comment("d11582a5effc9ce9", true), "roo-ingest:d11582a5effc9ce9:merge");
}

TEST(SbatchOptions, SplitOnBlanks) {
  EXPECT_EQ(split_sbatch_options("  --partition=short   --time=2:00:00\t-A lab7 "),
            (std::vector<std::string>{"--partition=short", "--time=2:00:00", "-A", "lab7"}));
  EXPECT_TRUE(split_sbatch_options("   ").empty());
}

TEST(SbatchOptions, TheLabsOwnPassAndTheEnginesOwnAreRefused) {
  EXPECT_EQ(check_sbatch_options({"--partition=short", "--account=lab7", "--time=02:00:00", "--mem=8G", "-p", "long",
                                  "--qos=forensics", "--nodelist=n1"}),
            "");
  for (const std::string option :
       {"--array=1-3", "-a", "--dependency=afterok:1", "-d1", "--job-name=x", "-Jx", "--comment=x", "--output=/tmp/x",
        "-o", "--error=/tmp/e", "--chdir=/", "-D", "--parsable", "--wrap=true", "--wait", "--test-only"}) {
    EXPECT_NE(check_sbatch_options({"--partition=short", option}), "") << option;
  }
  EXPECT_NE(check_sbatch_options({""}), "");
  // An option's value that starts like one of ours is still a value ("-p" then "-output" would be odd, but "--x" is
  // never a short option).
  EXPECT_EQ(check_sbatch_options({"--dependency-free-looking=1"}), "");
}

TEST(Script, WordsAreSingleQuoted) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(rm -rf /) `x` \"y\""), "'$(rm -rf /) `x` \"y\"'");
  EXPECT_EQ(shell_quote(""), "''");
}

SlurmRequest example_request() {
  SlurmRequest request;
  request.binary = "/opt/roo/bin/roo-ingest";
  request.manifest = "/cases/c1/drives.tsv";
  request.batch_dir = "/cases/c1/out";
  request.items = {1, 2, 3, 7, 9, 10};
  request.throttle = 4;
  request.sbatch_options = {"--partition=forensics", "--account=lab7", "--time=04:00:00", "--mem=8G"};
  request.scan_options = {"--deep", "--formats=jsonl,sqlite"};
  return request;
}

TEST(Sbatch, ArrayCommandLine) {
  const auto argv = array_sbatch_argv(example_request(), "/cases/c1/out/slurm/items.sh");
  ASSERT_TRUE(argv);
  const std::vector<std::string> expected = {"sbatch",
                                             "--parsable",
                                             "--array=1-3,7,9-10%4",
                                             "--partition=forensics",
                                             "--account=lab7",
                                             "--time=04:00:00",
                                             "--mem=8G",
                                             "--job-name=out",
                                             "--comment=roo-ingest:" + batch_key("/cases/c1/out") + ":items",
                                             "--chdir=/cases/c1/out",
                                             "--output=/cases/c1/out/slurm/logs/%A_%a.out",
                                             "/cases/c1/out/slurm/items.sh"};
  EXPECT_EQ(*argv, expected);
}

TEST(Sbatch, ArrayWithoutThrottleAndWithAPercentInThePath) {
  SlurmRequest request = example_request();
  request.throttle = 0;
  request.batch_dir = "/cases/100%/out";
  request.job_name = "case-100";
  const auto argv = array_sbatch_argv(request, "/s.sh");
  ASSERT_TRUE(argv);
  EXPECT_EQ(argv->at(2), "--array=1-3,7,9-10");
  EXPECT_EQ(argv->at(7), "--job-name=case-100");
  EXPECT_EQ(argv->at(9), "--chdir=/cases/100%/out");                          // not a pattern
  EXPECT_EQ(argv->at(10), "--output=/cases/100%%/out/slurm/logs/%A_%a.out");  // a pattern: '%' doubled
}

TEST(Sbatch, NoArrayForNoItemsOrBadOnes) {
  SlurmRequest request = example_request();
  request.items = {};
  EXPECT_FALSE(array_sbatch_argv(request, "/s.sh"));
  request.items = {4, 4};
  EXPECT_FALSE(array_sbatch_argv(request, "/s.sh"));
  request.items = {1};
  request.throttle = -1;
  EXPECT_FALSE(array_sbatch_argv(request, "/s.sh"));
}

TEST(Sbatch, MergeCommandLineDependsOnTheArrayWithAfterany) {
  const auto argv = merge_sbatch_argv(example_request(), "4711", "/cases/c1/out/slurm/merge.sh");
  const std::vector<std::string> expected = {"sbatch",
                                             "--parsable",
                                             "--dependency=afterany:4711",
                                             "--partition=forensics",
                                             "--account=lab7",
                                             "--time=04:00:00",
                                             "--mem=8G",
                                             "--job-name=out.merge",
                                             "--comment=roo-ingest:" + batch_key("/cases/c1/out") + ":merge",
                                             "--chdir=/cases/c1/out",
                                             "--output=/cases/c1/out/slurm/logs/merge-%j.out",
                                             "/cases/c1/out/slurm/merge.sh"};
  EXPECT_EQ(argv, expected);
}

TEST(Script, ArrayAndMergeScripts) {
  SlurmRequest request = example_request();
  request.manifest = "/cases/o'brien/drives.tsv";
  request.merge_options = {"--case-name=x y"};
  EXPECT_EQ(array_script(request),
            "#!/bin/sh\n# Written by roo-ingest's Slurm engine (docs/batch-slurm.md): one array task runs one manifest "
            "item.\nexec '/opt/roo/bin/roo-ingest' '--manifest' '/cases/o'\\''brien/drives.tsv' '-o' '/cases/c1/out' "
            "--run-item \"$SLURM_ARRAY_TASK_ID\" '--deep' '--formats=jsonl,sqlite'\n");
  EXPECT_EQ(merge_script(request),
            "#!/bin/sh\n# Written by roo-ingest's Slurm engine (docs/batch-slurm.md): the merge job, after every array "
            "task has ended.\nexec '/opt/roo/bin/roo-ingest' '--manifest' '/cases/o'\\''brien/drives.tsv' '-o' "
            "'/cases/c1/out' --merge '--deep' '--formats=jsonl,sqlite' '--case-name=x y'\n");
}

TEST(Script, TheShellPassesEveryWordThroughUnchanged) {
  // The array script run by a real sh, with a binary that prints its arguments one a line: what quoting must give.
  const std::string dir = testing::TempDir() + "/slurm_script_words";
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  const std::string printer = dir + "/print args";
  {
    std::ofstream out(printer);
    out << "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n";
  }
  std::system(("chmod +x '" + printer + "'").c_str());
  SlurmRequest request;
  request.binary = printer;
  request.manifest = "/m/it's $HOME `id` \"q\"\\n.tsv";
  request.batch_dir = "/b/ *";
  request.scan_options = {"--x=a b", "'", ""};
  const std::string script = dir + "/items.sh";
  {
    std::ofstream out(script);
    out << array_script(request);
  }
  const CommandResult result = run_command({"env", "SLURM_ARRAY_TASK_ID=7", "sh", script}, 10s);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "[--manifest]\n[/m/it's $HOME `id` \"q\"\\n.tsv]\n[-o]\n[/b/ *]\n[--run-item]\n[7]\n[--x=a b]\n[']\n[]\n");
}

TEST(Parsable, JobIdWithOrWithoutCluster) {
  EXPECT_EQ(parse_parsable_job_id("4711\n"), "4711");
  EXPECT_EQ(parse_parsable_job_id("4711;cluster-a\n"), "4711");
  EXPECT_EQ(parse_parsable_job_id("site banner\n4712\n\n"), "4712");
  EXPECT_EQ(parse_parsable_job_id(""), std::nullopt);
  EXPECT_EQ(parse_parsable_job_id("sbatch: error: Batch job submission failed\n"), std::nullopt);
  EXPECT_EQ(parse_parsable_job_id("0\n"), std::nullopt);
  EXPECT_EQ(parse_parsable_job_id("12a\n"), std::nullopt);
}

TEST(Squeue, ThisBatchsTasksAndMergeJob) {
  const std::string key = "d11582a5effc9ce9";
  // squeue -h -r -o '%F|%K|%i|%T|%r|%k' as it prints on the test cluster (tests/slurm/cluster.sh), with a line of
  // another batch, one of a job with no comment, a merge job, and a range squeue left unexpanded.
  const std::string out =
      "42|5|42_5|PENDING|JobHeldUser|roo-ingest:d11582a5effc9ce9:items\n"
      "42|1|42_1|RUNNING|None|roo-ingest:d11582a5effc9ce9:items\n"
      "42|8-9%2|42_[8-9%2]|PENDING|JobArrayTaskLimit|roo-ingest:d11582a5effc9ce9:items\n"
      "43|N/A|43|PENDING|Dependency|roo-ingest:d11582a5effc9ce9:merge\n"
      "50|2|50_2|RUNNING|None|roo-ingest:0000000000000000:items\n"
      "51|N/A|51|RUNNING|None|(null)\n"
      "52|N/A|52|RUNNING|None|a|comment|with|bars\n"
      "53|N/A|53|RUNNING|roo-ingest:d11582a5effc9ce9:items\n"
      "garbage\n"
      "\n";
  const auto jobs = parse_squeue(out, key);
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(jobs[0].job_id, "42_5");
  EXPECT_EQ(jobs[0].array_job_id, "42");
  EXPECT_EQ(jobs[0].array_task, 5);
  EXPECT_EQ(jobs[0].state, "PENDING");
  EXPECT_EQ(jobs[0].reason, "JobHeldUser");
  EXPECT_FALSE(jobs[0].merge);
  EXPECT_EQ(jobs[1].job_id, "42_1");
  EXPECT_EQ(jobs[1].state, "RUNNING");
  EXPECT_EQ(jobs[1].reason, "None");
  EXPECT_EQ(jobs[2].job_id, "42_8");
  EXPECT_EQ(jobs[3].job_id, "42_9");
  EXPECT_EQ(jobs[3].array_task, 9);
  EXPECT_EQ(jobs[3].reason, "JobArrayTaskLimit");
  EXPECT_EQ(jobs[4].job_id, "43");
  EXPECT_EQ(jobs[4].array_task, -1);
  EXPECT_TRUE(jobs[4].merge);
  EXPECT_EQ(jobs[4].reason, "Dependency");
  EXPECT_TRUE(parse_squeue(out, "0000000000000001").empty());
}

TEST(RunCommand, CapturesOutputAndExitCode) {
  const CommandResult result = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10s);
  EXPECT_TRUE(result.started);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
}

TEST(RunCommand, ArgumentsAreNotShellWords) {
  const CommandResult result = run_command({"printf", "%s|", "$(id)", "a b", ";", "*"}, 10s);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "$(id)|a b|;|*|");
}

TEST(RunCommand, TimeoutKillsTheProgramAndWhatItStarted) {
  // The shell starts a sleep that keeps the pipe open: the whole process group must end, or this would wait 30 s.
  const auto start = std::chrono::steady_clock::now();
  const CommandResult result = run_command({"sh", "-c", "sleep 30 & sleep 30; echo never"}, 300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.exit_code, -1);
  EXPECT_EQ(result.out, "");
  EXPECT_LT(took, 20s);  // a bound far from the 300 ms asked for, so load never fails it; the sleeps last 30 s
}

TEST(RunCommand, MissingProgram) {
  const CommandResult result = run_command({"/nonexistent/sbatch", "--version"}, 10s);
  EXPECT_FALSE(result.started);
  EXPECT_NE(result.why.find("/nonexistent/sbatch"), std::string::npos);
}

TEST(Slurm, NotAvailableWithoutSbatchOnThePath) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  setenv("PATH", "/nonexistent", 1);
  EXPECT_FALSE(slurm_available(5s));
  std::string why;
  EXPECT_FALSE(queued_jobs_of_batch("/cases/b1", "", 5s, &why));
  EXPECT_NE(why.find("squeue"), std::string::npos);
  setenv("PATH", saved.c_str(), 1);
}

TEST(Submissions, RecordedLinesAreReadBack) {
  const std::string dir = testing::TempDir() + "/slurm_submissions";
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "/slurm'").c_str());
  {
    std::ofstream out(submissions_path(dir));
    out << "2026-12-02T07:00:00Z\t41\t42\t1-6%2\nbroken line\n2026-12-02T07:10:00Z\t50\t51\t3\n";
  }
  const auto recorded = recorded_submissions(dir);
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].array_job_id, "41");
  EXPECT_EQ(recorded[0].merge_job_id, "42");
  EXPECT_EQ(recorded[0].array_spec, "1-6%2");
  EXPECT_EQ(recorded[1].utc_time, "2026-12-02T07:10:00Z");
  EXPECT_EQ(recorded[1].array_spec, "3");
}

TEST(Submit, RefusedBeforeAnySlurmCall) {
  SlurmRequest request = example_request();
  request.binary = "roo-ingest";
  EXPECT_NE(submit_batch(request).why.find("absolute"), std::string::npos);
  request = example_request();
  request.items = {};
  EXPECT_NE(submit_batch(request).why.find("no items"), std::string::npos);
  request = example_request();
  request.sbatch_options = {"--array=1-100"};
  EXPECT_NE(submit_batch(request).why.find("--array"), std::string::npos);
}

}  // namespace
}  // namespace roo::slurm
