// EWF images read by libtsk through a libewf handle of roo-ingest's own: libtsk keeps the handle its own EWF backend
// opens to itself, so the chunk checksum errors libewf records while reading are lost there, and a chunk that fails its
// checksum reads as zeros without a word. Through this handle they can be asked for after a scan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct TSK_IMG_INFO;  // libtsk's image handle (tsk/img/tsk_img.h)

namespace roo::tsk {

// A run of sectors whose chunk failed its checksum when read (libewf returns zeros for it).
struct EwfChecksumError {
  uint64_t first_sector = 0;
  uint64_t sectors = 0;
  uint32_t sector_size = 512;  // libewf's bytes per sector for the media
  std::string segment;         // the segment file that holds it, when the set has one file; else empty
};

// Opens an EWF image (one name: its set is found by name; several: used as given, in order) for libtsk, reading it
// as libtsk's own EWF backend does (media size, sector size, segment names). Returns nullptr when libewf cannot
// open it; libtsk's error state is then untouched, so the caller can fall back to libtsk's own open.
TSK_IMG_INFO* open_ewf_image(const std::vector<std::string>& names);

// The checksum errors libewf has recorded on an image opened by open_ewf_image, in media order; empty for any
// other image.
std::vector<EwfChecksumError> ewf_checksum_errors(TSK_IMG_INFO* img);

// The warning for one: the sectors, their media byte offsets, the segment file when known.
std::string ewf_checksum_warning(const EwfChecksumError& e);

}  // namespace roo::tsk
