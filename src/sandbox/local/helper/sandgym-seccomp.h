/* The local sandbox's seccomp filter (seccomp.c). */
#ifndef SANDGYM_SECCOMP_H
#define SANDGYM_SECCOMP_H

/* Loads the filter into the calling thread (and sets no_new_privs): 0, or -1 with errno set. */
int sandgym_install_seccomp(void);

/* A memfd holding the filter as classic BPF at offset 0, for bwrap's `--seccomp FD`; close-on-exec,
 * so dup2 it to the number bwrap is told: the fd, or -1 with errno set. */
int sandgym_seccomp_bpf_fd(void);

#endif
