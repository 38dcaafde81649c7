/*
 * sandgym-helper: the host-side steps of a local sandbox that would otherwise take a shell and several
 * tools each (a process spawn costs a millisecond or more; a sandbox lifecycle is ~30 ms), and the fork
 * server that starts them. sandgym compiles it on first use (see helper-binary.ts); it is the only start
 * path, so every isolation property below holds for every sandbox.
 *
 * Isolation model (docs/architecture.md, "Sandbox isolation"): each sandbox gets a user namespace that
 * maps its uid/gid 0..65535 to a host range S..S+65535 of its own (S >= UID_BASE, locked for the
 * sandbox's life), so its root is an unprivileged host user; the image's layers (owned by host 0..65535)
 * are seen through id-mapped mounts, so they appear owned by S.. without a chown.
 *
 *   sandgym-helper start LIMITS DIR DISK_BYTES LAYERS_DIR LOWERDIR COPY_FROM|- COPY_BASE CP MKFS -- BWRAP_ARGV...
 *     Join the sandbox's limits; lock a free uid range and make the sandbox's user namespace; in a
 *     private mount namespace, mount an ext4 image of DISK_BYTES on DIR (disk.c) with the overlay's upper and work dirs
 *     (copying COPY_FROM into upper for a fork, its owners shifted from range COPY_BASE to ours), mount
 *     each layer of LOWERDIR (relative to LAYERS_DIR) id-mapped, the overlay of them on DIR/merged, the
 *     sandbox's /dev in DIR/dev; make DIR reachable at MNT_DIR for the unprivileged bwrap; report
 *     {"uid-base": S} on fd 3; then run bwrap as host uid S with the user namespace on fd 4 and the
 *     seccomp filter on fd 5 (for pid 1; enter installs it for every command), staying its
 *     parent (we hold the mounts and the range lock until it exits, then exit as it did).
 *
 *   sandgym-helper enter LIMITS INIT_PID CWD -- ARGV...
 *     Join the exec's limits, enter every namespace of the sandbox's pid 1 (its user namespace last) and
 *     its root, become its root (host uid S), cut capabilities to Docker's default set in that namespace
 *     only, set no_new_privs, join a new session keyring, then run ARGV in CWD as a child (entering a pid
 *     namespace takes a fork) and exit as it did. Not dumpable: the sandbox cannot read or trace it.
 *
 *   sandgym-helper shift DIR FROM TO
 *     Re-own a copied writable layer: owners FROM..FROM+65535 become TO.., host root (overlayfs'
 *     whiteouts) becomes TO, owners in TO.. stay (hard links); any other owner is an error (the ranges
 *     never overlap). Set-id bits survive (chown clears them).
 *
 *   LIMITS = N PROCS_FILE... AS_BYTES|- FSIZE_BYTES|-
 *     N cgroup.procs files to write our pid to, then rlimits (address space, file size) or "-".
 *
 *   sandgym-helper net INIT_PID -- PASTA_ARGV...
 *     Attach pasta to a sandbox with network access and kill it when the sandbox ends (net.c).
 *
 *   sandgym-helper spawner
 *     A fork server (see fork-server.ts): starts programs on request, so that sandgym's large Node process
 *     never forks (a spawn from Node blocks its event loop for milliseconds; a fork of this small process
 *     takes a fraction of one). Requests on stdin, one frame each: a little-endian u32 length, then
 *     NUL-terminated fields:
 *       S ID DETACHED STDIO FILE ARGC ARG... ENVC ENV...   start FILE; STDIO has one letter per fd from 0:
 *                                                          p (a pipe) or i (/dev/null); DETACHED 1 = setsid
 *       R ID                                              close our ends of ID's pipes (the caller has
 *                                                          opened its own through /proc/PID/fd/N)
 *     Replies on stdout, one line each:
 *       P ID PID FD...   started; FD is our end of each pipe (-1 for /dev/null)
 *       X ID CODE SIG    exited (CODE -1 when killed by signal SIG, else SIG 0)
 *       E ID ERRNO       could not start
 *     It dies with its parent, and exits when stdin closes. Every child execs, this program included:
 *     a forked child holds a copy of every request this server read (other sandboxes' environments
 *     among them), and exec discards it before anything runs near a sandbox.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"
#include "sandgym-seccomp.h"

void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sandgym-helper: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static const char *arg(int argc, char **argv, int i) {
  if (i >= argc) die(2, "missing argument %d", i);
  return argv[i];
}

/* Applies LIMITS starting at argv[i]; returns the index after them. */
static int join_limits(int argc, char **argv, int i) {
  int n = atoi(arg(argc, argv, i++));
  char pid[32];
  int len = snprintf(pid, sizeof pid, "%d", (int)getpid());
  for (int k = 0; k < n; k++, i++) {
    const char *file = arg(argc, argv, i);
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, pid, len) != len) die(1, "cannot join %s: %s", file, strerror(errno));
    close(fd);
  }
  const int resources[2] = {RLIMIT_AS, RLIMIT_FSIZE};
  for (int k = 0; k < 2; k++, i++) {
    const char *value = arg(argc, argv, i);
    if (strcmp(value, "-") == 0) continue;
    rlim_t limit = strtoull(value, NULL, 10);
    struct rlimit rl = {limit, limit};
    if (setrlimit(resources[k], &rl) != 0) die(1, "cannot set rlimit: %s", strerror(errno));
  }
  return i;
}

