// What Node has no API for. node-pty leaves its master fds inheritable, so every later child would hold every
// earlier session's terminal (readable by it, and never hung up); reading termios lets us spot a password prompt
// without spawning stty; and asking the kernel's socket diagnostics (sock_diag) which user owns a local TCP socket
// tells a listener which local user is at the other end of a connection, in one lookup, where /proc/net/tcp would
// be read whole. Reading /proc for input-wait's probes is here too: each probe reads a handful of small files, and one
// call that reads them all costs a fraction of Node's open, read and close of each.
#include <node_api.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/inet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
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

// One netlink socket for every lookup, opened on the first.
static int diag_fd = -1;
static uint32_t diag_seq;

static int string_arg(napi_env env, napi_value value, char* out, size_t size) {
  size_t length;
  return napi_get_value_string_utf8(env, value, out, size, &length) == napi_ok && length < size - 1;
}

// What one exact lookup found: the socket's owner, inode and (kernel 5.9+) the cgroup it was made in.
struct diag_found {
  uint32_t uid, inode;
  uint64_t cgroup;
  int has_cgroup;
};

// One exact lookup in the kernel's hash of connections (sock_diag) for the socket `id` names, asked with the
// interface `interface_index`: 1 found (into *out), 0 none, -1 an error (errno set).
static int diag_lookup(int family, const struct inet_diag_sockid* id, uint32_t interface_index, struct diag_found* out) {
  struct {
    struct nlmsghdr header;
    struct inet_diag_req_v2 body;
  } request;
  memset(&request, 0, sizeof request);
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.header.nlmsg_seq = ++diag_seq;
  request.body.sdiag_family = family;
  request.body.sdiag_protocol = IPPROTO_TCP;
  request.body.idiag_states = ~0u;
  request.body.id = *id;
  request.body.id.idiag_if = interface_index;
  if (send(diag_fd, &request, sizeof request, 0) < 0) return -1;
  // One answer per request: the socket, or an error. Answers to earlier requests (none, as each is read before the
  // next is sent) are skipped by their sequence number.
  for (;;) {
    long buffer[1024] = {0};
    ssize_t got = recv(diag_fd, buffer, sizeof buffer, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    int found = -2;
    for (struct nlmsghdr* h = (struct nlmsghdr*)buffer; NLMSG_OK(h, (size_t)got); h = NLMSG_NEXT(h, got)) {
      if (h->nlmsg_seq != diag_seq) continue;
      if (h->nlmsg_type == NLMSG_ERROR) {
        int error = -((struct nlmsgerr*)NLMSG_DATA(h))->error;
        if (error != ENOENT) {
          errno = error;
          return -1;
        }
        found = 0;
      } else if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
        const struct inet_diag_msg* message = NLMSG_DATA(h);
        found = 1;
        memset(out, 0, sizeof *out);
        out->uid = message->idiag_uid;
        out->inode = message->idiag_inode;
        // The cgroup (v2) the socket was made in (kernel 5.9+): kept on the socket whoever holds it later.
        int left = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(struct inet_diag_msg));
        for (struct rtattr* a = (struct rtattr*)(message + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
          if (a->rta_type == INET_DIAG_CGROUP_ID && RTA_PAYLOAD(a) >= sizeof(uint64_t)) {
            memcpy(&out->cgroup, RTA_DATA(a), sizeof out->cgroup);
            out->has_cgroup = 1;
          }
        }
      }
    }
    if (found != -2) return found;
  }
}

