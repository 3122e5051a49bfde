#include "tsk_glue/segments.h"

#include <cctype>
#include <cstdio>
#include <cstdint>
#include <cstring>

namespace roo::tsk::segments {
namespace {

bool ends_with_icase(const std::string& s, const char* suffix) {
  std::string suf(suffix);
  if (s.size() < suf.size()) return false;
  for (size_t i = 0; i < suf.size(); ++i) {
    unsigned char a = static_cast<unsigned char>(s[s.size() - suf.size() + i]);
    unsigned char b = static_cast<unsigned char>(suf[i]);
    if (std::tolower(a) != std::tolower(b)) return false;
  }
  return true;
}

std::string with_number(const std::string& name, size_t width, int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*d", static_cast<int>(width), n);
  return name.substr(0, name.size() - width) + buf;
}

// Adds n-1 to the last `width` letters (base 'a' or 'A', case kept per character), like libtsk.
std::string with_letters(const std::string& name, size_t width, int n) {
  std::string out = name;
  int k = n - 1;
  for (size_t i = 0; i < width; ++i) {
    char& c = out[out.size() - 1 - i];
    c = static_cast<char>(c + (k % 26));
    k /= 26;
  }
  return k > 0 ? std::string() : out;
}

}  // namespace

std::string split_raw_name(const std::string& first, int n) {
  if (n < 1) return {};
  if (n == 1) {
    // libtsk accepts any name as segment 1; we only call it a split set for the known schemes
    return split_raw_name(first, 2).empty() ? std::string() : first;
  }
  if (ends_with_icase(first, ".dmg")) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%03d.dmgpart", n);
    return first.substr(0, first.size() - 3) + buf;
  }
  if (ends_with_icase(first, ".001") || ends_with_icase(first, "_001")) return with_number(first, 3, n);
  if (ends_with_icase(first, ".000") || ends_with_icase(first, "_000")) return with_number(first, 3, n - 1);
  if (ends_with_icase(first, ".01") || ends_with_icase(first, "_01")) return with_number(first, 2, n);
  if (ends_with_icase(first, ".00") || ends_with_icase(first, "_00")) return with_number(first, 2, n - 1);
  if (ends_with_icase(first, ".aaa") || ends_with_icase(first, "xaaa") || ends_with_icase(first, "_aaa"))
    return with_letters(first, 3, n);
  if (ends_with_icase(first, ".aa") || ends_with_icase(first, "xaa") || ends_with_icase(first, "_aa"))
    return with_letters(first, 2, n);
  if (ends_with_icase(first, ".bin")) {
    return first.substr(0, first.size() - 4) + "(" + std::to_string(n) + ").bin";
  }
  return {};
}

std::optional<LaterSegment> later_split_raw_segment(const std::string& path) {
  // [._] followed by exactly 2 or 3 digits at the end of the name
  size_t digits = 0;
  while (digits < path.size() && std::isdigit(static_cast<unsigned char>(path[path.size() - 1 - digits])))
    ++digits;
  if (digits != 2 && digits != 3) return std::nullopt;
  if (path.size() <= digits) return std::nullopt;
  char sep = path[path.size() - 1 - digits];
  if (sep != '.' && sep != '_') return std::nullopt;
  int number = std::stoi(path.substr(path.size() - digits));
  if (number < 2) return std::nullopt;  // .000 and .001 are first segments
  LaterSegment s;
  s.first_one_based = with_number(path, digits, 1);
  s.first_zero_based = with_number(path, digits, 0);
  s.number = number;
  return s;
}

namespace {
// Splits an EWF name into (stem + '.', first letter, extension letters 2-3) when it has such an extension.
bool ewf_parts(const std::string& path, std::string* stem, char* letter) {
  if (path.size() < 5) return false;
  if (path[path.size() - 4] != '.') return false;
  char l = path[path.size() - 3];
  if (!std::isalpha(static_cast<unsigned char>(l))) return false;
  char a = path[path.size() - 2], b = path[path.size() - 1];
  bool digits = std::isdigit(static_cast<unsigned char>(a)) && std::isdigit(static_cast<unsigned char>(b));
  bool letters = std::isalpha(static_cast<unsigned char>(a)) && std::isalpha(static_cast<unsigned char>(b));
  if (!digits && !letters) return false;
  *stem = path.substr(0, path.size() - 3);
  *letter = l;
  return true;
}
}  // namespace

std::string ewf_segment_name(const std::string& any_segment, int number) {
  std::string stem;
  char letter;
  if (number < 1 || !ewf_parts(any_segment, &stem, &letter)) return {};
  bool lower = std::islower(static_cast<unsigned char>(letter));
  // the set's first letter: for a letters extension we assume the EnCase 'E'
  char first = letter;
  if (std::isalpha(static_cast<unsigned char>(any_segment[any_segment.size() - 2]))) first = lower ? 'e' : 'E';
  char A = lower ? 'a' : 'A';
  char ext[4] = {0, 0, 0, 0};
  if (number <= 99) {
    ext[0] = first;
    ext[1] = static_cast<char>('0' + number / 10);
    ext[2] = static_cast<char>('0' + number % 10);
  } else {
    int k = number - 100;
    ext[2] = static_cast<char>(A + k % 26);
    k /= 26;
    ext[1] = static_cast<char>(A + k % 26);
    k /= 26;
    int f = first + k;
    if (f > (lower ? 'z' : 'Z')) return {};
    ext[0] = static_cast<char>(f);
  }
  return stem + ext;
}

std::optional<std::string> ewf_segment_cut(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return std::nullopt;
  auto u64 = [](const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
  };
  std::optional<std::string> cut;
  unsigned char header[13];
  std::fseek(f, 0, SEEK_END);
  const uint64_t size = static_cast<uint64_t>(std::ftell(f));
  std::fseek(f, 0, SEEK_SET);
  static const unsigned char kSignature[8] = {'E', 'V', 'F', 0x09, 0x0d, 0x0a, 0xff, 0x00};
  static const unsigned char kLogicalSignature[8] = {'L', 'V', 'F', 0x09, 0x0d, 0x0a, 0xff, 0x00};
  if (std::fread(header, 1, sizeof header, f) == sizeof header &&
      (std::memcmp(header, kSignature, 8) == 0 || std::memcmp(header, kLogicalSignature, 8) == 0)) {
    uint64_t at = sizeof header;
    for (int sections = 0; sections < 1000000; ++sections) {
      unsigned char d[76];
      if (at + sizeof d > size || std::fseek(f, static_cast<long>(at), SEEK_SET) != 0 ||
          std::fread(d, 1, sizeof d, f) != sizeof d) {
        cut = "cut short at " + std::to_string(size) + " bytes: its section chain goes on at byte " + std::to_string(at);
        break;
      }
      const std::string type(reinterpret_cast<const char*>(d), strnlen(reinterpret_cast<const char*>(d), 16));
      if (type == "next" || type == "done") break;
      const uint64_t next = u64(d + 16);
      if (next <= at) {
        cut = "damaged: the section at byte " + std::to_string(at) + " names no later section";
        break;
      }
      at = next;
    }
  }
  std::fclose(f);
  return cut;
}

}  // namespace roo::tsk::segments
