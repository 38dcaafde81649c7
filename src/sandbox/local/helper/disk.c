/*
 * The sandbox's writable disk: a sparse ext4 image of DISK_BYTES in the sandbox directory, mounted on
 * that directory through a loop device. Unlike a tmpfs its data is on the host's disk, not pinned in
 * host memory (a full tmpfs ends in an OOM kill; a full image in ENOSPC), so the memory and disk
 * limits are separate. Measured here: mkfs of a 4 GiB sparse image without a journal takes under
 * 10 ms and writes ~0.2 MiB; with one it wrote 64 MiB and took 50 ms. A crash needs no journal: the
 * image never outlives its sandbox.
 *
 * The loop device detaches itself (LO_FLAGS_AUTOCLEAR) once the mount is gone, i.e. when the last
 * process of the sandbox's mount namespace exits; the image file is deleted with the sandbox directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
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
  struct loop_config config = {.fd = (unsigned)image_fd, .block_size = 4096};
  /* Direct I/O: the image's pages are cached once (by ext4), not a second time as the file's. */
  config.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
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

void mount_disk(const char *dir, const char *bytes, const char *mkfs, uid_t uid, gid_t gid) {
  char image[4096], device[64];
  snprintf(image, sizeof image, "%s/disk.ext4", dir);
  int fd = open(image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) die(1, "create %s: %s", image, strerror(errno));
  if (ftruncate(fd, (off_t)strtoull(bytes, NULL, 10)) != 0) die(1, "size %s: %s", image, strerror(errno));
  run_mkfs(mkfs, image, uid, gid);
  int loop = attach_loop(fd, device, sizeof device);
  if (mount(device, dir, "ext4", MS_NOSUID | MS_NOATIME, "") != 0) die(1, "mount %s on %s: %s", device, dir, strerror(errno));
  close(loop);
  close(fd);
}
