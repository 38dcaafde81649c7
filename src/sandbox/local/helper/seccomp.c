/*
 * The local sandbox's seccomp filter: the coverage of Docker's default profile (moby/profiles
 * seccomp/default.json at cd3bed8) for a container with Docker's default capabilities, which our
 * sandboxes do not exceed (no CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_SYS_MODULE...). An allow list: any
 * other system call fails with EPERM, so the kernel interfaces that container escapes go through
 * (mount, unshare and setns, keyrings, bpf, perf events, userfaultfd, io_uring, open_by_handle_at,
 * kexec, module loading, swap, pivot_root) are out of reach even where a capability would allow them.
 *
 * Unlike Docker, only the native architecture is allowed: a 32-bit x86 or x32 system call (from
 * `int 0x80`, or with the x32 bit) kills the process. Sandbox images are native, and the compat
 * entry points are where filters and the kernel have disagreed (socketcall and ipc multiplex several
 * calls behind one number, with arguments in memory a filter cannot read).
 *
 * Newer calls than the profile knows (above its highest number) fail with ENOSYS, as runc makes them:
 * libc then falls back to the older call, where EPERM would be taken as a real refusal.
 */
#define _GNU_SOURCE
#include "sandgym-seccomp.h"
#include <errno.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Docker's unconditional allow list, plus the entries its default capabilities and our kernel
 * (>= 4.8) enable: ptrace and process_vm_{readv,writev}, chroot (CAP_SYS_CHROOT), and the
 * architecture-specific calls. Names that do not exist on this architecture are skipped. */
