/*
 * The sandbox's writable disk: a sparse ext4 image of DISK_BYTES in the sandbox directory, mounted on
 * that directory through a loop device. Unlike a tmpfs its data is on the host's disk, not pinned in
 * host memory (a full tmpfs ends in an OOM kill; a full image in ENOSPC), so the memory and disk
 * limits are separate. mkfs of a 4 GiB sparse image without a journal writes ~0.2 MiB (with one: 64
 * MiB, 50 ms); a crash needs no journal, as the image never outlives its sandbox. mkfs runs once per
 * size: each sandbox's image is a sparse copy of a template (its data extents), measured here at
 * <0.5 ms against ~6 ms for a mkfs run (fork, exec, format) at load 10.
 *
 * The loop device detaches itself (LO_FLAGS_AUTOCLEAR) once the mount is gone, i.e. when the last
 * process of the sandbox's mount namespace exits; the image file is deleted with the sandbox directory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

static void run_mkfs(const char *mkfs, const char *image, uid_t uid, gid_t gid) {
  char extended[128];
  snprintf(extended, sizeof extended, "nodiscard,root_owner=%u:%u", (unsigned)uid, (unsigned)gid);
  pid_t child = fork();
  if (child < 0) die(1, "fork: %s", strerror(errno));
  if (child == 0) {
    /* -m 0: root inside may use every block; -b 4096: the loop device's block size. */
    execl(mkfs, "mkfs.ext4", "-q", "-F", "-m", "0", "-b", "4096", "-O", "^has_journal,^resize_inode", "-E",
          extended, "--", image, (char *)NULL);
    die(127, "cannot run %s: %s", mkfs, strerror(errno));
  }
  int status;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die(1, "mkfs.ext4 of %s failed", image);
}

/* Binds the image to a free loop device; returns the device's fd. */
static int attach_loop(int image_fd, char *device, size_t size) {
  int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (control < 0) die(1, "open /dev/loop-control: %s", strerror(errno));
  /*
   * Sandboxes starting together all get the same free device and all but one get EBUSY: with 64 at once
   * the last one lost 64 times (bench:serve's 64 clients failed so). Helpers take turns on a lock of the
   * control device (released when it is closed); the retries remain for other tools' attaches.
   */
  if (flock(control, LOCK_EX) != 0) die(1, "lock /dev/loop-control: %s", strerror(errno));
  struct loop_config config = {.fd = (unsigned)image_fd, .block_size = 4096};
  /*
   * Buffered, not direct I/O: direct I/O would cache the image's pages once instead of twice, but made
   * the mount wait for the freshly copied template to reach the disk (mount p50 3.2-7.5 ms against 2.6).
   */
  config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
  /* Another process may take the free device between the two calls: then ask again. */
  for (int attempt = 0; attempt < 64; attempt++) {
    int n = ioctl(control, LOOP_CTL_GET_FREE);
    if (n < 0) die(1, "no free loop device: %s", strerror(errno));
    snprintf(device, size, "/dev/loop%d", n);
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) die(1, "open %s: %s", device, strerror(errno));
    if (ioctl(fd, LOOP_CONFIGURE, &config) == 0) {
      close(control);
      return fd;
    }
    int err = errno;
    close(fd);
    if (err != EBUSY) die(1, "attach %s to a loop device: %s", device, strerror(err));
  }
  die(1, "no free loop device after 64 tries");
  return -1;
}

/* Sizes are the caller's choice: keep the MAX_TEMPLATES most recently used (each ~0.2-3 MiB of disk). */
#define MAX_TEMPLATES 16

