/*
 * unified-exec-sandbox-exec: the last step into the sandbox. Runs inside bubblewrap, restricts itself, then
 * becomes the command:
 *
 *   unified-exec-sandbox-exec --seccomp <base64 BPF program> -- command args...
 *
 * It sets no_new_privs and installs the seccomp filter (src/sandbox/seccomp.ts builds it), then execvp()s the
 * command. Filters stack: running it again under a filter adds a second one, and both apply. Errors go to stderr
 * in one line; the exit status is a shell's: 127 when the command is not found, 126 when it cannot run, 125 for
 * our own usage or setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NAME "unified-exec-sandbox-exec"
#define EXIT_SETUP 125

static int fail(const char *what, int err) {
  fprintf(stderr, NAME ": %s: %s\n", what, strerror(err));
  return EXIT_SETUP;
}

static int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Decodes padded base64 into a new buffer; returns its length, or -1 when `text` is not base64. */
static long base64_decode(const char *text, unsigned char **out) {
  size_t len = strlen(text);
  if (len == 0 || len % 4 != 0) return -1;
  unsigned char *buf = malloc(len / 4 * 3);
  if (buf == NULL) return -1;
  long n = 0;
  for (size_t i = 0; i < len; i += 4) {
    int v[4];
    for (int j = 0; j < 4; j++) {
      char c = text[i + j];
      /* '=' only in the last group's last two places. */
      v[j] = c == '=' && i + 4 == len && j >= 2 ? 0 : base64_value(c);
      if (v[j] < 0 || (j == 3 && text[i + 2] == '=' && c != '=')) {
        free(buf);
        return -1;
      }
    }
    unsigned bits = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
    buf[n++] = bits >> 16;
    if (text[i + 2] != '=') buf[n++] = bits >> 8 & 0xff;
    if (text[i + 3] != '=') buf[n++] = bits & 0xff;
  }
  *out = buf;
  return n;
}

static int install_seccomp(const char *base64) {
  unsigned char *bytes = NULL;
  long n = base64_decode(base64, &bytes);
  if (n <= 0 || n % sizeof(struct sock_filter) != 0 || n / sizeof(struct sock_filter) > BPF_MAXINSNS) {
    fprintf(stderr, NAME ": --seccomp wants a base64 BPF program of whole sock_filter records\n");
    free(bytes);
    return EXIT_SETUP;
  }
  struct sock_fprog prog = {.len = (unsigned short)(n / sizeof(struct sock_filter)),
                            .filter = (struct sock_filter *)bytes};
  /* seccomp(2) first; prctl for kernels before 3.17. */
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0 &&
      (errno != ENOSYS || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)) {
    int err = errno;
    free(bytes);
    return fail("cannot install the seccomp filter", err);
  }
  free(bytes);
  return 0;
}

int main(int argc, char **argv) {
  const char *seccomp = NULL;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--seccomp") == 0 && i + 1 < argc && seccomp == NULL) {
      seccomp = argv[++i];
    } else {
      fprintf(stderr, "usage: " NAME " [--seccomp BASE64] -- COMMAND [ARG...]\n");
      return EXIT_SETUP;
    }
  }
  if (i + 1 >= argc) {
    fprintf(stderr, "usage: " NAME " [--seccomp BASE64] -- COMMAND [ARG...]\n");
    return EXIT_SETUP;
  }
  char **command = argv + i + 1;

  /* Required for an unprivileged filter, and keeps setuid programs from gaining what the sandbox withholds. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("cannot set no_new_privs", errno);
  /* A Landlock ruleset would be restricted here, before the filter (which may deny its calls). */
  if (seccomp != NULL) {
    int status = install_seccomp(seccomp);
    if (status != 0) return status;
  }

  execvp(command[0], command);
  int err = errno;
  fprintf(stderr, NAME ": %s: %s\n", command[0], strerror(err));
  return err == ENOENT ? 127 : 126;
}