static const char *const allowed[] = {
    "_llseek", "_newselect", "accept", "accept4", "access", "adjtimex", "alarm", "arch_prctl",
    "arm_fadvise64_64", "arm_sync_file_range", "bind", "breakpoint", "brk", "cacheflush", "cachestat",
    "capget", "capset", "chdir", "chmod", "chown", "chown32", "chroot", "clock_adjtime", "clock_adjtime64",
    "clock_getres", "clock_getres_time64", "clock_gettime", "clock_gettime64", "clock_nanosleep",
    "clock_nanosleep_time64", "close", "close_range", "connect", "copy_file_range", "creat", "dup", "dup2",
    "dup3", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait", "epoll_pwait2",
    "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "execve", "execveat", "exit", "exit_group",
    "faccessat", "faccessat2", "fadvise64", "fadvise64_64", "fallocate", "fanotify_mark", "fchdir", "fchmod",
    "fchmodat", "fchmodat2", "fchown", "fchown32", "fchownat", "fcntl", "fcntl64", "fdatasync", "fgetxattr",
    "flistxattr", "flock", "fork", "fremovexattr", "fsetxattr", "fstat", "fstat64", "fstatat64", "fstatfs",
    "fstatfs64", "fsync", "ftruncate", "ftruncate64", "futex", "futex_requeue", "futex_time64", "futex_wait",
    "futex_waitv", "futex_wake", "futimesat", "get_robust_list", "get_thread_area", "getcpu", "getcwd",
    "getdents", "getdents64", "getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32",
    "getgroups", "getgroups32", "getitimer", "getpeername", "getpgid", "getpgrp", "getpid", "getppid",
    "getpriority", "getrandom", "getresgid", "getresgid32", "getresuid", "getresuid32", "getrlimit",
    "getrusage", "getsid", "getsockname", "getsockopt", "gettid", "gettimeofday", "getuid", "getuid32",
    "getxattr", "getxattrat", "inotify_add_watch", "inotify_init", "inotify_init1", "inotify_rm_watch",
    "io_cancel", "io_destroy", "io_getevents", "io_pgetevents", "io_pgetevents_time64", "io_setup",
    "io_submit", "ioctl", "ioprio_get", "ioprio_set", "ipc", "kill", "landlock_add_rule",
    "landlock_create_ruleset", "landlock_restrict_self", "lchown", "lchown32", "lgetxattr", "link", "linkat",
    "listen", "listmount", "listxattr", "listxattrat", "llistxattr", "lremovexattr", "lseek", "lsetxattr",
    "lstat", "lstat64", "madvise", "map_shadow_stack", "membarrier", "memfd_create", "memfd_secret",
    "mincore", "mkdir", "mkdirat", "mknod", "mknodat", "mlock", "mlock2", "mlockall", "mmap", "mmap2",
    "modify_ldt", "mprotect", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive",
    "mq_timedreceive_time64", "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "mremap", "mseal", "msgctl",
    "msgget", "msgrcv", "msgsnd", "msync", "munlock", "munlockall", "munmap", "name_to_handle_at",
    "nanosleep", "newfstatat", "open", "openat", "openat2", "pause", "pidfd_open", "pidfd_send_signal",
    "pipe", "pipe2", "pkey_alloc", "pkey_free", "pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl",
    "pread64", "preadv", "preadv2", "prlimit64", "process_mrelease", "process_vm_readv", "process_vm_writev",
    "pselect6", "pselect6_time64", "ptrace", "pwrite64", "pwritev", "pwritev2", "read", "readahead",
    "readlink", "readlinkat", "readv", "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg",
    "remap_file_pages", "removexattr", "removexattrat", "rename", "renameat", "renameat2", "restart_syscall",
    "riscv_hwprobe", "rmdir", "rseq", "rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
    "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigtimedwait_time64", "rt_tgsigqueueinfo",
    "sched_get_priority_max", "sched_get_priority_min", "sched_getaffinity", "sched_getattr",
    "sched_getparam", "sched_getscheduler", "sched_rr_get_interval", "sched_rr_get_interval_time64",
    "sched_setaffinity", "sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp",
    "select", "semctl", "semget", "semop", "semtimedop", "semtimedop_time64", "send", "sendfile",
    "sendfile64", "sendmmsg", "sendmsg", "sendto", "set_robust_list", "set_thread_area", "set_tid_address",
    "set_tls", "setfsgid", "setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups",
    "setgroups32", "setitimer", "setpgid", "setpriority", "setregid", "setregid32", "setresgid",
    "setresgid32", "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit", "setsid", "setsockopt",
    "setuid", "setuid32", "setxattr", "setxattrat", "shmat", "shmctl", "shmdt", "shmget", "shutdown",
    "sigaltstack", "signalfd", "signalfd4", "sigprocmask", "sigreturn", "socketcall", "socketpair", "splice",
    "stat", "stat64", "statfs", "statfs64", "statmount", "statx", "symlink", "symlinkat", "sync",
    "sync_file_range", "sync_file_range2", "syncfs", "sysinfo", "tee", "tgkill", "time", "timer_create",
    "timer_delete", "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime",
    "timer_settime64", "timerfd_create", "timerfd_gettime", "timerfd_gettime64", "timerfd_settime",
    "timerfd_settime64", "times", "tkill", "truncate", "truncate64", "ugetrlimit", "umask", "uname", "unlink",
    "unlinkat", "uretprobe", "utime", "utimensat", "utimensat_time64", "utimes", "vfork", "vmsplice", "wait4",
    "waitid", "waitpid", "write", "writev",
};

/* Calls newer than libseccomp 2.5.4 (Debian 12) knows, by number: from the kernel's common syscall
 * table (the same number on x86_64 and aarch64 since 5.1), except uretprobe (x86_64 only). */
static const struct {
  const char *name;
  int nr;
} newer[] = {
    {"statmount", 457},  {"listmount", 458},   {"mseal", 462},         {"setxattrat", 463},
    {"getxattrat", 464}, {"listxattrat", 465}, {"removexattrat", 466},
#ifdef __x86_64__
    {"uretprobe", 335},
#endif
};

