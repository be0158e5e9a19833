/*
 * toolshed-statx-compat: preloaded into commands under gVisor (SANDBOX_RUNTIME=runsc) only.
 *
 * The gVisor Debian ships (release 20221219) refuses statx(2) with AT_NO_AUTOMOUNT (EINVAL), and
 * coreutils 9 passes that flag for every path it is given: under runsc `ls /workspace`, `ls -d /`
 * and `stat FILE` all failed with "Invalid argument" (`ls` with no operand, fstatat and Python
 * worked). Nothing automounts inside a sandbox, so the flag means nothing there: a statx that
 * fails with EINVAL while it carries the flag is asked again without it. Any other result is
 * returned as it came, so under a kernel that accepts the flag this changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>

typedef int (*statx_fn)(int, const char *, int, unsigned int, struct statx *);

int statx(int dirfd, const char *restrict path, int flags, unsigned int mask, struct statx *restrict buf) {
  static statx_fn real;
  if (real == NULL) real = (statx_fn)dlsym(RTLD_NEXT, "statx");
  if (real == NULL) {
    errno = ENOSYS;
    return -1;
  }
  int r = real(dirfd, path, flags, mask, buf);
  if (r == -1 && errno == EINVAL && (flags & AT_NO_AUTOMOUNT) != 0)
    r = real(dirfd, path, flags & ~AT_NO_AUTOMOUNT, mask, buf);
  return r;
}