static int expect_separator(int argc, char **argv, int i) {
  if (strcmp(arg(argc, argv, i), "--") != 0) die(2, "expected -- before the command");
  if (i + 1 >= argc) die(2, "missing command");
  return i + 1;
}

/* ── ids ── */

/*
 * Sandbox uid ranges: slot k is host uids UID_BASE + k*RANGE .. +RANGE-1, far above any login or
 * subordinate range (useradd hands out subuids from 100000 up). A slot is taken while a process holds
 * an flock on LOCK_DIR/k: the kernel drops it when the sandbox's holder dies, however it dies.
 */
#define UID_BASE 0x40000000u
#define RANGE 65536u
#define SLOTS 16384u
#define RUN_DIR "/run/sandgym"
#define LOCK_DIR RUN_DIR "/uid-ranges"
/* An empty directory on the host: each sandbox's mount namespace mounts its own tree here. */
#define MNT_DIR RUN_DIR "/mnt"
/* The user namespace's fd in bwrap (`--userns 4` in launch-init.ts). */
#define USERNS_FD 4
/* The seccomp filter's fd in bwrap (`--seccomp 5`), which applies it to pid 1 right before exec. */
#define SECCOMP_FD 5

/* Docker's default capabilities (moby daemon/pkg/oci/caps/defaults.go). */
static const int docker_caps[] = {CAP_CHOWN,   CAP_DAC_OVERRIDE,     CAP_FSETID,     CAP_FOWNER, CAP_MKNOD,
                                  CAP_NET_RAW, CAP_SETGID,           CAP_SETUID,     CAP_SETFCAP, CAP_SETPCAP,
                                  CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_KILL, CAP_AUDIT_WRITE};

static void mkdir_root(const char *path, mode_t mode) {
  if (mkdir(path, mode) != 0 && errno != EEXIST) die(1, "mkdir %s: %s", path, strerror(errno));
}

/* Locks a free uid range; returns its first uid. The lock fd stays open (close-on-exec) in this process. */
static uid_t lock_uid_range(void) {
  mkdir_root(RUN_DIR, 0755);
  mkdir_root(LOCK_DIR, 0700);
  /* The lowest free slot: its lock file exists already (creating one costs ~10 ms on a busy ext4 /run),
     and the slots of live sandboxes before it take a microsecond each to skip. */
  for (unsigned slot = 0; slot < SLOTS; slot++) {
    char path[64];
    snprintf(path, sizeof path, LOCK_DIR "/%u", slot);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) die(1, "open %s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return UID_BASE + slot * RANGE;
    if (errno != EWOULDBLOCK) die(1, "flock %s: %s", path, strerror(errno));
    close(fd);
  }
  die(1, "all %u sandbox uid ranges are in use", SLOTS);
  return 0;
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  ssize_t len = strlen(text);
  if (fd < 0 || write(fd, text, len) != len) die(1, "write %s: %s", path, strerror(errno));
  close(fd);
}

