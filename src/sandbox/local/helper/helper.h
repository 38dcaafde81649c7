/* What the helper's source files share. */
#ifndef SANDGYM_HELPER_H
#define SANDGYM_HELPER_H
#include <sys/types.h>

/* Prints "sandgym-helper: <message>" to stderr and exits with `code`. */
void die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* disk.c: makes a sparse ext4 image of `bytes` in `dir` (root directory owned by uid:gid) and mounts it on `dir`. */
void mount_disk(const char *dir, const char *bytes, const char *mkfs, uid_t uid, gid_t gid);

/* net.c: `sandgym-helper net`, pasta for a sandbox with network access. */
int net(int argc, char **argv);

#endif
