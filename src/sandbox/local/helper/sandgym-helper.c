/*
 * sandgym-helper: the two host-side steps of a local sandbox that would otherwise take a shell and
 * several tools each (a process spawn costs a millisecond or more; a sandbox lifecycle is ~25 ms).
 * sandgym compiles it on first use (see helper-binary.ts) and falls back to the shell path when the
 * host has no C compiler. Both paths do exactly the same steps.
 *
 *   sandgym-helper start LIMITS DIR DISK_BYTES LAYERS_DIR LOWERDIR COPY_FROM|- CP -- BWRAP_ARGV...
 *     Join the sandbox's limits, enter a private mount namespace, mount a tmpfs of DISK_BYTES on
 *     DIR/disk with the overlay's upper and work dirs (copying COPY_FROM into upper for a fork), mount
 *     the overlay of LOWERDIR (relative to LAYERS_DIR) on DIR/merged, then exec bwrap.
 *
 *   sandgym-helper enter LIMITS INIT_PID CWD -- ARGV...
 *     Join the exec's limits, enter every namespace of the sandbox's pid 1 (its user namespace last,
 *     so the command's capabilities are those of that namespace only) and its root, then run ARGV in
 *     CWD as a child (entering a pid namespace takes a fork) and exit as it did.
 *
 *   LIMITS = N PROCS_FILE... AS_BYTES|- FSIZE_BYTES|-
 *     N cgroup.procs files to write our pid to, then rlimits (address space, file size) or "-".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(int code, const char *fmt, ...) {
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

static int start(int argc, char **argv) {
  int i = join_limits(argc, argv, 2);
  const char *dir = arg(argc, argv, i++), *disk = arg(argc, argv, i++), *layers = arg(argc, argv, i++);
  const char *lower = arg(argc, argv, i++), *copy_from = arg(argc, argv, i++), *cp = arg(argc, argv, i++);
  i = expect_separator(argc, argv, i);

  if (unshare(CLONE_NEWNS) != 0) die(1, "unshare: %s", strerror(errno));
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die(1, "make mounts private: %s", strerror(errno));
  char path[4096], upper[4096], work[4096], opts[4096];
  snprintf(path, sizeof path, "%s/disk", dir);
  snprintf(opts, sizeof opts, "size=%s,mode=0755", disk);
  if (mount("sandgym-disk", path, "tmpfs", 0, opts) != 0) die(1, "mount tmpfs on %s: %s", path, strerror(errno));
  snprintf(upper, sizeof upper, "%s/disk/upper", dir);
  snprintf(work, sizeof work, "%s/disk/work", dir);
  if (mkdir(upper, 0755) != 0 || mkdir(work, 0755) != 0) die(1, "mkdir in %s: %s", path, strerror(errno));
  if (strcmp(copy_from, "-") != 0) run_cp(cp, copy_from, upper);
  if (chdir(layers) != 0) die(1, "chdir %s: %s", layers, strerror(errno));
  int len = snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,index=off,redirect_dir=off,metacopy=off",
                     lower, upper, work);
  /* The kernel reads mount options from one page. */
  if (len >= (int)sizeof opts) die(1, "overlay options too long: the image has too many layers");
  snprintf(path, sizeof path, "%s/merged", dir);
  if (mount("sandgym-root", path, "overlay", 0, opts) != 0) die(1, "mount overlay on %s: %s", path, strerror(errno));
  if (chdir("/") != 0) die(1, "chdir /: %s", strerror(errno));
  execv(argv[i], argv + i);
  die(127, "cannot run %s: %s", argv[i], strerror(errno));
  return 127;
}

static int enter(int argc, char **argv) {
  int i = join_limits(argc, argv, 2);
  const char *init = arg(argc, argv, i++), *cwd = arg(argc, argv, i++);
  i = expect_separator(argc, argv, i);

  /* Open everything first: entering the mount namespace changes what /proc paths mean. */
  /*
   * The user namespace goes last: entering it drops our capabilities outside it, and a sandbox with
   * network access shares the host's network namespace, which only host root may enter.
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
  /* bwrap denies setgroups in the sandbox's user namespace; then there are no groups to drop. */
  if (setgroups(0, NULL) != 0 && errno != EPERM) die(125, "setgroups: %s", strerror(errno));
  if (setgid(0) != 0 || setuid(0) != 0) die(125, "setuid 0: %s", strerror(errno));

  pid_t child = fork();
  if (child < 0) die(125, "fork: %s", strerror(errno));
  if (child == 0) {
    if (chdir(cwd) != 0) {
      fprintf(stderr, "cannot cd to %s: %s\n", cwd, strerror(errno));
      _exit(1);
    }
    execvp(argv[i], argv + i);
    int err = errno;
    fprintf(stderr, "%s: %s\n", argv[i], err == ENOENT ? "command not found" : strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) die(125, "waitpid: %s", strerror(errno));
  }
  if (WIFSIGNALED(status)) {
    /* Die the same way, so our parent sees the signal and reports 128+N. */
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv) {
  const char *mode = arg(argc, argv, 1);
  if (strcmp(mode, "start") == 0) return start(argc, argv);
  if (strcmp(mode, "enter") == 0) return enter(argc, argv);
  die(2, "unknown mode %s (start or enter)", mode);
  return 2;
}