static void become(uid_t uid) {
  if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
    die(1, "cannot become uid %u: %s", (unsigned)uid, strerror(errno));
}

/*
 * A user namespace owned by host uid `base` (so bwrap, running as that uid, may enter it) mapping 0..65535
 * to base..: made by a child that unshares and waits while we write its maps. Returns an fd to it.
 */
static int make_userns(uid_t base) {
  int ready[2], done[2];
  if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(done, O_CLOEXEC) != 0) die(1, "pipe: %s", strerror(errno));
  pid_t child = fork();
  if (child < 0) die(1, "fork: %s", strerror(errno));
  if (child == 0) {
    char c = 0;
    close(ready[0]);
    close(done[1]);
    become(base);
    if (unshare(CLONE_NEWUSER) != 0) _exit(1);
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(done[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  close(ready[1]);
  close(done[0]);
  char c, path[64], map[64];
  if (read(ready[0], &c, 1) != 1) die(1, "cannot make a user namespace");
  snprintf(map, sizeof map, "0 %u %u\n", (unsigned)base, RANGE);
  snprintf(path, sizeof path, "/proc/%d/uid_map", (int)child);
  write_file(path, map);
  snprintf(path, sizeof path, "/proc/%d/gid_map", (int)child);
  write_file(path, map);
  snprintf(path, sizeof path, "/proc/%d/ns/user", (int)child);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(1, "open %s: %s", path, strerror(errno));
  close(done[1]);
  close(ready[0]);
  while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
  }
  return fd;
}

/* ── shift ── */

static uid_t shift_from, shift_to;

static int shift_owner(unsigned id, unsigned *out) {
  if (id >= shift_from && id - shift_from < RANGE) *out = id - shift_from + shift_to;
  else if (id >= shift_to && id - shift_to < RANGE) *out = id; /* a hard link's inode, shifted at its first name */
  else if (id == 0) *out = shift_to; /* overlayfs makes whiteouts as the mounter, host root */
  else return -1;
  return 0;
}

static int shift_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)type, (void)ftw;
  unsigned uid, gid;
  if (shift_owner(st->st_uid, &uid) != 0 || shift_owner(st->st_gid, &gid) != 0) {
    fprintf(stderr, "sandgym-helper: %s is owned by %u:%u, outside the sandbox's ids\n", path,
            (unsigned)st->st_uid, (unsigned)st->st_gid);
    return 1;
  }
  if (uid == st->st_uid && gid == st->st_gid) return 0;
  if (lchown(path, uid, gid) != 0) return fprintf(stderr, "lchown %s: %s\n", path, strerror(errno)), 1;
  /* chown clears set-user/group-id; put them back (the tree is private to us while we walk it). */
  if (!S_ISLNK(st->st_mode) && (st->st_mode & (S_ISUID | S_ISGID)) && chmod(path, st->st_mode & 07777) != 0)
    return fprintf(stderr, "chmod %s: %s\n", path, strerror(errno)), 1;
  return 0;
}

static void shift_tree(const char *dir, uid_t from, uid_t to) {
  shift_from = from, shift_to = to;
  if (from != to && nftw(dir, shift_entry, 64, FTW_PHYS | FTW_MOUNT) != 0) die(1, "cannot re-own %s", dir);
}

static uid_t parse_uid(const char *s) {
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (*s == 0 || *end != 0 || v > 0xfffffffful - RANGE) die(2, "bad uid %s", s);
  return (uid_t)v;
}

static int shift(int argc, char **argv) {
  shift_tree(arg(argc, argv, 2), parse_uid(arg(argc, argv, 3)), parse_uid(arg(argc, argv, 4)));
  return 0;
}

/* ── start ── */

static void run_cp(const char *cp, const char *from, const char *to) {
  char src[4096];
  snprintf(src, sizeof src, "%s/.", from);
  pid_t child = fork();
  if (child < 0) die(1, "fork: %s", strerror(errno));
  if (child == 0) {
    execl(cp, "cp", "-a", "--", src, to, (char *)NULL);
    die(127, "cannot run %s: %s", cp, strerror(errno));
  }
  int status;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die(1, "copying %s failed", from);
}

