/*
 * Write-fault injection for the reliability suite (docs/reliability.md), loaded into the daemon with LD_PRELOAD and
 * compiled at test time by write-faults.reliability.spec.ts: the way SQLite's own tests inject I/O errors through a
 * VFS, but under every writer of the process (SQLite in any thread, Node's fs).
 *
 * It watches the file descriptors opened on FAULT_SHIM_DIR or anything under it (a path holding FAULT_SHIM_EXCLUDE
 * is left alone) and counts their write-like calls: write, pwrite, writev, pwritev, fsync, fdatasync, ftruncate,
 * fallocate. Before each one it reads FAULT_SHIM_CONTROL, a file of three words, "<generation> <k> <errno name>":
 * a new generation starts the count at 0; with k = 0 every call is let through and reported, with k > 0 the k-th
 * call of the generation fails with that errno (EIO, EROFS, ENOSPC or EDQUOT) without reaching the kernel, and is
 * reported; with k < 0 every call goes through unreported.
 * Reports are single lines on stderr: "fault-shim: gen G op N NAME PATH" and "fault-shim: gen G failed N NAME PATH
 * ERRNO". The test writes the control file by rename, so that it is never read half-written.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

static char *tracked[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long generation = -1;
static long count = 0;

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_pwritev64v2)(int, const struct iovec *, int, off_t, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_fallocate64)(int, int, off_t, off_t);

#define RESOLVE(name) real_##name = dlsym(RTLD_NEXT, #name)

__attribute__((constructor)) static void init(void) {
  if (real_fallocate64 != NULL) return;
  RESOLVE(open);
  RESOLVE(open64);
  RESOLVE(openat);
  RESOLVE(openat64);
  RESOLVE(close);
  RESOLVE(read);
  RESOLVE(write);
  RESOLVE(pwrite);
  RESOLVE(pwrite64);
  RESOLVE(writev);
  RESOLVE(pwritev);
  RESOLVE(pwritev64);
  RESOLVE(pwritev2);
  RESOLVE(pwritev64v2);
  RESOLVE(fsync);
  RESOLVE(fdatasync);
  RESOLVE(ftruncate);
  RESOLVE(ftruncate64);
  RESOLVE(fallocate);
  RESOLVE(fallocate64);
}

/** A call that arrives before the constructor ran (another library's) still finds the real functions. */
#define ENSURE()                                                                                                 \
  do {                                                                                                           \
    if (real_fallocate64 == NULL) init();                                                                        \
  } while (0)

static void report(const char *line) {
  size_t length = strlen(line);
  if (real_write != NULL) real_write(2, line, length);
}

/** Remembers the path of a descriptor just opened when it lies under FAULT_SHIM_DIR. */
static void track(int fd) {
  const char *dir = getenv("FAULT_SHIM_DIR");
  if (fd < 0 || fd >= MAX_FDS || dir == NULL || dir[0] == '\0') return;
  char link[64];
  char path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return;
  path[n] = '\0';
  size_t dirLength = strlen(dir);
  if (strncmp(path, dir, dirLength) != 0 || (path[dirLength] != '\0' && path[dirLength] != '/')) return;
  const char *exclude = getenv("FAULT_SHIM_EXCLUDE");
  if (exclude != NULL && exclude[0] != '\0' && strstr(path, exclude) != NULL) return;
  char *copy = strdup(path);
  pthread_mutex_lock(&lock);
  free(tracked[fd]);
  tracked[fd] = copy;
  pthread_mutex_unlock(&lock);
}

static void untrack(int fd) {
  if (fd < 0 || fd >= MAX_FDS) return;
  pthread_mutex_lock(&lock);
  free(tracked[fd]);
  tracked[fd] = NULL;
  pthread_mutex_unlock(&lock);
}

static int errnoNamed(const char *name) {
  if (strcmp(name, "ENOSPC") == 0) return ENOSPC;
  if (strcmp(name, "EROFS") == 0) return EROFS;
  if (strcmp(name, "EDQUOT") == 0) return EDQUOT;
  if (strcmp(name, "EACCES") == 0) return EACCES;
  return EIO;
}