/* Deletes the least recently used templates until there is room for one more. */
static void prune_templates(const char *templates) {
  for (;;) {
    DIR *d = opendir(templates);
    if (!d) return;
    char oldest[256] = "";
    struct timespec oldest_at = {0, 0};
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
      struct stat st;
      if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      count++;
      if (!oldest[0] || st.st_mtim.tv_sec < oldest_at.tv_sec ||
          (st.st_mtim.tv_sec == oldest_at.tv_sec && st.st_mtim.tv_nsec < oldest_at.tv_nsec)) {
        snprintf(oldest, sizeof oldest, "%s", e->d_name);
        oldest_at = st.st_mtim;
      }
    }
    /* A start that has it open keeps its copy; one that opens it next makes it again. */
    int done = count < MAX_TEMPLATES || unlinkat(dirfd(d), oldest, 0) != 0;
    closedir(d);
    if (done) return;
  }
}

/*
 * The formatted image of `bytes` bytes owned by uid:gid ("v1": of run_mkfs's options), made once in
 * `<home>/disk-templates` (DIR is `<home>/sandboxes/<id>`; on disk, as sizes are the caller's choice)
 * and renamed into place, so concurrent starts race harmlessly. Returns it open for reading.
 */
static int open_template(const char *dir, const char *bytes, const char *mkfs, uid_t uid, gid_t gid) {
  char templates[4096], path[4200], tmp[4300];
  snprintf(templates, sizeof templates, "%s", dir);
  for (int k = 0; k < 2; k++) {
    char *slash = strrchr(templates, '/');
    if (!slash || slash == templates) die(2, "%s is not <home>/sandboxes/<id>", dir);
    *slash = 0;
  }
  strncat(templates, "/disk-templates", sizeof templates - strlen(templates) - 1);
  snprintf(path, sizeof path, "%s/ext4-v1-%s-%u-%u", templates, bytes, (unsigned)uid, (unsigned)gid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    futimens(fd, NULL); /* last used now: pruning goes by it */
    return fd;
  }
  prune_templates(templates);
  if (mkdir(templates, 0700) != 0 && errno != EEXIST) die(1, "mkdir %s: %s", templates, strerror(errno));
  snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
  int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0 || ftruncate(out, (off_t)strtoull(bytes, NULL, 10)) != 0)
    die(1, "create %s: %s", tmp, strerror(errno));
  close(out);
  run_mkfs(mkfs, tmp, uid, gid);
  if (rename(tmp, path) != 0) die(1, "rename %s: %s", tmp, strerror(errno));
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) die(1, "open %s: %s", path, strerror(errno));
  return fd;
}

/* Copies the data extents of `from` into `to` (of the same size, all holes): a sparse copy. */
static void copy_extents(int from, int to, const char *name) {
  static char buf[1 << 16];
  off_t data = 0, hole;
  while ((data = lseek(from, data, SEEK_DATA)) >= 0) {
    if ((hole = lseek(from, data, SEEK_HOLE)) < 0) break;
    for (; data < hole;) {
      size_t want = hole - data < (off_t)sizeof buf ? (size_t)(hole - data) : sizeof buf;
      ssize_t got = pread(from, buf, want, data);
      if (got <= 0 || pwrite(to, buf, got, data) != got) die(1, "copy into %s: %s", name, strerror(errno));
      data += got;
    }
  }
  if (errno != ENXIO) die(1, "read the disk template: %s", strerror(errno));
}

void mount_disk(const char *dir, const char *bytes, const char *mkfs, uid_t uid, gid_t gid) {
  char image[4096], device[64];
  snprintf(image, sizeof image, "%s/disk.ext4", dir);
  int fd = open(image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) die(1, "create %s: %s", image, strerror(errno));
  if (ftruncate(fd, (off_t)strtoull(bytes, NULL, 10)) != 0) die(1, "size %s: %s", image, strerror(errno));
  int template = open_template(dir, bytes, mkfs, uid, gid);
  copy_extents(template, fd, image);
  close(template);
  int loop = attach_loop(fd, device, sizeof device);
  /* noinit_itable: the inode tables are holes, zeros already; zeroing them would write 64 MiB per 4 GiB. */
  if (mount(device, dir, "ext4", MS_NOSUID | MS_NOATIME, "noinit_itable") != 0)
    die(1, "mount %s on %s: %s", device, dir, strerror(errno));
  close(loop);
  close(fd);
}