/*
 * The sandbox's /dev, as bwrap's --dev makes it (the same six devices, a private devpts, shm), on the
 * sandbox's disk: one bind mount into the sandbox instead of --dev's tmpfs and seven, about a
 * millisecond per start. Owned by the sandbox's root, as a container's /dev is.
 */
static void make_dev(const char *dir, uid_t owner) {
  static const struct {
    const char *name;
    int major, minor;
  } devices[] = {{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}};
  static const char *links[][2] = {{"fd", "/proc/self/fd"},      {"stdin", "/proc/self/fd/0"},
                                   {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
                                   {"ptmx", "pts/ptmx"}};
  char path[4096];
  mode_t umask_was = umask(0);
  snprintf(path, sizeof path, "%s/dev", dir);
  if (mkdir(path, 0755) != 0 || chdir(path) != 0) die(1, "mkdir %s: %s", path, strerror(errno));
  for (size_t k = 0; k < sizeof devices / sizeof *devices; k++)
    if (mknod(devices[k].name, S_IFCHR | 0666, makedev(devices[k].major, devices[k].minor)) != 0 ||
        lchown(devices[k].name, owner, owner) != 0)
      die(1, "mknod %s/%s: %s", path, devices[k].name, strerror(errno));
  for (size_t k = 0; k < sizeof links / sizeof *links; k++)
    if (symlink(links[k][1], links[k][0]) != 0 || lchown(links[k][0], owner, owner) != 0)
      die(1, "symlink %s/%s: %s", path, links[k][0], strerror(errno));
  if (mkdir("shm", 01777) != 0 || mkdir("pts", 0755) != 0) die(1, "mkdir in %s: %s", path, strerror(errno));
  if (lchown(".", owner, owner) != 0 || lchown("shm", owner, owner) != 0 || lchown("pts", owner, owner) != 0)
    die(1, "chown in %s: %s", path, strerror(errno));
  char opts[128];
  snprintf(opts, sizeof opts, "newinstance,ptmxmode=0666,mode=620,uid=%u,gid=%u", (unsigned)owner, (unsigned)owner);
  if (mount("devpts", "pts", "devpts", MS_NOSUID | MS_NOEXEC, opts) != 0)
    die(1, "mount devpts in %s: %s", path, strerror(errno));
  umask(umask_was);
}

/*
 * Mounts each layer of `lower` (colon-separated, relative to the cwd) id-mapped through `userns` at
 * `into`/0, /1, ...: files owned by host 0..65535 in the shared layer appear owned by the sandbox's
 * range, read-only. Returns the overlay's lowerdir relative to the parent of `into`.
 */
static void idmap_layers(const char *lower, int userns, const char *into, char *lowerdir, size_t size) {
  char *layers = strdup(lower), *save = NULL, path[4096];
  if (!layers) die(1, "out of memory");
  mkdir_root(into, 0700);
  size_t len = 0;
  int k = 0;
  for (char *layer = strtok_r(layers, ":", &save); layer; layer = strtok_r(NULL, ":", &save), k++) {
    int tree = open_tree(AT_FDCWD, layer, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (tree < 0) die(1, "open_tree %s: %s", layer, strerror(errno));
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                              .userns_fd = userns};
    if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
      die(1, "id-map layer %s: %s", layer, strerror(errno));
    snprintf(path, sizeof path, "%s/%d", into, k);
    if (mkdir(path, 0700) != 0) die(1, "mkdir %s: %s", path, strerror(errno));
    if (move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0)
      die(1, "mount layer %s: %s", layer, strerror(errno));
    close(tree);
    int n = snprintf(lowerdir + len, size - len, "%slower/%d", k ? ":" : "", k);
    if (n < 0 || (size_t)n >= size - len) die(1, "the image has too many layers");
    len += n;
  }
  free(layers);
  if (k == 0) die(2, "no layers");
}

/* Waits for `child` and exits as it did (a signal death is re-raised, so our parent sees the signal). */
static int exit_like(pid_t child) {
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) die(125, "waitpid: %s", strerror(errno));
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int start(int argc, char **argv) {
  int i = join_limits(argc, argv, 2);
  const char *dir = arg(argc, argv, i++), *disk = arg(argc, argv, i++), *layers = arg(argc, argv, i++);
  const char *lower = arg(argc, argv, i++), *copy_from = arg(argc, argv, i++);
  const char *copy_base = arg(argc, argv, i++), *cp = arg(argc, argv, i++);
  const char *mkfs = arg(argc, argv, i++);
  i = expect_separator(argc, argv, i);
  prctl(PR_SET_DUMPABLE, 0);
  /* The sandbox dies with sandgym (bwrap's --die-with-parent then takes the rest): as bwrap was, we are
     the child of the fork server, which dies with sandgym. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) die(1, "sandgym exited before the sandbox started");

  uid_t base = lock_uid_range();
  int userns = make_userns(base);
  mkdir_root(MNT_DIR, 0755);
  if (unshare(CLONE_NEWNS) != 0) die(1, "unshare: %s", strerror(errno));
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die(1, "make mounts private: %s", strerror(errno));
  char path[4096], upper[4096], work[4096], opts[4096], lowerdir[2048];
  mount_disk(dir, disk, mkfs, 0, 0);
  snprintf(upper, sizeof upper, "%s/upper", dir);
  snprintf(work, sizeof work, "%s/work", dir);
  snprintf(path, sizeof path, "%s/merged", dir);
  if (mkdir(upper, 0755) != 0 || mkdir(work, 0700) != 0 || mkdir(path, 0755) != 0)
    die(1, "mkdir in %s: %s", dir, strerror(errno));
  /* The upper directory's owner is the owner of the sandbox's /. */
  if (chown(upper, base, base) != 0) die(1, "chown %s: %s", upper, strerror(errno));
  make_dev(dir, base);
  if (strcmp(copy_from, "-") != 0) {
    run_cp(cp, copy_from, upper);
    shift_tree(upper, parse_uid(copy_base), base);
  }
  if (chdir(layers) != 0) die(1, "chdir %s: %s", layers, strerror(errno));
  snprintf(path, sizeof path, "%s/lower", dir);
  idmap_layers(lower, userns, path, lowerdir, sizeof lowerdir);
  /* Relative paths: the sandbox sees the options in /proc/self/mountinfo, and host paths are none of its business. */
  if (chdir(dir) != 0) die(1, "chdir %s: %s", dir, strerror(errno));
  int len = snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=upper,workdir=work,index=off,redirect_dir=off,metacopy=off",
                     lowerdir);
  /* The kernel reads mount options from one page. */
  if (len >= (int)sizeof opts) die(1, "overlay options too long: the image has too many layers");
  snprintf(path, sizeof path, "%s/merged", dir);
  if (mount("sandgym-root", path, "overlay", 0, opts) != 0) die(1, "mount overlay on %s: %s", path, strerror(errno));
  /* bwrap runs as the sandbox's uid, which may not search the directories above DIR (~root is 0700). */
  if (mount(dir, MNT_DIR, NULL, MS_BIND | MS_REC, NULL) != 0) die(1, "bind %s: %s", dir, strerror(errno));
  if (chdir("/") != 0) die(1, "chdir /: %s", strerror(errno));
  dprintf(3, "{ \"uid-base\": %u }\n", (unsigned)base);

  pid_t child = fork();
  if (child < 0) die(1, "fork: %s", strerror(errno));
  if (child == 0) {
    if (dup2(userns, USERNS_FD) != USERNS_FD) die(1, "dup2: %s", strerror(errno));
    /* pid 1 runs under the filter too: a process inside could otherwise ptrace it and run unfiltered. */
    int filter = sandgym_seccomp_bpf_fd();
    /* dup2 onto itself would keep close-on-exec. */
    if (filter < 0 || (filter == SECCOMP_FD ? fcntl(filter, F_SETFD, 0) : dup2(filter, SECCOMP_FD)) < 0)
      die(1, "seccomp filter: %s", strerror(errno));
    become(base);
    /* A session keyring of the sandbox's own: keys added inside never land in one the host uses. */
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) die(1, "keyctl: %s", strerror(errno));
    execv(argv[i], argv + i);
    die(127, "cannot run %s: %s", argv[i], strerror(errno));
  }
  close(userns);
  /* We stay, holding the mounts' namespace and the uid range's lock, until bwrap exits. */
  return exit_like(child);
}