// tcpSocketOwner(localAddress, localPort, remoteAddress, remotePort, interfaceIndex): { uid, inode, cgroup? } of the
// TCP socket of this network namespace whose own address is localAddress:localPort and whose peer is
// remoteAddress:remotePort (both IPv4 or both IPv6, as text, without a zone), or null when there is none. An exact
// lookup in the kernel's hash of connections. interfaceIndex is the zone of a link-local pair (0 for any other):
// a socket connected to fe80::...%eth0 is bound to eth0, and the kernel finds it only when asked with eth0's index.
// So is any socket bound to a device (SO_BINDTODEVICE, which needs no privilege): asked without an index and not
// found, the lookup is asked again with each interface's. inode 0: no process holds the socket any more.
static napi_value tcp_socket_owner(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  char local[INET6_ADDRSTRLEN] = "", remote[INET6_ADDRSTRLEN] = "";
  uint32_t local_port = 0, remote_port = 0, interface_index = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5 ||
      !string_arg(env, argv[0], local, sizeof local) || napi_get_value_uint32(env, argv[1], &local_port) != napi_ok ||
      !string_arg(env, argv[2], remote, sizeof remote) || napi_get_value_uint32(env, argv[3], &remote_port) != napi_ok ||
      napi_get_value_uint32(env, argv[4], &interface_index) != napi_ok || local_port > 65535 || remote_port > 65535) {
    napi_throw_type_error(env, NULL, "expected (address, port, address, port, interface index)");
    return NULL;
  }
  struct inet_diag_sockid id;
  memset(&id, 0, sizeof id);
  int family = AF_INET;
  if (inet_pton(AF_INET, local, id.idiag_src) != 1 || inet_pton(AF_INET, remote, id.idiag_dst) != 1) {
    family = AF_INET6;
    if (inet_pton(AF_INET6, local, id.idiag_src) != 1 || inet_pton(AF_INET6, remote, id.idiag_dst) != 1) {
      napi_throw_type_error(env, NULL, "expected two IPv4 or two IPv6 addresses");
      return NULL;
    }
  }
  id.idiag_sport = htons(local_port);
  id.idiag_dport = htons(remote_port);
  id.idiag_cookie[0] = id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (diag_fd < 0) {
    diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (diag_fd < 0) return throw_errno(env, "socket(NETLINK_SOCK_DIAG)");
  }
  struct diag_found found;
  memset(&found, 0, sizeof found);
  int result = diag_lookup(family, &id, interface_index, &found);
  if (result == 0 && interface_index == 0) {
    struct if_nameindex* interfaces = if_nameindex();
    for (struct if_nameindex* i = interfaces; interfaces != NULL && i->if_index != 0 && result == 0; i++)
      result = diag_lookup(family, &id, i->if_index, &found);
    if (interfaces != NULL) if_freenameindex(interfaces);
  }
  if (result < 0) return throw_errno(env, "sock_diag");
  napi_value object = NULL, value = NULL;
  if (result == 0) {
    napi_get_null(env, &object);
    return object;
  }
  napi_create_object(env, &object);
  napi_create_uint32(env, found.uid, &value);
  napi_set_named_property(env, object, "uid", value);
  napi_create_uint32(env, found.inode, &value);
  napi_set_named_property(env, object, "inode", value);
  if (found.has_cgroup) {
    napi_create_bigint_uint64(env, found.cgroup, &value);
    napi_set_named_property(env, object, "cgroup", value);
  }
  return object;
}

// A small file read whole into `*out` (malloc'ed, `*length` bytes), starting in `first` (size `first_size`): /proc
// hands a single-record file (stat, syscall, schedstat) over in one read, so the heap is touched only past it (a long
// children list). 1 read, 0 not (errno set).
static int read_whole(const char* path, char* first, size_t first_size, char** out, size_t* length) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return 0;
  char* heap = NULL; // once the text outgrows `first`
  char* text = first;
  size_t size = first_size, used = 0;
  for (;;) {
    ssize_t n = read(fd, text + used, size - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    used += (size_t)n;
    if (n == 0 || used < size) {
      close(fd);
      *out = text;
      *length = used;
      return 1;
    }
    if (size >= (size_t)64 << 20) break; // no /proc record is this long
    char* bigger = realloc(heap, size * 2);
    if (bigger == NULL) break;
    if (heap == NULL) memcpy(bigger, first, used);
    heap = text = bigger;
    size *= 2;
  }
  int saved = errno;
  close(fd);
  free(heap);
  errno = saved;
  return 0;
}

