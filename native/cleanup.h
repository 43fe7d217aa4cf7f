/*
 * Resources that let themselves go when their variable goes out of scope, on every path out of a function (bubblewrap's
 * `cleanup_fd` and `steal_fd`, utils.h; lxc's `__do_close`, src/lxc/memory_utils.h). errno is kept across the close, so
 * a function may `return errno = err, -1` or `fail(errno)` with cleanups still to run.
 *
 *   autoclose int fd = open(...);   ... return steal_fd(&fd);   (the caller now owns it)
 *   autofree char *buf = malloc(...); ... *out = steal_pointer(&buf);
 */
#ifndef UNIFIED_EXEC_CLEANUP_H
#define UNIFIED_EXEC_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void close_fd_at_exit(int *fd) {
  if (*fd >= 0) {
    int err = errno;
    close(*fd);
    errno = err;
  }
  *fd = -1;
}

static inline void free_at_exit(void *pointer) {
  void **p = pointer;
  free(*p);
  *p = NULL;
}

#define autoclose __attribute__((cleanup(close_fd_at_exit)))
#define autofree __attribute__((cleanup(free_at_exit)))

/* `*fd`, no longer closed at the scope's end. */
static inline int steal_fd(int *fd) {
  int out = *fd;
  *fd = -1;
  return out;
}

/* `*pointer`, no longer freed at the scope's end. */
static inline void *steal_pointer(void *pointer) {
  void **p = pointer;
  void *out = *p;
  *p = NULL;
  return out;
}

#endif