/** 0 to let the call through, or the errno it fails with. */
static int decide(int fd, const char *op) {
  if (fd < 0 || fd >= MAX_FDS || tracked[fd] == NULL) return 0;
  const char *control = getenv("FAULT_SHIM_CONTROL");
  if (control == NULL) return 0;
  char text[128] = {0};
  int cfd = real_open(control, O_RDONLY | O_CLOEXEC);
  if (cfd < 0) return 0;
  ssize_t n = real_read(cfd, text, sizeof text - 1);
  real_close(cfd);
  if (n <= 0) return 0;
  long gen = 0;
  long k = 0;
  char name[32] = "EIO";
  if (sscanf(text, "%ld %ld %31s", &gen, &k, name) < 2) return 0;
  char line[4300];
  int fail = 0;
  pthread_mutex_lock(&lock);
  if (gen != generation) {
    generation = gen;
    count = 0;
  }
  long n_op = ++count;
  const char *path = tracked[fd] != NULL ? tracked[fd] : "?";
  if (k > 0 && n_op == k) {
    fail = errnoNamed(name);
    snprintf(line, sizeof line, "fault-shim: gen %ld failed %ld %s %s %s\n", gen, n_op, op, path, name);
  } else if (k == 0) {
    snprintf(line, sizeof line, "fault-shim: gen %ld op %ld %s %s\n", gen, n_op, op, path);
  } else {
    line[0] = '\0';
  }
  pthread_mutex_unlock(&lock);
  if (line[0] != '\0') report(line);
  return fail;
}

#define OPEN_MODE(flags, mode)                                                                                   \
  ENSURE();                                                                                                      \
  mode_t mode = 0;                                                                                               \
  if (((flags) & O_CREAT) != 0 || ((flags) & __O_TMPFILE) == __O_TMPFILE) {                                      \
    va_list args;                                                                                                \
    va_start(args, flags);                                                                                       \
    mode = va_arg(args, mode_t);                                                                                 \
    va_end(args);                                                                                                \
  }

int open(const char *path, int flags, ...) {
  OPEN_MODE(flags, mode);
  int fd = real_open(path, flags, mode);
  track(fd);
  return fd;
}

int open64(const char *path, int flags, ...) {
  OPEN_MODE(flags, mode);
  int fd = real_open64(path, flags, mode);
  track(fd);
  return fd;
}

int openat(int dirfd, const char *path, int flags, ...) {
  OPEN_MODE(flags, mode);
  int fd = real_openat(dirfd, path, flags, mode);
  track(fd);
  return fd;
}

int openat64(int dirfd, const char *path, int flags, ...) {
  OPEN_MODE(flags, mode);
  int fd = real_openat64(dirfd, path, flags, mode);
  track(fd);
  return fd;
}

int __open_2(const char *path, int flags) { return open(path, flags); }
int __open64_2(const char *path, int flags) { return open64(path, flags); }
int __openat_2(int dirfd, const char *path, int flags) { return openat(dirfd, path, flags); }
int __openat64_2(int dirfd, const char *path, int flags) { return openat64(dirfd, path, flags); }

int close(int fd) {
  ENSURE();
  untrack(fd);
  return real_close(fd);
}

#define INJECT(fd, op)                                                                                           \
  do {                                                                                                           \
    ENSURE();                                                                                                    \
    int injected = decide(fd, op);                                                                               \
    if (injected != 0) {                                                                                         \
      errno = injected;                                                                                          \
      return -1;                                                                                                 \
    }                                                                                                            \
  } while (0)

ssize_t write(int fd, const void *buffer, size_t size) {
  INJECT(fd, "write");
  return real_write(fd, buffer, size);
}

ssize_t pwrite(int fd, const void *buffer, size_t size, off_t offset) {
  INJECT(fd, "pwrite");
  return real_pwrite(fd, buffer, size, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t size, off_t offset) {
  INJECT(fd, "pwrite64");
  return real_pwrite64(fd, buffer, size, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int count_) {
  INJECT(fd, "writev");
  return real_writev(fd, iov, count_);
}

ssize_t pwritev(int fd, const struct iovec *iov, int count_, off_t offset) {
  INJECT(fd, "pwritev");
  return real_pwritev(fd, iov, count_, offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count_, off_t offset) {
  INJECT(fd, "pwritev64");
  return real_pwritev64(fd, iov, count_, offset);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int count_, off_t offset, int flags) {
  INJECT(fd, "pwritev2");
  return real_pwritev2(fd, iov, count_, offset, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int count_, off_t offset, int flags) {
  INJECT(fd, "pwritev64v2");
  return real_pwritev64v2(fd, iov, count_, offset, flags);
}

int fsync(int fd) {
  INJECT(fd, "fsync");
  return real_fsync(fd);
}

int fdatasync(int fd) {
  INJECT(fd, "fdatasync");
  return real_fdatasync(fd);
}

int ftruncate(int fd, off_t length) {
  INJECT(fd, "ftruncate");
  return real_ftruncate(fd, length);
}

int ftruncate64(int fd, off_t length) {
  INJECT(fd, "ftruncate64");
  return real_ftruncate64(fd, length);
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
  INJECT(fd, "fallocate");
  return real_fallocate(fd, mode, offset, length);
}

int fallocate64(int fd, int mode, off_t offset, off_t length) {
  INJECT(fd, "fallocate64");
  return real_fallocate64(fd, mode, offset, length);
}