// readFiles(paths): each file's text (latin1: /proc's bytes as they are), or undefined where it cannot be read (a
// process gone, a file missing), in the order given: the files are read one after the other, in that order.
static napi_value read_files(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result, undefined;
  uint32_t count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_array_length(env, argv[0], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected an array of paths");
    return NULL;
  }
  napi_get_undefined(env, &undefined);
  napi_create_array_with_length(env, count, &result);
  char path[4096], first[16384];
  for (uint32_t i = 0; i < count; i++) {
    napi_value element, text = undefined;
    if (napi_get_element(env, argv[0], i, &element) != napi_ok || !string_arg(env, element, path, sizeof path)) {
      napi_throw_type_error(env, NULL, "expected an array of paths");
      return NULL;
    }
    char* data;
    size_t length;
    if (read_whole(path, first, sizeof first, &data, &length)) {
      napi_create_string_latin1(env, data, length, &text);
      if (data != first) free(data);
    }
    napi_set_element(env, result, i, text);
  }
  return result;
}

// linkTarget(path): where a link points and which file it leads to, { target, id: "dev:ino" } (id left out when the
// file cannot be stat'ed), or undefined when the link cannot be read: /proc/<pid>/fd/<n> in one call.
static napi_value link_target(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result, value;
  char path[4096], target[4096];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      !string_arg(env, argv[0], path, sizeof path)) {
    napi_throw_type_error(env, NULL, "expected a path");
    return NULL;
  }
  ssize_t n = readlink(path, target, sizeof target);
  if (n < 0 || (size_t)n >= sizeof target) {
    napi_get_undefined(env, &result);
    return result;
  }
  napi_create_object(env, &result);
  napi_create_string_latin1(env, target, (size_t)n, &value);
  napi_set_named_property(env, result, "target", value);
  struct stat file;
  if (stat(path, &file) == 0) {
    char id[48];
    int length = snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)file.st_dev, (unsigned long long)file.st_ino);
    napi_create_string_latin1(env, id, (size_t)length, &value);
    napi_set_named_property(env, result, "id", value);
  }
  return result;
}

// readNow(fd, buffer): one read of what `fd` (non-blocking) holds now into `buffer`: the bytes read (0 at its end), or
// -errno (-EAGAIN: nothing now). For a terminal's master the read first waits for the kernel's worker to hand over what
// the other end wrote before the call: a drain barrier. Errors are numbers, not exceptions: EAGAIN is its usual answer.
static napi_value read_now(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  int32_t fd;
  void* data;
  size_t size;
  bool is_buffer = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_is_buffer(env, argv[1], &is_buffer) != napi_ok ||
      !is_buffer || napi_get_buffer_info(env, argv[1], &data, &size) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected an fd and a buffer");
    return NULL;
  }
  ssize_t n;
  do n = read(fd, data, size);
  while (n < 0 && errno == EINTR);
  napi_create_int32(env, n < 0 ? -errno : (int32_t)n, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "setCloexec", NAPI_AUTO_LENGTH, set_cloexec, NULL, &fn);
  napi_set_named_property(env, exports, "setCloexec", fn);
  napi_create_function(env, "localModes", NAPI_AUTO_LENGTH, local_modes, NULL, &fn);
  napi_set_named_property(env, exports, "localModes", fn);
  napi_create_function(env, "tcpSocketOwner", NAPI_AUTO_LENGTH, tcp_socket_owner, NULL, &fn);
  napi_set_named_property(env, exports, "tcpSocketOwner", fn);
  napi_create_function(env, "readFiles", NAPI_AUTO_LENGTH, read_files, NULL, &fn);
  napi_set_named_property(env, exports, "readFiles", fn);
  napi_create_function(env, "linkTarget", NAPI_AUTO_LENGTH, link_target, NULL, &fn);
  napi_set_named_property(env, exports, "linkTarget", fn);
  napi_create_function(env, "readNow", NAPI_AUTO_LENGTH, read_now, NULL, &fn);
  napi_set_named_property(env, exports, "readNow", fn);
  return exports;
}
