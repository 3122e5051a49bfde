// Names of the segment files of split images, as libtsk (split raw) and libewf (E01) look for them.
#pragma once

#include <optional>
#include <string>

namespace roo::tsk::segments {

// Split raw, mirroring libtsk 4.11 getSegmentName() (tsk/img/mult_files.c): given the FIRST segment's name,
// the name of segment n (1-based; 1 is the name itself). Empty when the name is not a split-raw scheme
// (.001 _001 .000 _000 .01 _01 .00 _00 .aaa _aaa xaaa .aa _aa xaa .dmg .bin; case-insensitive) or n is
// out of range for it.
std::string split_raw_name(const std::string& first, int n);

// When `path` looks like a LATER segment of a numbered split raw set (e.g. img.003, img_02; digits only,
// since letter suffixes are too easily ordinary extensions): the candidates for the first segment (the
// 1-based then the 0-based one) and this file's 1-based position (for the 1-based scheme).
struct LaterSegment {
  std::string first_one_based;   // img.001
  std::string first_zero_based;  // img.000
  int number = 0;                // 3 for img.003
};
std::optional<LaterSegment> later_split_raw_segment(const std::string& path);

// EWF (libewf naming): E01 … E99, then EAA … EZZ, FAA … ZZZ; the first letter and its case come from the
// given name (E01/e01/s01/L01). Returns the name of segment `number` (1-based) for a path known to be an
// EWF segment (any three-character extension of a letter and two digits or letters is taken as one),
// or empty when the name has no such extension.
std::string ewf_segment_name(const std::string& any_segment, int number);

// Whether an EWF (version 1: E01, L01, S01) segment file is cut short: its chain of sections, which starts after the
// 13-byte file header and in which each 76-byte section descriptor names the offset of the next, must end with a
// "next" or "done" section inside the file (the layout of libewf's "Expert Witness Compression Format" document,
// sections 2 and 3). Returns what is wrong in words ("cut short at 1000000 bytes: its section chain goes on at byte
// 4163261"), or nothing when the chain is whole or the file is no EWF version 1 segment.
std::optional<std::string> ewf_segment_cut(const std::string& path);

}  // namespace roo::tsk::segments
