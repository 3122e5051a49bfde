// A command-line face of the Slurm engine (plugin/batch/slurm_engine.h) for the real-cluster tests
// (tests/slurm/cluster_test.py) and the bench (tests/bench/run-slurm-bench.sh): they drive submit_batch,
// queued_jobs_of_batch and slurm_available exactly as roo-ingest's batch mode does, with a stand-in for
// `roo-ingest --run-item` where roo-ingest itself is not needed.
//
//   slurm_submit available
//       exit 0 when sbatch and squeue answer, 1 when not
//   slurm_submit submit --binary B --manifest M --batch-dir D --items 1,3-4 [--throttle N] [--job-name NAME]
//                       [--sbatch-option WORD]... [-- SCAN OPTION...]
//       prints "submitted array=<id> merge=<id> spec=<spec>" and exits 0; when refused prints "refused: <why>" and
//       one "blocking <job id> <state>" line per job in the way, and exits 3 if jobs are in the way, else 1
//   slurm_submit queued D [--job-name NAME]
//       one "<job id> <array task or -> <state> <items|merge> <reason>" line per job of the batch; exit 1 if squeue
//       fails
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plugin/batch/slurm_engine.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: slurm_submit available\n"
               "       slurm_submit submit --binary B --manifest M --batch-dir D --items LIST [--throttle N]\n"
               "                           [--job-name NAME] [--sbatch-option WORD]... [-- SCAN OPTION...]\n"
               "       slurm_submit queued BATCHDIR [--job-name NAME]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace roo::slurm;
  if (argc < 2) return usage();
  const std::string command = argv[1];
  if (command == "available") return slurm_available() ? 0 : 1;

  if (command == "queued") {
    if (argc != 3 && argc != 5) return usage();
    const std::string job_name = argc == 5 && std::strcmp(argv[3], "--job-name") == 0 ? argv[4] : "";
    std::string why;
    const auto jobs = queued_jobs_of_batch(argv[2], job_name, std::chrono::seconds(60), &why);
    if (!jobs) {
      std::fprintf(stderr, "slurm_submit: %s\n", why.c_str());
      return 1;
    }
    for (const QueuedJob& job : *jobs) {
      const std::string task = job.array_task < 0 ? "-" : std::to_string(job.array_task);
      std::printf("%s %s %s %s %s\n", job.job_id.c_str(), task.c_str(), job.state.c_str(), job.merge ? "merge" : "items",
                  job.reason.c_str());
    }
    return 0;
  }

  if (command != "submit") return usage();
  SlurmRequest request;
  std::string items;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) request.scan_options.push_back(argv[i]);
      break;
    }
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--binary") {
      request.binary = value;
    } else if (arg == "--manifest") {
      request.manifest = value;
    } else if (arg == "--batch-dir") {
      request.batch_dir = value;
    } else if (arg == "--items") {
      items = value;
    } else if (arg == "--throttle") {
      request.throttle = std::stoi(value);
    } else if (arg == "--job-name") {
      request.job_name = value;
    } else if (arg == "--sbatch-option") {
      request.sbatch_options.push_back(value);
    } else {
      return usage();
    }
  }
  const auto indices = expand_array_spec(items);
  if (!indices) {
    std::fprintf(stderr, "slurm_submit: --items %s is no index list\n", items.c_str());
    return 2;
  }
  request.items = *indices;
  const SlurmSubmission submission = submit_batch(request);
  if (!submission.ok) {
    std::printf("refused: %s\n", submission.why.c_str());
    for (const QueuedJob& job : submission.blocking)
      std::printf("blocking %s %s\n", job.job_id.c_str(), job.state.c_str());
    return submission.blocking.empty() ? 1 : 3;
  }
  std::printf("submitted array=%s merge=%s spec=%s\n", submission.array_job_id.c_str(), submission.merge_job_id.c_str(),
              submission.array_spec.c_str());
  if (!submission.why.empty()) std::fprintf(stderr, "slurm_submit: %s\n", submission.why.c_str());
  return 0;
}