/* ── enter ── */

/* Leaves the capabilities of Docker's default set, in the current user namespace only. */
static void limit_caps(void) {
  uint64_t keep = 0;
  for (size_t k = 0; k < sizeof docker_caps / sizeof *docker_caps; k++) keep |= 1ull << docker_caps[k];
  for (int cap = 0; cap <= 63; cap++) {
    if (keep & (1ull << cap)) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
      die(125, "cannot drop capability %d: %s", cap, strerror(errno));
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) die(125, "clear ambient caps: %s", strerror(errno));
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2] = {{0}};
  for (int w = 0; w < 2; w++) data[w].effective = data[w].permitted = (uint32_t)(keep >> (32 * w));
  if (syscall(SYS_capset, &header, data) != 0) die(125, "capset: %s", strerror(errno));
}

static int enter(int argc, char **argv) {
  int i = join_limits(argc, argv, 2);
  const char *init = arg(argc, argv, i++), *cwd = arg(argc, argv, i++);
  i = expect_separator(argc, argv, i);
  /* Neither the sandbox (whose root has our uid once we enter) nor anyone else may read or trace us. */
  prctl(PR_SET_DUMPABLE, 0);

  /* Open everything first: entering the mount namespace changes what /proc paths mean. */
  /*
   * The user namespace goes last: entering it drops our capabilities outside it (and with them the
   * right to enter the others).
   */
  static const char *names[] = {"cgroup", "ipc", "uts", "net", "pid", "mnt", "user"};
  enum { COUNT = sizeof names / sizeof names[0] };
  int fds[COUNT];
  char path[256];
  for (int k = 0; k < COUNT; k++) {
    snprintf(path, sizeof path, "/proc/%s/ns/%s", init, names[k]);
    fds[k] = open(path, O_RDONLY | O_CLOEXEC);
    if (fds[k] < 0) die(125, "the sandbox's pid 1 is gone (%s: %s)", path, strerror(errno));
  }
  snprintf(path, sizeof path, "/proc/%s/root", init);
  int root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) die(125, "the sandbox's pid 1 is gone (%s: %s)", path, strerror(errno));
  for (int k = 0; k < COUNT; k++) {
    if (setns(fds[k], 0) != 0) die(125, "cannot enter the sandbox's %s namespace: %s", names[k], strerror(errno));
    close(fds[k]);
  }
  if (fchdir(root) != 0 || chroot(".") != 0) die(125, "cannot enter the sandbox's root: %s", strerror(errno));
  close(root);
  /* Root of the sandbox's namespace: host uid S. */
  if (setgroups(0, NULL) != 0 || setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0)
    die(125, "cannot become the sandbox's root: %s", strerror(errno));
  limit_caps();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die(125, "no_new_privs: %s", strerror(errno));
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) die(125, "keyctl: %s", strerror(errno));

  pid_t child = fork();
  if (child < 0) die(125, "fork: %s", strerror(errno));
  if (child == 0) {
    if (chdir(cwd) != 0) {
      fprintf(stderr, "cannot cd to %s: %s\n", cwd, strerror(errno));
      _exit(1);
    }
    if (sandgym_install_seccomp() != 0) {
      fprintf(stderr, "sandgym-helper: cannot install the seccomp filter: %s\n", strerror(errno));
      _exit(125);
    }
    execvp(argv[i], argv + i);
    int err = errno;
    fprintf(stderr, "%s: %s\n", argv[i], err == ENOENT ? "command not found" : strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  return exit_like(child);
}

/* ── spawner ── */

#define MAX_STDIO 4
#define MAX_FIELDS 65536

struct job {
  char id[32];
  pid_t pid;          /* 0 once reaped */
  int ends[MAX_STDIO]; /* our ends of its pipes, -1 once released */
  int used;
};

static struct job *jobs;
static size_t job_count;
static sigset_t spawner_old_mask;
static char self_path[4096];
static int self_fd = -1;

static struct job *new_job(void) {
  for (size_t k = 0; k < job_count; k++)
    if (!jobs[k].used) return &jobs[k];
  size_t first_new = job_count, grown = job_count ? job_count * 2 : 64;
  jobs = realloc(jobs, grown * sizeof *jobs);
  if (!jobs) die(1, "out of memory");
  memset(jobs + first_new, 0, (grown - first_new) * sizeof *jobs);
  job_count = grown;
  return &jobs[first_new];
}

static void reply(const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  for (int off = 0; off < len;) {
    ssize_t n = write(1, line + off, len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) exit(0); /* the parent is gone */
    off += n;
  }
}

static void release(struct job *j) {
  for (int k = 0; k < MAX_STDIO; k++)
    if (j->ends[k] >= 0) close(j->ends[k]), j->ends[k] = -1;
  if (j->pid == 0) j->used = 0;
}

static struct job *find_job(const char *id) {
  for (size_t k = 0; k < job_count; k++)
    if (jobs[k].used && strcmp(jobs[k].id, id) == 0) return &jobs[k];
  return NULL;
}

/* The child: stdio from `fds` (closing everything else), then exec. Never returns. */
static void exec_child(int detached, int nstdio, int *fds, const char *file, char **args, char **env) {
  sigprocmask(SIG_SETMASK, &spawner_old_mask, NULL);
  if (detached) setsid();
  /* Move the ends out of the way first: one may already sit on a number below nstdio. */
  for (int k = 0; k < nstdio; k++) fds[k] = fcntl(fds[k], F_DUPFD, 64);
  for (int k = 0; k < nstdio; k++)
    if (fds[k] < 0 || dup2(fds[k], k) < 0) _exit(127);
  /* Close-on-exec rather than closed: fexecve below still needs self_fd (an ELF file, so the exec does
     not need it after). */
  if (close_range(nstdio, ~0U, CLOSE_RANGE_CLOEXEC) != 0) _exit(127);
  /* Our own modes run from the binary we were started from, even if a newer sandgym removed its path. */
  if (strcmp(file, self_path) == 0) fexecve(self_fd, args, env);
  else execve(file, args, env);
  dprintf(2, "sandgym-helper spawner: cannot run %s: %s\n", file, strerror(errno));
  _exit(127);
}

static void spawn_job(char **f, int n) {
  /* S ID DETACHED STDIO FILE ARGC ARG... ENVC ENV... */
  if (n < 6) die(2, "spawner: short request");
  const char *id = f[1], *stdio = f[3], *file = f[4];
  int detached = atoi(f[2]), argc = atoi(f[5]);
  if (argc < 1 || 6 + argc >= n) die(2, "spawner: bad argument count");
  int envc = atoi(f[6 + argc]);
  if (envc < 0 || 7 + argc + envc > n) die(2, "spawner: bad environment count");
  int nstdio = strlen(stdio);
  if (nstdio > MAX_STDIO || strlen(id) >= sizeof jobs->id) die(2, "spawner: bad request");
  char **args = calloc(argc + 1, sizeof *args), **env = calloc(envc + 1, sizeof *env);
  if (!args || !env) die(1, "out of memory");
  memcpy(args, f + 6, argc * sizeof *args);
  memcpy(env, f + 7 + argc, envc * sizeof *env);

  struct job *j = new_job();
  memset(j, 0, sizeof *j);
  snprintf(j->id, sizeof j->id, "%s", id);
  int child_ends[MAX_STDIO];
  int err = 0;
  for (int k = 0; k < MAX_STDIO; k++) j->ends[k] = child_ends[k] = -1;
  for (int k = 0; k < nstdio && !err; k++) {
    if (stdio[k] == 'p') {
      int p[2];
      if (pipe2(p, O_CLOEXEC) != 0) {
        err = errno;
        break;
      }
      /* fd 0 is read by the child; the others are written by it. */
      child_ends[k] = k == 0 ? p[0] : p[1];
      j->ends[k] = k == 0 ? p[1] : p[0];
    } else if ((child_ends[k] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
      err = errno;
    }
  }
  pid_t pid = err ? -1 : fork();
  if (pid == 0) exec_child(detached, nstdio, child_ends, file, args, env);
  if (pid < 0 && !err) err = errno;
  for (int k = 0; k < nstdio; k++)
    if (child_ends[k] >= 0) close(child_ends[k]);
  free(args);
  free(env);
  if (err) {
    for (int k = 0; k < MAX_STDIO; k++)
      if (j->ends[k] >= 0) close(j->ends[k]);
    reply("E %s %d\n", id, err);
    return;
  }
  j->used = 1;
  j->pid = pid;
  char fds[64] = "";
  for (int k = 0; k < nstdio; k++) snprintf(fds + strlen(fds), sizeof fds - strlen(fds), " %d", j->ends[k]);
  reply("P %s %d%s\n", id, (int)pid, fds);
}

static void handle_frame(char *frame, uint32_t len) {
  static char *fields[MAX_FIELDS];
  int n = 0;
  for (uint32_t off = 0; off < len && n < MAX_FIELDS;) {
    fields[n++] = frame + off;
    char *nul = memchr(frame + off, 0, len - off);
    if (!nul) die(2, "spawner: unterminated field");
    off = nul - frame + 1;
  }
  if (n >= 2 && strcmp(fields[0], "S") == 0) return spawn_job(fields, n);
  if (n >= 2 && strcmp(fields[0], "R") == 0) {
    struct job *j = find_job(fields[1]);
    if (j) release(j);
    return;
  }
  die(2, "spawner: unknown request %s", n ? fields[0] : "");
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (size_t k = 0; k < job_count; k++) {
      struct job *j = &jobs[k];
      if (!j->used || j->pid != pid) continue;
      if (WIFSIGNALED(status)) reply("X %s -1 %d\n", j->id, WTERMSIG(status));
      else reply("X %s %d 0\n", j->id, WEXITSTATUS(status));
      j->pid = 0;
      int open_ends = 0;
      for (int e = 0; e < MAX_STDIO; e++) open_ends |= j->ends[e] >= 0;
      if (!open_ends) j->used = 0;
      break;
    }
  }
}

static int spawner(void) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 0; /* the parent died before the line above */
  prctl(PR_SET_DUMPABLE, 0);
  /* Above the fds a child's stdio is moved to, so exec_child cannot overwrite it. */
  int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  self_fd = fcntl(exe, F_DUPFD_CLOEXEC, MAX_STDIO);
  close(exe);
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (self_fd < 0 || n <= 0) die(1, "cannot open /proc/self/exe: %s", strerror(errno));
  self_path[n] = 0;
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &spawner_old_mask);
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die(1, "signalfd: %s", strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) die(1, "out of memory");
  struct pollfd pfd[2] = {{.fd = 0, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
  for (;;) {
    if (poll(pfd, 2, -1) < 0) {
      if (errno == EINTR) continue;
      die(1, "poll: %s", strerror(errno));
    }
    if (pfd[1].revents) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) > 0) {
      }
      reap();
    }
    if (!pfd[0].revents) continue;
    if (len == cap && !(buf = realloc(buf, cap *= 2))) die(1, "out of memory");
    ssize_t got = read(0, buf + len, cap - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0; /* stdin closed: sandgym is done with us */
    len += got;
    size_t off = 0;
    for (;;) {
      uint32_t frame;
      if (len - off < sizeof frame) break;
      memcpy(&frame, buf + off, sizeof frame);
      if (len - off - sizeof frame < frame) break;
      handle_frame(buf + off + sizeof frame, frame);
      off += sizeof frame + frame;
    }
    memmove(buf, buf + off, len - off);
    len -= off;
  }
}

static int run_mode(int argc, char **argv) {
  const char *mode = arg(argc, argv, 1);
  if (strcmp(mode, "start") == 0) return start(argc, argv);
  if (strcmp(mode, "enter") == 0) return enter(argc, argv);
  if (strcmp(mode, "shift") == 0) return shift(argc, argv);
  if (strcmp(mode, "spawner") == 0) return spawner();
  if (strcmp(mode, "net") == 0) return net(argc, argv);
  die(2, "unknown mode %s (start, enter, shift, net or spawner)", mode);
  return 2;
}

int main(int argc, char **argv) { return run_mode(argc, argv); }