/* Calls allowed only with some arguments (any matching rule allows). */
static const struct {
  const char *name;
  unsigned arg;
  enum scmp_compare op;
  uint64_t value, mask;
} with_args[] = {
    /* Every address family but AF_ALG (38: the kernel's crypto API, a long list of bugs) and
     * AF_VSOCK (40: host and guest sockets). */
    {"socket", 0, SCMP_CMP_LT, 38, 0},
    {"socket", 0, SCMP_CMP_EQ, 39, 0},
    {"socket", 0, SCMP_CMP_GT, 40, 0},
    /* PER_LINUX, PER_LINUX32, UNAME26, both, and the query: not ADDR_NO_RANDOMIZE (no ASLR) or
     * READ_IMPLIES_EXEC. */
    {"personality", 0, SCMP_CMP_EQ, 0x0, 0},
    {"personality", 0, SCMP_CMP_EQ, 0x8, 0},
    {"personality", 0, SCMP_CMP_EQ, 0x20000, 0},
    {"personality", 0, SCMP_CMP_EQ, 0x20008, 0},
    {"personality", 0, SCMP_CMP_EQ, 0xffffffff, 0},
    /* Threads and fork, but no new namespace: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER,
     * NEWPID, NEWNET. */
    {"clone", 0, SCMP_CMP_MASKED_EQ, 0, 0x7E020000},
};

/* clone3 passes its flags in memory, where a filter cannot check them: ENOSYS makes libc use clone. */
static const char *const enosys[] = {"clone3"};

/* The highest-numbered call the profile knows is removexattrat (466); numbers above it fail with
 * ENOSYS (see the top) up to 511, years of new calls at ~10 a year (x86_64 numbers new calls past the
 * x32 block, 512-547). One rule each: more would make the filter larger and slower to build. */
#define NEWEST_KNOWN 466
#define ENOSYS_BELOW 512

static const char *compare_name(enum scmp_compare op) {
  switch (op) {
  case SCMP_CMP_LT: return "<";
  case SCMP_CMP_EQ: return "==";
  case SCMP_CMP_GT: return ">";
  case SCMP_CMP_MASKED_EQ: return "&";
  default: return "?";
  }
}

/* The number of `name` here, or -1 when this architecture lacks it. */
static int resolve(const char *name) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR)
    for (size_t k = 0; k < sizeof newer / sizeof *newer; k++)
      if (strcmp(newer[k].name, name) == 0) return newer[k].nr;
  /* Negative numbers are libseccomp's stand-ins for calls of other architectures. */
  return nr < 0 ? -1 : nr;
}

