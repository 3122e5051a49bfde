// --verify (image hashes verified when the container stores them): one pass over the whole media of an
// image, MD5 and SHA-1 of its bytes, compared with the hashes the container stores (EWF keeps the acquisition's MD5
// and often SHA-1). An image that stores none (raw, split raw) is still hashed, so report.json gives the examiner
// the hashes to note down.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tsk_glue/tsk_evidence.h"

namespace roo::tsk {

struct Verification {
  // "verified": every stored hash equals the computed one; "mismatch": a stored hash differs; "no stored hash": the
  // container stores none (hashes computed all the same); "read error: …": the media could not be read to its end
  // (no hash is given then: a hash of part of the media would look like the image's).
  std::string result;
  std::string read_with;  // "libewf" (EWF) or "libtsk" (raw, split raw and the other types libtsk reads)
  uint64_t media_size = 0;
  uint64_t bytes_hashed = 0;
  std::string md5, sha1;                // computed, lower-case hex; empty after a read error
  std::string md5_stored, sha1_stored;  // as the container stores them (ImageInfo); empty when it stores none
  // EWF chunks whose stored checksum did not match their data (libewf counts them while reading; their bytes are
  // hashed as stored, not zeroed, as ewfverify and ewfexport do by default). Always 0 for libtsk reads.
  uint32_t checksum_errors = 0;

  bool md5_match() const { return !md5_stored.empty() && md5 == md5_stored; }
  bool sha1_match() const { return !sha1_stored.empty() && sha1 == sha1_stored; }
};

// Called after every block read: bytes hashed so far and the media size; last is set once, at the end.
using VerifyProgress = std::function<void(uint64_t bytes_done, uint64_t total, bool last)>;

// The size of one read (the progress granularity too): large reads keep libewf and the kernel busy.
inline constexpr size_t kVerifyBlockBytes = 4 << 20;

// Reads the media of the image `info` describes (as Image::open opened it from `paths`) from start to end once, with
// its own handle (never the one the scan uses), and compares. Never throws for the image's sake: a read failure is
// the result "read error: …".
Verification verify_image(const std::vector<std::string>& paths, const ImageInfo& info,
                          const VerifyProgress& progress = {});

}  // namespace roo::tsk
