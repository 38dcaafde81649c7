/*
 * sandgym-helper net INIT_PID -- PASTA_ARGV...
 *   Attach pasta to a sandbox (its user and network namespaces open as fds 3 and 4, for PASTA_ARGV's
 *   --userns and --netns), and tie its life to the sandbox's: pasta attached to a running process
 *   never exits on its own (it holds the network namespace), so this process stays behind, waits for
 *   the sandbox's pid 1 to exit and kills pasta then. PASTA_ARGV must hold `--pid FILE`: pasta forks into
 *   the background once the sandbox's interface is configured and writes the pid of the process that
 *   stays to FILE. Prints that pid on stdout (sandgym records it for close() and gc), then waits.
 *   pidfds make both waits exact: a pid reused after its process exited is never signalled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

static int pidfd(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int net(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[3], "--") != 0) die(2, "usage: net INIT_PID -- PASTA_ARGV...");
  pid_t init = (pid_t)atoi(argv[2]);
  const char *pid_file = NULL;
  for (int k = 4; k + 1 < argc; k++)
    if (strcmp(argv[k], "--pid") == 0) pid_file = argv[k + 1];
  if (!pid_file) die(2, "net: pasta needs --pid FILE");
  int init_fd = pidfd(init);
  if (init_fd < 0) die(1, "the sandbox's pid 1 is gone: %s", strerror(errno));

  /*
   * pasta opens the namespaces after giving up the capabilities that would let it open another user's
   * /proc/PID/ns (the sandbox runs as its own uid), so it gets them open, as fds 3 and 4.
   */
  int ns[2];
  static const char *kinds[2] = {"user", "net"};
  for (int k = 0; k < 2; k++) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)init, kinds[k]);
    if ((ns[k] = open(path, O_RDONLY | O_CLOEXEC)) < 0) die(1, "open %s: %s", path, strerror(errno));
  }
  pid_t child = fork();
  if (child < 0) die(1, "fork: %s", strerror(errno));
  if (child == 0) {
    /* dup2 clears close-on-exec on the copies. stdout is ours alone: it carries the pid line. */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 1) != 1 || dup2(ns[0], 3) != 3 || dup2(ns[1], 4) != 4)
      die(1, "dup2: %s", strerror(errno));
    execv(argv[4], argv + 4);
    die(127, "cannot run %s: %s", argv[4], strerror(errno));
  }
  int status;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) die(1, "waitpid: %s", strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die(1, "pasta failed (status %d)", status);
  close(ns[0]);
  close(ns[1]);

  FILE *f = fopen(pid_file, "r");
  int pasta = 0;
  if (!f || fscanf(f, "%d", &pasta) != 1 || pasta <= 0) die(1, "pasta wrote no pid to %s", pid_file);
  fclose(f);
  unlink(pid_file);
  int pasta_fd = pidfd(pasta);
  if (pasta_fd < 0) die(1, "pasta exited after start: %s", strerror(errno));

  printf("%d\n", pasta);
  fflush(stdout);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; fd++) dup2(null, fd);

  struct pollfd fds[2] = {{.fd = init_fd, .events = POLLIN}, {.fd = pasta_fd, .events = POLLIN}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents) return 1; /* pasta died first: the sandbox has lost its network */
    if (fds[0].revents) break;
  }
  syscall(SYS_pidfd_send_signal, pasta_fd, SIGKILL, NULL, 0);
  return 0;
}
