/* LD_PRELOAD shim for the robustness tests (tests/plugin/robustness_e2e_test.py): stands between roo-ingest and
 * libtsk's file reads, to make a worker slow or stuck the way a failing disk or a libtsk bug would.
 *   ROO_SHIM_SLOW_MS=N            every file read first sleeps N milliseconds
 *   ROO_SHIM_HANG_FS_OFFSET=BYTES reads of the file system at that byte offset never return ...
 *   ROO_SHIM_HANG_AFTER=N         ... from its N+1-th read on (default 0: the first)
 * Everything else is libtsk's own read. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <tsk/libtsk.h>
#include <unistd.h>

static atomic_long reads_of_hung_fs;

static void stand_between(TSK_FS_FILE *file) {
  const char *slow = getenv("ROO_SHIM_SLOW_MS");
  if (slow) {
    /* Whole seconds apart: nanosleep refuses (EINVAL, no sleep at all) a tv_nsec of a second or more. */
    const long ms = atol(slow);
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
  }
  const char *hang = getenv("ROO_SHIM_HANG_FS_OFFSET");
  if (hang && file && file->fs_info && (long long)file->fs_info->offset == atoll(hang)) {
    const char *after = getenv("ROO_SHIM_HANG_AFTER");
    if (atomic_fetch_add(&reads_of_hung_fs, 1) >= (after ? atol(after) : 0))
      for (;;) pause();
  }
}

ssize_t tsk_fs_file_read(TSK_FS_FILE *file, TSK_OFF_T offset, char *buf, size_t len, TSK_FS_FILE_READ_FLAG_ENUM flags) {
  static ssize_t (*real)(TSK_FS_FILE *, TSK_OFF_T, char *, size_t, TSK_FS_FILE_READ_FLAG_ENUM);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "tsk_fs_file_read");
  stand_between(file);
  return real(file, offset, buf, len, flags);
}

ssize_t tsk_fs_file_read_type(TSK_FS_FILE *file, TSK_FS_ATTR_TYPE_ENUM type, uint16_t id, TSK_OFF_T offset, char *buf,
                              size_t len, TSK_FS_FILE_READ_FLAG_ENUM flags) {
  static ssize_t (*real)(TSK_FS_FILE *, TSK_FS_ATTR_TYPE_ENUM, uint16_t, TSK_OFF_T, char *, size_t,
                         TSK_FS_FILE_READ_FLAG_ENUM);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "tsk_fs_file_read_type");
  stand_between(file);
  return real(file, type, id, offset, buf, len, flags);
}
