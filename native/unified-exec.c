// Two syscalls Node has no API for. node-pty leaves its master fds inheritable, so every later child would hold
// every earlier session's terminal (readable by it, and never hung up); and reading termios lets us spot a
// password prompt without spawning stty.
#include <node_api.h>
#include <fcntl.h>
#include <termios.h>
#include <errno.h>
#include <string.h>
#include <stdio.h>

static int fd_arg(napi_env env, napi_callback_info info, int32_t* fd) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return 0;
  return napi_get_value_int32(env, argv[0], fd) == napi_ok;
}

static napi_value throw_errno(napi_env env, const char* what) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, message);
  return NULL;
}

// setCloexec(fd): marks fd close-on-exec.
static napi_value set_cloexec(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!fd_arg(env, info, &fd)) { napi_throw_type_error(env, NULL, "expected an fd"); return NULL; }
  int flags = fcntl(fd, F_GETFD);
  if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) return throw_errno(env, "fcntl");
  return NULL;
}

// localModes(fd): { canonical, echo } of the terminal behind fd (tcgetattr c_lflag).
static napi_value local_modes(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!fd_arg(env, info, &fd)) { napi_throw_type_error(env, NULL, "expected an fd"); return NULL; }
  struct termios t;
  if (tcgetattr(fd, &t) < 0) return throw_errno(env, "tcgetattr");
  napi_value result, canonical, echo;
  napi_create_object(env, &result);
  napi_get_boolean(env, (t.c_lflag & ICANON) != 0, &canonical);
  napi_get_boolean(env, (t.c_lflag & ECHO) != 0, &echo);
  napi_set_named_property(env, result, "canonical", canonical);
  napi_set_named_property(env, result, "echo", echo);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "setCloexec", NAPI_AUTO_LENGTH, set_cloexec, NULL, &fn);
  napi_set_named_property(env, exports, "setCloexec", fn);
  napi_create_function(env, "localModes", NAPI_AUTO_LENGTH, local_modes, NULL, &fn);
  napi_set_named_property(env, exports, "localModes", fn);
  return exports;
}
