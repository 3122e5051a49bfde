#include "tsk_glue/ewf_image.h"

#include <libewf.h>
#include <tsk/libtsk.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace roo::tsk {
namespace {

struct EwfState {
  libewf_handle_t* handle = nullptr;
  std::mutex lock;  // a libewf handle is not to be read from two threads at once
  std::vector<std::string> names;
  std::vector<char*> name_ptrs;
  uint32_t bytes_per_sector = 512;  // as libewf stores it (checksum errors are counted in these)
};

// libtsk reads the TSK_IMG_INFO at the start of what it is given and hands the same pointer to the callbacks.
struct EwfImage {
  TSK_IMG_INFO img;
  EwfState* state;
};

ssize_t ewf_read(TSK_IMG_INFO* img, TSK_OFF_T offset, char* buf, size_t len) {
  EwfState* s = reinterpret_cast<EwfImage*>(img)->state;
  if (offset > img->size) {
    tsk_error_reset();
    tsk_error_set_errno(TSK_ERR_IMG_READ_OFF);
    tsk_error_set_errstr("ewf_image_read - %" PRIdOFF, offset);
    return -1;
  }
  std::lock_guard<std::mutex> hold(s->lock);
  libewf_error_t* err = nullptr;
  ssize_t n = libewf_handle_read_random(s->handle, buf, len, offset, &err);
  if (n < 0) {
    // The same message libtsk's EWF backend gives, so a failed read reads the same in every output.
    char text[512] = {};
    const bool have = err && libewf_error_backtrace_sprint(err, text, sizeof text) > 0;
    libewf_error_free(&err);
    tsk_error_reset();
    tsk_error_set_errno(TSK_ERR_IMG_READ);
    tsk_error_set_errstr("ewf_image_read - offset: %" PRIdOFF " - len: %zu - %s", offset, len,
                         have ? text : std::strerror(errno));
    return -1;
  }
  return n;
}

void ewf_close(TSK_IMG_INFO* img) {
  EwfImage* e = reinterpret_cast<EwfImage*>(img);
  libewf_handle_close(e->state->handle, nullptr);
  libewf_handle_free(&e->state->handle, nullptr);
  delete e->state;
  delete e;
}

void ewf_imgstat(TSK_IMG_INFO* img, FILE* out) {
  std::fprintf(out, "IMAGE FILE INFORMATION\n--------------------------------------------\nImage Type:\t\tewf\n");
  std::fprintf(out, "\nSize of data in bytes:\t%" PRIdOFF "\nSector size:\t%u\n", img->size, img->sector_size);
}

}  // namespace

TSK_IMG_INFO* open_ewf_image(const std::vector<std::string>& names) {
  if (names.empty()) return nullptr;
  auto* s = new EwfState();
  if (names.size() == 1) {
    char** globbed = nullptr;
    int count = 0;
    if (libewf_glob(names[0].c_str(), names[0].size(), LIBEWF_FORMAT_UNKNOWN, &globbed, &count, nullptr) != 1) {
      delete s;
      return nullptr;
    }
    for (int i = 0; i < count; ++i) s->names.emplace_back(globbed[i]);
    libewf_glob_free(globbed, count, nullptr);
  } else {
    s->names = names;
  }
  for (std::string& n : s->names) s->name_ptrs.push_back(n.data());
  size64_t media = 0;
  if (s->names.empty() || libewf_handle_initialize(&s->handle, nullptr) != 1) {
    delete s;
    return nullptr;
  }
  if (libewf_handle_open(s->handle, s->name_ptrs.data(), static_cast<int>(s->name_ptrs.size()), LIBEWF_OPEN_READ,
                         nullptr) != 1 ||
      libewf_handle_get_media_size(s->handle, &media, nullptr) != 1) {
    libewf_handle_free(&s->handle, nullptr);
    delete s;
    return nullptr;
  }
  uint32_t bps = 512;
  if (libewf_handle_get_bytes_per_sector(s->handle, &bps, nullptr) != 1) bps = 512;
  s->bytes_per_sector = bps ? bps : 512;
  // libtsk's EWF backend takes a stored sector size of 0 or not a multiple of 512 for junk, and uses 512.
  const unsigned int sector_size = (bps == 0 || bps % 512) ? 512 : bps;

  auto* e = new EwfImage();  // value-initialised: an empty read cache
  e->state = s;
  e->img.tag = TSK_IMG_INFO_TAG;  // some libtsk versions leave setting it to the caller
  TSK_IMG_INFO* img = tsk_img_open_external(e, static_cast<TSK_OFF_T>(media), sector_size, &ewf_read, &ewf_close,
                                            &ewf_imgstat);
  if (!img) {
    ewf_close(&e->img);
    return nullptr;
  }
  img->itype = TSK_IMG_TYPE_EWF_EWF;  // an EWF image to every reader of the handle, as libtsk's own open makes it
  img->num_img = static_cast<int>(s->name_ptrs.size());
  img->images = s->name_ptrs.data();
  return img;
}

std::vector<EwfChecksumError> ewf_checksum_errors(TSK_IMG_INFO* img) {
  std::vector<EwfChecksumError> out;
  if (!img || img->close != &ewf_close) return out;
  EwfState* s = reinterpret_cast<EwfImage*>(img)->state;
  std::lock_guard<std::mutex> hold(s->lock);
  uint32_t n = 0;
  if (libewf_handle_get_number_of_checksum_errors(s->handle, &n, nullptr) != 1) return out;
  for (uint32_t i = 0; i < n; ++i) {
    EwfChecksumError e;
    if (libewf_handle_get_checksum_error(s->handle, i, &e.first_sector, &e.sectors, nullptr) != 1) continue;
    e.sector_size = s->bytes_per_sector;
    if (s->names.size() == 1) {
      const std::string& path = s->names.front();
      const size_t slash = path.find_last_of('/');
      e.segment = slash == std::string::npos ? path : path.substr(slash + 1);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string ewf_checksum_warning(const EwfChecksumError& e) {
  const uint64_t last = e.first_sector + (e.sectors ? e.sectors - 1 : 0);
  const uint64_t first_byte = e.first_sector * e.sector_size;
  const uint64_t end_byte = (e.first_sector + e.sectors) * e.sector_size;
  std::string w = "EWF checksum error: sectors " + std::to_string(e.first_sector) + "-" + std::to_string(last) +
                  " (media bytes " + std::to_string(first_byte) + "-" + std::to_string(end_byte ? end_byte - 1 : 0) +
                  (e.segment.empty() ? std::string() : ", in " + e.segment) +
                  ") failed their chunk checksum and were read as zeros";
  return w;
}

}  // namespace roo::tsk