/* Builds the filter; with `out`, also lists its rules there. */
static int build(scmp_filter_ctx *result, FILE *out) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (!ctx) return -ENOMEM;
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  /* A binary tree of numbers rather than a list: a call is found in ~9 comparisons, not ~400. */
  if (rc == 0) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  if (out) fprintf(out, "default errno %d\nbadarch kill\n", EPERM);
  for (size_t k = 0; rc == 0 && k < sizeof allowed / sizeof *allowed; k++) {
    int nr = resolve(allowed[k]);
    if (out) fprintf(out, nr < 0 ? "skip %s\n" : "allow %s\n", allowed[k]);
    if (nr >= 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
  }
  for (size_t k = 0; rc == 0 && k < sizeof with_args / sizeof *with_args; k++) {
    int nr = resolve(with_args[k].name);
    struct scmp_arg_cmp cmp = with_args[k].op == SCMP_CMP_MASKED_EQ
                                  ? SCMP_CMP(with_args[k].arg, SCMP_CMP_MASKED_EQ, with_args[k].mask, with_args[k].value)
                                  : SCMP_CMP(with_args[k].arg, with_args[k].op, with_args[k].value);
    if (out) {
      fprintf(out, "allow %s if arg%u %s 0x%llx", with_args[k].name, with_args[k].arg, compare_name(with_args[k].op),
              (unsigned long long)(with_args[k].op == SCMP_CMP_MASKED_EQ ? with_args[k].mask : with_args[k].value));
      if (with_args[k].op == SCMP_CMP_MASKED_EQ) fprintf(out, " == 0x%llx", (unsigned long long)with_args[k].value);
      fputc('\n', out);
    }
    if (nr >= 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, cmp);
  }
  for (size_t k = 0; rc == 0 && k < sizeof enosys / sizeof *enosys; k++) {
    int nr = resolve(enosys[k]);
    if (out) fprintf(out, "errno %d %s\n", ENOSYS, enosys[k]);
    if (nr >= 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
  }
  if (out) fprintf(out, "errno %d %d-%d\n", ENOSYS, NEWEST_KNOWN + 1, ENOSYS_BELOW - 1);
  for (int nr = NEWEST_KNOWN + 1; rc == 0 && nr < ENOSYS_BELOW; nr++) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
  if (rc != 0) {
    seccomp_release(ctx);
    return rc;
  }
  *result = ctx;
  return 0;
}

/* Returns 0, or -1 with errno set from a libseccomp result (-errno). */
static int fail(int rc) {
  if (rc == 0) return 0;
  errno = -rc;
  return -1;
}

/*
 * The filter as classic BPF. Building it takes 2 ms of CPU, and 10-50 ms of wall time on this loaded
 * 2-core machine, for each exec (every command runs a new sandgym-helper); loading a built program
 * takes 0.15 ms. So helper-binary.ts builds it once when it compiles the helper, with this file's
 * `bpf-c` mode, and compiles the result in as SANDGYM_SECCOMP_PREBUILT (a file of sock_filter
 * initializers). Without it (tests, other builds), it is built on first use.
 */
#ifdef SANDGYM_SECCOMP_PREBUILT
static struct sock_filter prebuilt[] = {
#include SANDGYM_SECCOMP_PREBUILT
};
static struct sock_fprog program = {sizeof prebuilt / sizeof *prebuilt, prebuilt};
#else
static struct sock_fprog program;
#endif

/* Builds `program` unless compiled in: 0, or -1 with errno set. */
static int prepare(void) {
  if (program.filter) return 0;
  scmp_filter_ctx ctx;
  int rc = build(&ctx, NULL);
  if (rc != 0) return fail(rc);
  /* libseccomp 2.5 exports only to a file descriptor. */
  int fd = memfd_create("sandgym-seccomp", MFD_CLOEXEC);
  struct stat st;
  void *bytes = NULL;
  if (fd < 0) rc = -errno;
  else if ((rc = seccomp_export_bpf(ctx, fd)) == 0) {
    if (fstat(fd, &st) != 0) rc = -errno;
    else if (!(bytes = malloc(st.st_size))) rc = -ENOMEM;
    else if (pread(fd, bytes, st.st_size, 0) != st.st_size) rc = -EIO;
  }
  seccomp_release(ctx);
  if (fd >= 0) close(fd);
  if (rc != 0) {
    free(bytes);
    return fail(rc);
  }
  program.len = st.st_size / sizeof(struct sock_filter);
  program.filter = bytes;
  return 0;
}

int sandgym_install_seccomp(void) {
  if (prepare() != 0) return -1;
  /* What seccomp_load does, with the program built above. no_new_privs lets a process without
   * CAP_SYS_ADMIN load a filter, and keeps setuid programs from shedding it. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0 ? 0 : -1;
}

int sandgym_seccomp_bpf_fd(void) {
  if (prepare() != 0) return -1;
  size_t size = program.len * sizeof(struct sock_filter);
  int fd = memfd_create("sandgym-seccomp", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (pwrite(fd, program.filter, size, 0) != (ssize_t)size) {
    close(fd);
    errno = EIO;
    return -1;
  }
  return fd;
}

#ifdef SANDGYM_SECCOMP_MAIN
/*
 * For tests, built on its own (`cc -DSANDGYM_SECCOMP_MAIN seccomp.c -lseccomp`):
 *   rules            print the rule list
 *   bpf-c            print the built program as C initializers (SANDGYM_SECCOMP_PREBUILT)
 *   run ARGV...      run ARGV under the filter
 */
int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "rules") == 0) {
    scmp_filter_ctx ctx;
    if (build(&ctx, stdout) != 0) return 1;
    seccomp_release(ctx);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "bpf-c") == 0) {
    if (prepare() != 0) return 1;
    for (size_t k = 0; k < program.len; k++) {
      const struct sock_filter *f = &program.filter[k];
      printf("{0x%x, %u, %u, 0x%x},\n", f->code, f->jt, f->jf, f->k);
    }
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "run") == 0) {
    if (sandgym_install_seccomp() != 0) {
      perror("sandgym_install_seccomp");
      return 125;
    }
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    return 127;
  }
  fputs("usage: seccomp rules | seccomp run ARGV...\n", stderr);
  return 2;
}
#endif
