#include "tsk_glue/partition_table.h"

#include <cstdio>
#include <set>

namespace roo::tsk {

namespace {

uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}
uint64_t le64(const unsigned char* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }

bool read_exact(const ReadAt& read, uint64_t offset, std::vector<unsigned char>& buf) {
  return buf.empty() || read(offset, buf.data(), buf.size()) == buf.size();  // nothing to read: no null buffer
}

uint64_t sectors_for(uint64_t bytes, uint32_t sector_size) { return (bytes + sector_size - 1) / sector_size; }

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | c >> 6);
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xe0 | c >> 12);
    out += static_cast<char>(0x80 | (c >> 6 & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | c >> 18);
    out += static_cast<char>(0x80 | (c >> 12 & 0x3f));
    out += static_cast<char>(0x80 | (c >> 6 & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

// A GPT PartitionName: 36 UTF-16LE code units, ended by the first NUL; a lone surrogate becomes U+FFFD.
std::string gpt_name(const unsigned char* p) {
  std::string out;
  for (int i = 0; i < 36; ++i) {
    uint32_t c = p[2 * i] | p[2 * i + 1] << 8;
    if (c == 0) break;
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < 36) {
      uint32_t low = p[2 * i + 2] | p[2 * i + 3] << 8;
      if (low >= 0xdc00 && low < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        ++i;
      }
    }
    append_utf8(out, c >= 0xd800 && c < 0xe000 ? 0xfffd : c);
  }
  return out;
}

constexpr size_t kMbrEntries = 446;  // the four 16-byte partition records (UEFI spec §5.2.1, Table 5-1)

bool has_mbr_signature(const std::vector<unsigned char>& s) { return s.size() >= 512 && s[510] == 0x55 && s[511] == 0xaa; }

// UEFI spec §5.3.2 (GPT Header) and §5.3.3 (GPT Partition Entry Array), at LBA 1 for the given sector size.
std::optional<PartitionTable> read_gpt(const ReadAt& read, uint32_t ss) {
  std::vector<unsigned char> mbr(512), h(ss);
  if (!read_exact(read, 0, mbr) || !has_mbr_signature(mbr)) return std::nullopt;
  bool protective = false;
  for (int i = 0; i < 4; ++i) protective |= mbr[kMbrEntries + 16 * i + 4] == 0xee;
  if (!protective || !read_exact(read, ss, h) || std::string(h.begin(), h.begin() + 8) != "EFI PART")
    return std::nullopt;
  const uint32_t header_size = le32(&h[12]);
  if (header_size < 92 || header_size > ss || le64(&h[24]) != 1) return std::nullopt;
  const uint32_t header_crc = le32(&h[16]);
  h[16] = h[17] = h[18] = h[19] = 0;
  if (gpt_crc32(h.data(), header_size) != header_crc) return std::nullopt;

  const uint64_t array_lba = le64(&h[72]);
  const uint32_t count = le32(&h[80]), entry_size = le32(&h[84]);
  // SizeOfPartitionEntry is 128 × 2^n; a bound on the array keeps a damaged count from asking for gigabytes.
  if (entry_size < 128 || (entry_size & (entry_size - 1)) != 0 || uint64_t{count} * entry_size > (16u << 20))
    return std::nullopt;
  std::vector<unsigned char> array(size_t{count} * entry_size);
  if (!read_exact(read, array_lba * ss, array) || gpt_crc32(array.data(), array.size()) != le32(&h[88]))
    return std::nullopt;

  PartitionTable t{"gpt", ss, {}};
  t.entries.push_back({0, 1, "Safety Table", true});
  t.entries.push_back({1, sectors_for(header_size, ss), "GPT Header", true});
  t.entries.push_back({array_lba, sectors_for(array.size(), ss), "Partition Table", true});
  for (uint32_t i = 0; i < count; ++i) {
    const unsigned char* e = &array[size_t{i} * entry_size];
    bool unused = true;  // PartitionTypeGUID all zero
    for (int k = 0; k < 16; ++k) unused &= e[k] == 0;
    const uint64_t first = le64(e + 32), last = le64(e + 40);
    if (unused || first == 0 || last < first) continue;
    t.entries.push_back({first, last - first + 1, gpt_name(e + 56), false});
  }
  return t;
}

bool is_extended(uint8_t type) { return type == 0x05 || type == 0x0f || type == 0x85; }

std::string dos_type(uint8_t type) {
  char b[24];
  std::snprintf(b, sizeof b, "DOS type 0x%02x", type);
  return b;
}

// The four records of an MBR or EBR: nullopt when one is not well formed. (start, size, type) of the used ones.
struct Record {
  uint32_t start, size;
  uint8_t type;
};
std::optional<std::vector<Record>> mbr_records(const std::vector<unsigned char>& s) {
  if (!has_mbr_signature(s)) return std::nullopt;
  std::vector<Record> out;
  for (int i = 0; i < 4; ++i) {
    const unsigned char* r = &s[kMbrEntries + 16 * i];
    if (r[0] != 0x00 && r[0] != 0x80) return std::nullopt;
    Record rec{le32(r + 8), le32(r + 12), r[4]};
    if (rec.type != 0 && rec.size != 0 && rec.start != 0) out.push_back(rec);
  }
  return out;
}

// UEFI spec §5.2.1 (legacy MBR). Logical partitions: each EBR holds one partition, relative to the EBR, and a link to
// the next EBR, relative to the start of the extended partition. The chain ends where an EBR cannot be read (past
// the end of the image), is not one, or comes round again.
std::optional<PartitionTable> read_dos(const ReadAt& read) {
  constexpr uint32_t ss = 512;
  std::vector<unsigned char> sector(ss);
  if (!read_exact(read, 0, sector)) return std::nullopt;
  auto primary = mbr_records(sector);
  if (!primary || primary->empty()) return std::nullopt;
  PartitionTable t{"dos", ss, {{0, 1, "Primary Table (#0)", true}}};
  for (const Record& r : *primary) {
    if (r.type == 0xee) return std::nullopt;  // a protective MBR: the GPT's, which read_gpt did not accept
    if (!is_extended(r.type)) {
      t.entries.push_back({r.start, r.size, dos_type(r.type), false});
      continue;
    }
    t.entries.push_back({r.start, r.size, dos_type(r.type), true});
    std::set<uint64_t> seen;
    for (uint64_t ebr = r.start; ebr != 0 && seen.insert(ebr).second && read_exact(read, ebr * ss, sector);) {
      auto logical = mbr_records(sector);
      if (!logical) break;
      t.entries.push_back({ebr, 1, "Extended Table (#" + std::to_string(seen.size()) + ")", true});
      uint64_t next = 0;
      for (const Record& l : *logical) {
        if (is_extended(l.type))
          next = r.start + l.start;
        else
          t.entries.push_back({ebr + l.start, l.size, dos_type(l.type), false});
      }
      ebr = next;
    }
  }
  return t;
}

}  // namespace

uint32_t gpt_crc32(const unsigned char* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

std::optional<PartitionTable> read_partition_table(const ReadAt& read, const std::vector<uint32_t>& sector_sizes) {
  for (uint32_t ss : sector_sizes)
    if (ss >= 512 && (ss & (ss - 1)) == 0)
      if (auto t = read_gpt(read, ss)) return t;
  return read_dos(read);
}

}  // namespace roo::tsk
