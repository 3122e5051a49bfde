// Progress on stderr while roo-ingest works: the phase, where, files and bytes done, the rate, and an ETA
// when the total is known. Plain lines (at most one every 5 s) when stderr is not a terminal; one line rewritten in
// place (about 4 times a second) when it is; one JSON object per line with --progress=json, for wrappers such as the
// Autopsy module; nothing with --quiet. Workers are forked after progress_init(), so they report the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace roo {

enum class ProgressMode { off, plain, terminal, json };

void progress_init(ProgressMode mode);
ProgressMode progress_mode();

// The work of one phase so far ("parsing", "writing formats"). A line is shown when enough time has passed since the
// last one, or always when `last` is set (the phase's final figures).
void progress_update(const char* phase, const std::string& where, int64_t done_items, const char* item_name,
                     uint64_t done_bytes, std::optional<uint64_t> total_bytes, bool last = false);

// The text of one plain or terminal progress line (no time-dependent throttling): kept apart for tests.
std::string progress_line(const char* phase, const std::string& where, int64_t done_items, const char* item_name,
                          uint64_t done_bytes, std::optional<uint64_t> total_bytes, double elapsed_s);

}  // namespace roo
