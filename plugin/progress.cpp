#include "plugin/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace roo {

namespace {

ProgressMode g_mode = ProgressMode::off;
std::chrono::steady_clock::time_point g_phase_start, g_last_line;
std::string g_phase;  // phase + where of the last update: a new one restarts the clock

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string json_escaped(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

void progress_init(ProgressMode mode) { g_mode = mode; }
ProgressMode progress_mode() { return g_mode; }

std::string progress_line(const char* phase, const std::string& where, int64_t done_items, const char* item_name,
                          uint64_t done_bytes, std::optional<uint64_t> total_bytes, double elapsed_s) {
  const double mb = done_bytes / 1e6;
  const double rate = elapsed_s > 0 ? mb / elapsed_s : 0;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%s %s: %lld %s, %.1f MB", phase, where.c_str(),
                        static_cast<long long>(done_items), item_name, mb);
  std::string line(buf, static_cast<size_t>(n));
  if (total_bytes && *total_bytes > 0) {
    std::snprintf(buf, sizeof buf, " of %.1f MB (%.0f%%)", *total_bytes / 1e6, 100.0 * done_bytes / *total_bytes);
    line += buf;
  }
  std::snprintf(buf, sizeof buf, ", %.1f MB/s", rate);
  line += buf;
  if (total_bytes && rate > 0 && *total_bytes >= done_bytes) {
    std::snprintf(buf, sizeof buf, ", ETA %.0f s", (*total_bytes - done_bytes) / 1e6 / rate);
    line += buf;
  }
  return line;
}

void progress_update(const char* phase, const std::string& where, int64_t done_items, const char* item_name,
                     uint64_t done_bytes, std::optional<uint64_t> total_bytes, bool last) {
  if (g_mode == ProgressMode::off) return;
  const std::string key = std::string(phase) + '\x1f' + where;
  if (key != g_phase) {  // a new phase, or the same in another partition
    g_phase = key;
    g_phase_start = g_last_line = std::chrono::steady_clock::now();
  }
  const double since_line = seconds_since(g_last_line);
  const double every = g_mode == ProgressMode::terminal ? 0.25 : g_mode == ProgressMode::json ? 1.0 : 5.0;
  if (!last && since_line < every) return;
  g_last_line = std::chrono::steady_clock::now();
  const double elapsed = seconds_since(g_phase_start);
  if (g_mode == ProgressMode::json) {
    const double rate = elapsed > 0 ? done_bytes / elapsed : 0;
    std::string eta = "null", total = "null";
    if (total_bytes) {
      total = std::to_string(*total_bytes);
      if (rate > 0 && *total_bytes >= done_bytes) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", (*total_bytes - done_bytes) / rate);
        eta = buf;
      }
    }
    std::fprintf(stderr,
                 "{\"progress\":\"%s\",\"where\":\"%s\",\"%s\":%lld,\"bytes\":%llu,\"total_bytes\":%s,"
                 "\"bytes_per_second\":%.0f,\"elapsed_seconds\":%.3f,\"eta_seconds\":%s,\"done\":%s}\n",
                 phase, json_escaped(where).c_str(), item_name, static_cast<long long>(done_items),
                 static_cast<unsigned long long>(done_bytes), total.c_str(), rate, elapsed, eta.c_str(),
                 last ? "true" : "false");
  } else {
    const std::string line = progress_line(phase, where, done_items, item_name, done_bytes, total_bytes, elapsed);
    if (g_mode == ProgressMode::terminal)
      std::fprintf(stderr, "\rroo-ingest: %s\x1b[K%s", line.c_str(), last ? "\n" : "");
    else
      std::fprintf(stderr, "roo-ingest: %s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace roo
