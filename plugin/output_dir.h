// OUTDIR through one run: checked against the evidence, locked, given a work directory of the run's own, and
// published in one order that a kill at any point cannot make look finished.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roo {

// The directories no output may go into, or below: the folder of each image segment (as named and as its links
// resolve) and a --dir folder. Compared by device and inode, so `..`, trailing slashes, symlinks, /proc/self/cwd and
// bind mounts of the same directory are all seen as the same place.
std::vector<std::filesystem::path> evidence_directories(const std::vector<std::string>& image_paths,
                                                        const std::string& folder);

// Why OUTDIR may not be used (it is, or lies inside, one of `evidence`), or nothing. Works on a path that does not
// exist yet: its existing part is resolved and the rest taken as create_directories would create it.
std::optional<std::string> outdir_inside_evidence(const std::filesystem::path& out,
                                                  const std::vector<std::filesystem::path>& evidence);

// OUTDIR held for one run. open() checks it against the evidence before and after creating it, takes an exclusive
// lock on the directory (a second run into the same OUTDIR waits a little for it, then gives up; a worker process
// of a killed run holds the lock until it has died too), removes work directories that killed runs left, and makes
// this run's own work directory, so nothing an earlier run's process still writes can reach this run's files.
class OutputDir {
 public:
  struct Options {
    std::filesystem::path out;
    std::vector<std::filesystem::path> evidence;
    bool force = false;
    int lock_wait_seconds = 10;
  };
  static std::optional<OutputDir> open(const Options& opts, std::string* error);
  OutputDir(OutputDir&& other) noexcept;
  OutputDir& operator=(OutputDir&&) = delete;
  ~OutputDir();

  const std::filesystem::path& out() const { return out_; }
  const std::filesystem::path& work() const { return work_; }

  // Moves the files named (all inside work()) into OUTDIR. First every file of `all_output_names` that an earlier
  // run left in OUTDIR is removed, report.json first, so no output of another run is ever beside this run's; then
  // the files are moved in the order given, which must end with report.json: until it is there the run is not
  // finished, and once it is every output beside it is this run's. Removes work() when done.
  bool publish(const std::vector<std::string>& files, const std::vector<std::string>& all_output_names,
               std::string* error);

 private:
  OutputDir() = default;
  std::filesystem::path out_, work_;
  int lock_fd_ = -1;
};

}  // namespace roo
