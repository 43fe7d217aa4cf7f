// What Node has no API for. node-pty leaves its master fds inheritable, so every later child would hold every
// earlier session's terminal (readable by it, and never hung up); reading termios lets us spot a password prompt
// without spawning stty; and asking the kernel's socket diagnostics (sock_diag) which user owns a local TCP socket
// tells a listener which local user is at the other end of a connection, in one lookup, where /proc/net/tcp would
// be read whole.
#include <node_api.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
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

// tcpSocketOwner(localAddress, localPort, remoteAddress, remotePort, interfaceIndex): { uid, inode } of the TCP
// socket of this network namespace whose own address is localAddress:localPort and whose peer is
// remoteAddress:remotePort (both IPv4 or both IPv6, as text, without a zone), or null when there is none. An exact
// lookup in the kernel's hash of connections. interfaceIndex is the zone of a link-local pair (0 for any other):
// a socket connected to fe80::...%eth0 is bound to eth0, and the kernel finds it only when asked with eth0's index.
// inode 0: no process holds the socket any more.
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
  struct {
    struct nlmsghdr header;
    struct inet_diag_req_v2 body;
  } request;
  memset(&request, 0, sizeof request);
  struct inet_diag_sockid* id = &request.body.id;
  int family = AF_INET;
  if (inet_pton(AF_INET, local, id->idiag_src) != 1 || inet_pton(AF_INET, remote, id->idiag_dst) != 1) {
    family = AF_INET6;
    if (inet_pton(AF_INET6, local, id->idiag_src) != 1 || inet_pton(AF_INET6, remote, id->idiag_dst) != 1) {
      napi_throw_type_error(env, NULL, "expected two IPv4 or two IPv6 addresses");
      return NULL;
    }
  }
  if (diag_fd < 0) {
    diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (diag_fd < 0) return throw_errno(env, "socket(NETLINK_SOCK_DIAG)");
  }
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.header.nlmsg_seq = ++diag_seq;
  request.body.sdiag_family = family;
  request.body.sdiag_protocol = IPPROTO_TCP;
  request.body.idiag_states = ~0u;
  id->idiag_sport = htons(local_port);
  id->idiag_dport = htons(remote_port);
  id->idiag_if = interface_index;
  id->idiag_cookie[0] = id->idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (send(diag_fd, &request, sizeof request, 0) < 0) return throw_errno(env, "send(NETLINK_SOCK_DIAG)");
  // One answer per request: the socket, or an error. Answers to earlier requests (none, as each is read before the
  // next is sent) are skipped by their sequence number.
  for (;;) {
    long buffer[1024] = {0};
    ssize_t got = recv(diag_fd, buffer, sizeof buffer, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return throw_errno(env, "recv(NETLINK_SOCK_DIAG)");
    }
    // Filled together, from one answer: found (a socket, or none) with its uid and inode.
    int found = -1;
    uint32_t uid = 0, inode = 0;
    uint64_t cgroup = 0;
    int has_cgroup = 0;
    for (struct nlmsghdr* h = (struct nlmsghdr*)buffer; NLMSG_OK(h, (size_t)got); h = NLMSG_NEXT(h, got)) {
      if (h->nlmsg_seq != diag_seq) continue;
      if (h->nlmsg_type == NLMSG_ERROR) {
        int error = -((struct nlmsgerr*)NLMSG_DATA(h))->error;
        if (error != ENOENT) {
          errno = error;
          return throw_errno(env, "sock_diag");
        }
        found = 0;
      } else if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
        const struct inet_diag_msg* message = NLMSG_DATA(h);
        found = 1;
        uid = message->idiag_uid;
        inode = message->idiag_inode;
        // The cgroup (v2) the socket was made in (kernel 5.9+): kept on the socket whoever holds it later.
        int left = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(struct inet_diag_msg));
        for (struct rtattr* a = (struct rtattr*)(message + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
          if (a->rta_type == INET_DIAG_CGROUP_ID && RTA_PAYLOAD(a) >= sizeof(uint64_t)) {
            memcpy(&cgroup, RTA_DATA(a), sizeof cgroup);
            has_cgroup = 1;
          }
        }
      }
    }
    if (found < 0) continue;
    napi_value result = NULL, value = NULL;
    if (found == 0) {
      napi_get_null(env, &result);
      return result;
    }
    napi_create_object(env, &result);
    napi_create_uint32(env, uid, &value);
    napi_set_named_property(env, result, "uid", value);
    napi_create_uint32(env, inode, &value);
    napi_set_named_property(env, result, "inode", value);
    if (has_cgroup) {
      napi_create_bigint_uint64(env, cgroup, &value);
      napi_set_named_property(env, result, "cgroup", value);
    }
    return result;
  }
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "setCloexec", NAPI_AUTO_LENGTH, set_cloexec, NULL, &fn);
  napi_set_named_property(env, exports, "setCloexec", fn);
  napi_create_function(env, "localModes", NAPI_AUTO_LENGTH, local_modes, NULL, &fn);
  napi_set_named_property(env, exports, "localModes", fn);
  napi_create_function(env, "tcpSocketOwner", NAPI_AUTO_LENGTH, tcp_socket_owner, NULL, &fn);
  napi_set_named_property(env, exports, "tcpSocketOwner", fn);
  return exports;
}
