/*
 * What an attacker in a sandbox tries first, one system call each, for seccomp.test.ts and
 * seccomp.local.test.ts. Prints `NAME RESULT` a line: `ok`, or the errno's name. Arguments are chosen so
 * that a call the filter lets through does no harm even on the host (paths that do not exist, null
 * pointers, our own namespaces).
 *
 *   seccomp-probe          the system calls below
 *   seccomp-probe int80    getpid through the 32-bit entry point (the filter kills the process)
 *   seccomp-probe x32      getpid as an x32 call (likewise)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_ALG
#define AF_ALG 38
#endif

static const char *errno_name(int e) {
  switch (e) {
  case EPERM: return "EPERM";
  case ENOSYS: return "ENOSYS";
  case EACCES: return "EACCES";
  case EINVAL: return "EINVAL";
  case ENOENT: return "ENOENT";
  case EFAULT: return "EFAULT";
  case EBADF: return "EBADF";
  case EAFNOSUPPORT: return "EAFNOSUPPORT";
  default: return "other";
  }
}

static void report(const char *name, long rc) {
  printf("%s %s\n", name, rc < 0 ? errno_name(errno) : "ok");
}

/* A raw clone: a child made despite the filter exits at once. */
static long raw_clone(unsigned long flags) {
  long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, NULL, 0);
  return pid;
}

static void *thread_main(void *arg) { return arg; }

int main(int argc, char **argv) {
#ifdef __x86_64__
  if (argc == 2 && strcmp(argv[1], "int80") == 0) {
    long rc;
    __asm__ volatile("int $0x80" : "=a"(rc) : "a"(20L) : "memory"); /* i386 getpid */
    printf("int80 survived %ld\n", rc);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "x32") == 0) {
    printf("x32 survived %ld\n", syscall(0x40000000L | 39)); /* x32 getpid */
    return 0;
  }
#endif
  (void)argc, (void)argv;
  setvbuf(stdout, NULL, _IOLBF, 0);

  /* Escapes and kernel attack surface: all must fail. */
  report("keyctl", syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
  report("add_key", syscall(SYS_add_key, "user", "sandgym-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING));
  report("request_key", syscall(SYS_request_key, "user", "sandgym-probe", NULL, 0));
  report("unshare_newuser", syscall(SYS_unshare, CLONE_NEWUSER));
  report("unshare_newns", syscall(SYS_unshare, CLONE_NEWNS));
  report("unshare_newnet", syscall(SYS_unshare, CLONE_NEWNET));
  report("clone_newuser", raw_clone(CLONE_NEWUSER));
  report("clone_newpid", raw_clone(CLONE_NEWPID));
  int ns = open("/proc/self/ns/uts", O_RDONLY);
  report("setns", syscall(SYS_setns, ns, 0));
  report("mount", syscall(SYS_mount, "none", "/nonexistent-sandgym-probe", "tmpfs", 0, NULL));
  report("umount2", syscall(SYS_umount2, "/nonexistent-sandgym-probe", 0));
  report("pivot_root", syscall(SYS_pivot_root, "/nonexistent-sandgym-probe", "/nonexistent-sandgym-probe"));
  report("open_tree", syscall(SYS_open_tree, -1, "/nonexistent-sandgym-probe", 0));
  report("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
  report("userfaultfd", syscall(SYS_userfaultfd, 0));
  report("bpf", syscall(SYS_bpf, 0, NULL, 0));
  report("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
  report("io_uring_setup", syscall(SYS_io_uring_setup, 1, NULL));
  report("open_by_handle_at", syscall(SYS_open_by_handle_at, -1, NULL, 0));
  report("kexec_load", syscall(SYS_kexec_load, 0, 0, NULL, 0));
  report("kexec_file_load", syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0));
  report("init_module", syscall(SYS_init_module, NULL, 0, ""));
  report("finit_module", syscall(SYS_finit_module, -1, "", 0));
  report("delete_module", syscall(SYS_delete_module, "nonexistent_sandgym_probe", 0));
  report("swapon", syscall(SYS_swapon, "/nonexistent-sandgym-probe", 0));
  report("swapoff", syscall(SYS_swapoff, "/nonexistent-sandgym-probe"));
  report("acct", syscall(SYS_acct, "/nonexistent-sandgym-probe"));
  report("syslog", syscall(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0));
  report("settimeofday", syscall(SYS_settimeofday, NULL, NULL));
  report("socket_vsock", socket(AF_VSOCK, SOCK_STREAM, 0));
  report("socket_alg", socket(AF_ALG, SOCK_SEQPACKET, 0));
  report("personality_no_aslr", personality(ADDR_NO_RANDOMIZE));
  report("clone3", syscall(SYS_clone3, NULL, 0));

  /* Normal work: all must succeed. */
  pid_t child = fork();
  if (child == 0) _exit(0);
  report("fork", child < 0 ? -1 : waitpid(child, NULL, 0));
  pthread_t thread;
  errno = pthread_create(&thread, NULL, thread_main, NULL);
  report("thread", errno ? -1 : pthread_join(thread, NULL));
  report("socket_inet", socket(AF_INET, SOCK_STREAM, 0));
  report("socket_unix", socket(AF_UNIX, SOCK_STREAM, 0));
  report("personality_query", personality(0xffffffff));
  report("getpid", getpid());
  return 0;
}
