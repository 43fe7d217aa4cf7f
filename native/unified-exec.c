// What Node has no API for. node-pty leaves its master fds inheritable, so every later child would hold every
// earlier session's terminal (readable by it, and never hung up); reading termios lets us spot a password prompt
// without spawning stty; and asking the kernel's socket diagnostics (sock_diag) which user owns a local TCP socket
// tells a listener which local user is at the other end of a connection, in one lookup, where /proc/net/tcp would
// be read whole. Reading /proc for input-wait's probes is here too: each probe reads a handful of small files, and one
// call that reads them all costs a fraction of Node's open, read and close of each, less again with the files kept
// open from one probe to the next. And a terminal's process is started here: node-pty forks, and a fork copies this
// process's page tables, ~1 ms a session for a Node process of 70 MB, while a vfork (clone with CLONE_VM |
// CLONE_VFORK, as posix_spawn does) costs a fraction of that whatever the size.
#define _GNU_SOURCE
#include <node_api.h>
#include <uv.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/inet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <sched.h>
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

// A call's one argument as an array, and its length.
static int array_arg(napi_env env, napi_callback_info info, napi_value* array, uint32_t* count) {
  size_t argc = 1;
  return napi_get_cb_info(env, info, &argc, array, NULL, NULL) == napi_ok && argc >= 1 &&
         napi_get_array_length(env, *array, count) == napi_ok;
}

// What one exact lookup found: the socket's owner, inode and (kernel 5.9+) the cgroup it was made in.
struct diag_found {
  uint32_t uid, inode;
  uint64_t cgroup;
  int has_cgroup;
};

// One question to sock_diag and its answer: sends `request` (its header's length, type and flags set; its sequence
// number is set here), then hands each message answering it to `answer`, which says whether it was the answer.
// 1 answered, 0 no such socket (ENOENT), -1 an error (errno set).
static int diag_ask(struct nlmsghdr* request, int (*answer)(const struct nlmsghdr*, void*), void* out) {
  if (diag_fd < 0) {
    diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (diag_fd < 0) return -1;
  }
  request->nlmsg_seq = ++diag_seq;
  if (send(diag_fd, request, request->nlmsg_len, 0) < 0) return -1;
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
      } else if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && answer(h, out)) {
        found = 1;
      }
    }
    if (found != -2) return found;
  }
}

// A TCP socket's answer: its owner, inode and the cgroup (v2) it was made in (kernel 5.9+), kept on the socket
// whoever holds it later.
static int tcp_answer(const struct nlmsghdr* h, void* result) {
  if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg))) return 0;
  struct diag_found* out = result;
  const struct inet_diag_msg* message = NLMSG_DATA(h);
  memset(out, 0, sizeof *out);
  out->uid = message->idiag_uid;
  out->inode = message->idiag_inode;
  int left = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(struct inet_diag_msg));
  for (const struct rtattr* a = (const struct rtattr*)(message + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
    if (a->rta_type == INET_DIAG_CGROUP_ID && RTA_PAYLOAD(a) >= sizeof(uint64_t)) {
      memcpy(&out->cgroup, RTA_DATA(a), sizeof out->cgroup);
      out->has_cgroup = 1;
    }
  }
  return 1;
}

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
  request.body.sdiag_family = family;
  request.body.sdiag_protocol = IPPROTO_TCP;
  request.body.idiag_states = ~0u;
  request.body.id = *id;
  request.body.id.idiag_if = interface_index;
  return diag_ask(&request.header, tcp_answer, out);
}

// A unix socket's answer: the inode of its peer, 0 when it has none (not connected, a listener).
static int unix_answer(const struct nlmsghdr* h, void* result) {
  if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg))) return 0;
  uint32_t* peer = result;
  const struct unix_diag_msg* message = NLMSG_DATA(h);
  *peer = 0;
  int left = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(struct unix_diag_msg));
  for (const struct rtattr* a = (const struct rtattr*)(message + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
    if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t)) memcpy(peer, RTA_DATA(a), sizeof *peer);
  }
  return 1;
}

// unixPeers(inodes): for each unix socket's inode, the inode of the socket at its other end as the kernel knows it
// (sock_diag, an exact lookup by inode), 0 when it has none (not connected, a listener), or undefined where this
// network namespace has no socket of that inode (one of another namespace, or gone). Socket inodes are numbered
// across namespaces, so a number found here is that socket. Where sock_diag cannot be asked at all, throws.
static napi_value unix_peers(napi_env env, napi_callback_info info) {
  napi_value array, result, undefined;
  uint32_t count;
  if (!array_arg(env, info, &array, &count)) {
    napi_throw_type_error(env, NULL, "expected an array of inodes");
    return NULL;
  }
  napi_get_undefined(env, &undefined);
  napi_create_array_with_length(env, count, &result);
  for (uint32_t i = 0; i < count; i++) {
    napi_value element, value = undefined;
    uint32_t inode;
    if (napi_get_element(env, array, i, &element) != napi_ok ||
        napi_get_value_uint32(env, element, &inode) != napi_ok) {
      napi_throw_type_error(env, NULL, "expected an array of inodes");
      return NULL;
    }
    struct {
      struct nlmsghdr header;
      struct unix_diag_req body;
    } request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    request.header.nlmsg_flags = NLM_F_REQUEST;
    request.body.sdiag_family = AF_UNIX;
    request.body.udiag_states = ~0u;
    request.body.udiag_ino = inode;
    request.body.udiag_show = UDIAG_SHOW_PEER;
    request.body.udiag_cookie[0] = request.body.udiag_cookie[1] = INET_DIAG_NOCOOKIE;
    uint32_t peer = 0;
    int found = inode == 0 ? 0 : diag_ask(&request.header, unix_answer, &peer);
    if (found < 0) return throw_errno(env, "sock_diag");
    if (found == 1) napi_create_uint32(env, peer, &value);
    napi_set_element(env, result, i, value);
  }
  return result;
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

// Input-wait's probes read the same few /proc files of the same processes again and again: a round trip at a shell's
// prompt reads the shell's stat and run count (schedstat) four times. Such a file is kept open and read again from
// offset 0, which /proc answers afresh (a seq_file starts over at 0): a pread instead of an open, a read and a close,
// whose walk of the path is most of the cost (1.2-2.1 us against 0.1-1.0 in a loop here).
// Only a file that fails with ESRCH once its process has been reaped is kept: a process's or a thread's stat,
// schedstat, sched and syscall. A kept fd whose process has gone (its pid perhaps another process's by now) fails, is
// closed, and the path is opened afresh, as if it had never been kept. A children list is never kept: for a process
// that has gone it reads as empty, not as an error.
// At most KEPT_FILES are kept, the least recently read given up first, and none for long once unread: a timer that
// does not keep the loop alive closes each after KEPT_IDLE_MS to 2 * KEPT_IDLE_MS unread, so a server at rest holds
// none.
#define KEPT_FILES 32
#define KEPT_IDLE_MS 1000
#define KEPT_PATH_MAX 48

struct kept_file {
  char path[KEPT_PATH_MAX];
  int fd; // -1: a free slot
  uint64_t used;    // when it was last read (uv_hrtime, ns)
  uint64_t counted; // the count of reads (kept_reads) at its last read: the least recently read has the lowest
};

// Per environment (its instance data): the watches still open, and the function that tells exits.
struct addon_state {
  struct exit_watch* first;
  napi_threadsafe_function tell;
  // The starts queued to libuv's pool and not yet answered (see startNow), and the id the next one gets.
  struct terminal_start* starts;
  uint32_t next_start_id;
  // The /proc files kept open for probes, and the timer that closes those left unread (NULL: none could be made,
  // and nothing is kept).
  struct kept_file kept[KEPT_FILES];
  uint64_t kept_reads;
  uv_timer_t* sweep;
};

// `text` past its leading digits (at least one), or NULL.
static const char* past_digits(const char* text) {
  const char* end = text;
  while (*end >= '0' && *end <= '9') end++;
  return end == text ? NULL : end;
}

// Whether `path` is /proc/<pid>/X or /proc/<pid>/task/<tid>/X, X one of stat, schedstat, sched, syscall.
static int keepable(const char* path) {
  if (strlen(path) >= KEPT_PATH_MAX || strncmp(path, "/proc/", 6) != 0) return 0;
  const char* rest = past_digits(path + 6);
  if (rest == NULL || *rest != '/') return 0;
  rest++;
  if (strncmp(rest, "task/", 5) == 0) {
    rest = past_digits(rest + 5);
    if (rest == NULL || *rest != '/') return 0;
    rest++;
  }
  return strcmp(rest, "stat") == 0 || strcmp(rest, "schedstat") == 0 || strcmp(rest, "sched") == 0 ||
         strcmp(rest, "syscall") == 0;
}

// Marks `file` read now.
static void kept_read(struct addon_state* state, struct kept_file* file) {
  file->used = uv_hrtime();
  file->counted = ++state->kept_reads;
}

static void kept_close(struct kept_file* file) {
  if (file->fd >= 0) close(file->fd);
  file->fd = -1;
  file->path[0] = 0;
}

// Every KEPT_IDLE_MS while something is kept: closes what has gone unread that long, and stops once nothing is kept.
static void kept_sweep(uv_timer_t* timer) {
  struct addon_state* state = timer->data;
  uint64_t now = uv_hrtime();
  int left = 0;
  for (int i = 0; i < KEPT_FILES; i++) {
    struct kept_file* file = &state->kept[i];
    if (file->fd >= 0 && now - file->used >= (uint64_t)KEPT_IDLE_MS * 1000000) kept_close(file);
    if (file->fd >= 0) left++;
  }
  if (left == 0) uv_timer_stop(timer);
}

// pread of `fd` from 0 into `text` (`size` bytes), retried when interrupted.
static ssize_t read_from_start(int fd, char* text, size_t size) {
  ssize_t n;
  do n = pread(fd, text, size, 0);
  while (n < 0 && errno == EINTR);
  return n;
}

// read_whole for a keepable path (see keepable): through its kept fd when it has one, else opened and then kept.
static int read_kept(struct addon_state* state, const char* path, char* first, size_t first_size, char** out,
                     size_t* length) {
  struct kept_file* slot = NULL; // the path's own slot, else the one it will take
  for (int i = 0; i < KEPT_FILES; i++) {
    struct kept_file* file = &state->kept[i];
    if (file->fd >= 0 && strcmp(file->path, path) == 0) {
      ssize_t n = read_from_start(file->fd, first, first_size);
      if (n >= 0 && (size_t)n < first_size) {
        kept_read(state, file);
        *out = first;
        *length = (size_t)n;
        return 1;
      }
      kept_close(file); // its process gone (ESRCH), or a text longer than `first`: opened afresh below
      slot = file;
      break;
    }
    if (slot == NULL || (slot->fd >= 0 && (file->fd < 0 || file->counted < slot->counted))) slot = file;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return 0;
  ssize_t n = read_from_start(fd, first, first_size);
  if (n < 0 || (size_t)n >= first_size) {
    int saved = errno;
    close(fd);
    if (n < 0) {
      errno = saved;
      return 0;
    }
    return read_whole(path, first, first_size, out, length); // longer than any of these files is: not kept
  }
  kept_close(slot);
  slot->fd = fd;
  memcpy(slot->path, path, strlen(path) + 1);
  kept_read(state, slot);
  if (!uv_is_active((uv_handle_t*)state->sweep)) uv_timer_start(state->sweep, kept_sweep, KEPT_IDLE_MS, KEPT_IDLE_MS);
  *out = first;
  *length = (size_t)n;
  return 1;
}

// readFiles(paths): each file's text (latin1: /proc's bytes as they are), or undefined where it cannot be read (a
// process gone, a file missing), in the order given: the files are read one after the other, in that order. A
// process's stat, schedstat, sched and syscall are kept open for the next read (see read_kept).
static napi_value read_files(napi_env env, napi_callback_info info) {
  napi_value array, result, undefined;
  uint32_t count;
  struct addon_state* state = NULL;
  napi_get_instance_data(env, (void**)&state);
  int keeping = state != NULL && state->sweep != NULL;
  if (!array_arg(env, info, &array, &count)) {
    napi_throw_type_error(env, NULL, "expected an array of paths");
    return NULL;
  }
  napi_get_undefined(env, &undefined);
  napi_create_array_with_length(env, count, &result);
  char path[4096], first[16384];
  for (uint32_t i = 0; i < count; i++) {
    napi_value element, text = undefined;
    if (napi_get_element(env, array, i, &element) != napi_ok || !string_arg(env, element, path, sizeof path)) {
      napi_throw_type_error(env, NULL, "expected an array of paths");
      return NULL;
    }
    char* data;
    size_t length;
    if (keeping && keepable(path) ? read_kept(state, path, first, sizeof first, &data, &length)
                                  : read_whole(path, first, sizeof first, &data, &length)) {
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
  // statx, not stat: glibc's stat symbol is 2.33's, and the addon loads on glibc 2.28 as node-pty does. The device
  // number as stat's st_dev encodes it (glibc's makedev).
  struct statx file;
  if (statx(AT_FDCWD, path, 0, STATX_INO, &file) == 0) {
    unsigned long long major = file.stx_dev_major, minor = file.stx_dev_minor;
    unsigned long long dev = ((major & 0xfffff000ULL) << 32) | ((major & 0xfffULL) << 8) |
                             ((minor & 0xffffff00ULL) << 12) | (minor & 0xffULL);
    char id[48];
    int length = snprintf(id, sizeof id, "%llu:%llu", dev, (unsigned long long)file.stx_ino);
    napi_create_string_latin1(env, id, (size_t)length, &value);
    napi_set_named_property(env, result, "id", value);
  }
  return result;
}

// readMemory(pid, address, length): `length` bytes (at most 64 KiB) of process `pid`'s memory at `address`, in a
// new buffer, or undefined where they cannot all be read (the process gone, the address unmapped, access refused).
// A probe reads a select's fd sets and a poll's entries so: process_vm_readv is one syscall where Node's open, read
// and close of /proc/<pid>/mem are three, each behind a JavaScript call. Both ask the kernel the same question
// (may this process ptrace that one); where process_vm_readv alone is refused (a seccomp filter that knows only
// the older calls) /proc/<pid>/mem is read instead.
static napi_value read_memory(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  int32_t pid;
  int64_t address;
  uint32_t length;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 ||
      napi_get_value_int32(env, argv[0], &pid) != napi_ok || napi_get_value_int64(env, argv[1], &address) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &length) != napi_ok || pid <= 0 || address <= 0 || length == 0 ||
      length > 65536) {
    napi_throw_type_error(env, NULL, "expected a pid, an address and a length of 1 to 65536");
    return NULL;
  }
  void* data;
  if (napi_create_buffer(env, length, &data, &result) != napi_ok) return NULL;
  struct iovec local = {data, length}, remote = {(void*)(uintptr_t)address, length};
  ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
  if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
    char path[32];
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      do n = pread(fd, data, length, (off_t)address);
      while (n < 0 && errno == EINTR);
      close(fd);
    }
  }
  if (n != (ssize_t)length) napi_get_undefined(env, &result);
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

// A terminal's process whose exit is awaited: its pidfd polled on the event loop (no thread per session), reaped
// once readable, and its exit told to `callback` through the environment's one threadsafe function (a libuv callback
// has no JS context of its own to call in). Closed at exit, or by the environment's cleanup (a worker ending) untold.
struct exit_watch {
  uv_poll_t poll;
  napi_ref callback;
  pid_t pid;
  int pidfd;
  struct exit_watch* next;
  struct exit_watch** prev;
  struct addon_state* state;
};

// An exit to tell, queued to the threadsafe function.
struct exit_told {
  napi_ref callback;
  int code, signal_number;
};

static void watch_closed(uv_handle_t* handle) {
  struct exit_watch* watch = handle->data;
  close(watch->pidfd);
  free(watch);
}

// Unlinks the watch; its handle and pidfd are closed after.
static void watch_end(struct exit_watch* watch) {
  if (watch->prev != NULL) {
    *watch->prev = watch->next;
    if (watch->next != NULL) watch->next->prev = watch->prev;
    watch->prev = NULL;
  }
  uv_poll_stop(&watch->poll);
  uv_close((uv_handle_t*)&watch->poll, watch_closed);
}

static void free_handle(uv_handle_t* handle) {
  free(handle);
}

static void state_cleanup(void* data) {
  struct addon_state* state = data;
  while (state->first != NULL) watch_end(state->first);
  for (int i = 0; i < KEPT_FILES; i++) kept_close(&state->kept[i]);
  if (state->sweep != NULL) uv_close((uv_handle_t*)state->sweep, free_handle);
  if (state->tell != NULL) napi_release_threadsafe_function(state->tell, napi_tsfn_abort);
  free(state);
}

// On the JS thread, in a JS context: onExit(code, signal), then the reference to it let go.
static void tell_exit(napi_env env, napi_value unused, void* context, void* data) {
  (void)unused;
  (void)context;
  struct exit_told* told = data;
  if (env != NULL) {
    napi_value callback, receiver, argv[2], ignored;
    napi_get_reference_value(env, told->callback, &callback);
    napi_delete_reference(env, told->callback);
    napi_get_undefined(env, &receiver);
    napi_create_int32(env, told->code, &argv[0]);
    napi_create_int32(env, told->signal_number, &argv[1]);
    if (callback != NULL) napi_call_function(env, receiver, callback, 2, argv, &ignored);
  }
  free(told);
}

// The pidfd is readable: the process has exited. Reaped here, and told as node-pty tells it: (code, signal).
static void watch_fired(uv_poll_t* handle, int status, int events) {
  (void)status;
  (void)events;
  struct exit_watch* watch = handle->data;
  int wait_status = 0;
  pid_t got;
  do got = waitpid(watch->pid, &wait_status, WNOHANG);
  while (got < 0 && errno == EINTR);
  if (got == 0) return;  // not yet (a wakeup without the exit): keep watching
  struct exit_told* told = malloc(sizeof *told);
  if (told != NULL) {
    // Reaped by someone else (ECHILD): told as an exit with 0, as node-pty does.
    told->callback = watch->callback;
    told->code = got == watch->pid && WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0;
    told->signal_number = got == watch->pid && WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
    if (napi_call_threadsafe_function(watch->state->tell, told, napi_tsfn_nonblocking) != napi_ok) free(told);
  }
  watch_end(watch);
}

static void free_strings(char** strings, uint32_t count) {
  if (strings == NULL) return;
  for (uint32_t i = 0; i < count; i++) free(strings[i]);
  free(strings);
}

// One JS string, malloc'ed; NULL when it is not a string.
static char* string_copy(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char* copy = malloc(length + 1);
  if (copy != NULL && napi_get_value_string_utf8(env, value, copy, length + 1, &length) != napi_ok) {
    free(copy);
    copy = NULL;
  }
  return copy;
}

// The strings of a JS array, NULL-terminated, each malloc'ed; NULL when it is not an array of strings.
static char** string_array(napi_env env, napi_value value, uint32_t* count) {
  bool is_array = false;
  if (napi_is_array(env, value, &is_array) != napi_ok || !is_array) return NULL;
  if (napi_get_array_length(env, value, count) != napi_ok) return NULL;
  char** strings = calloc((size_t)*count + 1, sizeof *strings);
  if (strings == NULL) return NULL;
  for (uint32_t i = 0; i < *count; i++) {
    napi_value item;
    if (napi_get_element(env, value, i, &item) != napi_ok || (strings[i] = string_copy(env, item)) == NULL) {
      free_strings(strings, i);
      return NULL;
    }
  }
  return strings;
}

// The modes a new terminal starts in: node-pty's, so a session sees the terminal it always saw.
static void initial_modes(struct termios* t) {
  memset(t, 0, sizeof *t);
  t->c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = CREAD | CS8 | HUPCL;
  t->c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t->c_cc[VEOF] = 4;
  t->c_cc[VEOL] = 0xff;
  t->c_cc[VEOL2] = 0xff;
  t->c_cc[VERASE] = 0x7f;
  t->c_cc[VWERASE] = 23;
  t->c_cc[VKILL] = 21;
  t->c_cc[VREPRINT] = 18;
  t->c_cc[VINTR] = 3;
  t->c_cc[VQUIT] = 0x1c;
  t->c_cc[VSUSP] = 26;
  t->c_cc[VSTART] = 17;
  t->c_cc[VSTOP] = 19;
  t->c_cc[VLNEXT] = 22;
  t->c_cc[VDISCARD] = 15;
  t->c_cc[VMIN] = 1;
  t->c_cc[VTIME] = 0;
  cfsetispeed(t, B38400);
  cfsetospeed(t, B38400);
}

// Whether this kernel has pidfds (5.3+): without them a terminal's process is started by node-pty.
static int have_pidfd(void) {
  static int known = -1;
  if (known < 0) {
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    known = fd >= 0;
    if (fd >= 0) close(fd);
  }
  return known;
}


// What the child of spawn_terminal does, on a stack of its own in this process's memory until it execs (this process
// waits meanwhile): only system calls, nothing that locks or allocates. Its errno is left in `error` when it fails.
struct terminal_child {
  const char* file;
  char** args;
  char** vars;
  const char* cwd;
  const char* name;
  sigset_t mask;
  volatile int error;
};

static int terminal_child(void* data) {
  struct terminal_child* child = data;
  // Every handler to its default (node-pty's child does the same); glibc's own two signals refuse and are reset by
  // exec, as a handled signal is. Then the mask this process had.
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &default_action, NULL);
  int fd;
  // A new session, whose controlling terminal the slave becomes when opened without O_NOCTTY; on 0, 1 and 2.
  if (setsid() < 0 || (fd = open(child->name, O_RDWR)) < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 ||
      dup2(fd, 2) < 0 || (fd > 2 && close(fd) < 0) || (child->cwd[0] != '\0' && chdir(child->cwd) < 0)) {
    child->error = errno;
    _exit(127);
  }
  sigprocmask(SIG_SETMASK, &child->mask, NULL);
  execve(child->file, child->args, child->vars);
  child->error = errno;
  _exit(127);
}

// One start of a terminal's process, from the call on the JS thread through the clone on a thread of libuv's pool
// (execute) to the answer back on the JS thread (complete). The JS thread opens the terminal and never waits for the
// child: with many shells starting on few cores, a new child waits its turn before it can exec, and a vfork's caller
// waits with it.
struct terminal_start {
  napi_async_work work;
  napi_ref on_exit, on_started;
  char file[4096], cwd[4096], name[128];
  char** args;
  char** vars;
  uint32_t args_count, vars_count;
  // The JS thread's signal mask, which the program starts with (a pool thread's may differ).
  sigset_t mask;
  int master, slave, pidfd, error;
  pid_t pid;
  uint32_t id;
  struct addon_state* state;
  struct terminal_start* next;
  struct terminal_start** prev;
};

static void start_free(napi_env env, struct terminal_start* start) {
  if (start->prev != NULL) {
    *start->prev = start->next;
    if (start->next != NULL) start->next->prev = start->prev;
  }
  if (start->on_exit != NULL) napi_delete_reference(env, start->on_exit);
  if (start->on_started != NULL) napi_delete_reference(env, start->on_started);
  if (start->work != NULL) napi_delete_async_work(env, start->work);
  free_strings(start->args, start->args_count);
  free_strings(start->vars, start->vars_count);
  free(start);
}

// A start that failed on the JS thread: nothing to do on the pool.
static void start_skip(napi_env env, void* data) {
  (void)env;
  (void)data;
}

// On a pool thread: the clone, which returns once the child has exec'd (or failed to), and the pidfd. Only system
// calls and malloc; nothing of JS.
static void start_execute(napi_env env, void* data) {
  (void)env;
  struct terminal_start* start = data;
  const size_t stack_size = 64 * 1024;
  char* stack = malloc(stack_size);
  if (stack == NULL) {
    start->error = ENOMEM;
    return;
  }
  struct terminal_child child = {.file = start->file,
                                 .args = start->args,
                                 .vars = start->vars,
                                 .cwd = start->cwd,
                                 .name = start->name,
                                 .mask = start->mask,
                                 .error = 0};
  // No handler of this process may run in the child before it has reset them: every signal blocked around the clone
  // on this thread, whose mask the child starts with (glibc's sigprocmask sets the calling thread's, as
  // pthread_sigmask does, and is older: GLIBC_2.2.5 against 2.32).
  sigset_t all, before;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &before);
  pid_t pid = clone(terminal_child, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
  int error = pid < 0 ? errno : child.error;
  sigprocmask(SIG_SETMASK, &before, NULL);
  free(stack);  // the child has exec'd or exited: it no longer runs on it
  if (pid > 0 && error != 0) {
    // It could not exec: reaped here, and started another way.
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) continue;
  }
  if (error == 0) {
    start->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (start->pidfd < 0) {
      // Started, but its exit could not be watched: ended and reaped here, and started another way.
      error = errno;
      kill(pid, SIGKILL);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) continue;
    }
  }
  start->pid = pid;
  start->error = error;
}

// Back on the JS thread: the exit watched, and onStarted told { pid, master, slave, pty }, or the errno.
static void start_complete(napi_env env, napi_status status, void* data) {
  struct terminal_start* start = data;
  // Taken back from the pool before a thread of it ran it (startNow): done here, on this thread.
  if (status == napi_cancelled && start->error == 0) start_execute(env, start);
  napi_value result = NULL, value, callback, receiver, ignored;
  struct addon_state* state = start->state;
  struct exit_watch* watch = NULL;
  uv_loop_t* loop = NULL;
  if (start->error == 0) {
    watch = calloc(1, sizeof *watch);
    if (state == NULL || state->tell == NULL || watch == NULL || napi_get_uv_event_loop(env, &loop) != napi_ok ||
        uv_poll_init(loop, &watch->poll, start->pidfd) != 0) {
      // Nothing would tell its exit: ended and reaped here, and told as EIO (the caller starts it another way).
      free(watch);
      watch = NULL;
      kill(start->pid, SIGKILL);
      while (waitpid(start->pid, NULL, 0) < 0 && errno == EINTR) continue;
      close(start->pidfd);
      start->error = EIO;
    }
  }
  if (start->error != 0) {
    if (start->master >= 0) close(start->master);
    if (start->slave >= 0) close(start->slave);
    napi_create_int32(env, start->error, &result);
  } else {
    watch->poll.data = watch;
    watch->state = state;
    watch->pid = start->pid;
    watch->pidfd = start->pidfd;
    watch->callback = start->on_exit;  // the watch's now
    start->on_exit = NULL;
    watch->next = state->first;
    if (state->first != NULL) state->first->prev = &watch->next;
    watch->prev = &state->first;
    state->first = watch;
    uv_poll_start(&watch->poll, UV_READABLE, watch_fired);
    napi_create_object(env, &result);
    napi_create_int32(env, start->pid, &value);
    napi_set_named_property(env, result, "pid", value);
    napi_create_int32(env, start->master, &value);
    napi_set_named_property(env, result, "master", value);
    napi_create_int32(env, start->slave, &value);
    napi_set_named_property(env, result, "slave", value);
    napi_create_string_latin1(env, start->name, NAPI_AUTO_LENGTH, &value);
    napi_set_named_property(env, result, "pty", value);
  }
  napi_get_undefined(env, &receiver);
  if (napi_get_reference_value(env, start->on_started, &callback) == napi_ok && callback != NULL)
    napi_call_function(env, receiver, callback, 1, &result, &ignored);
  start_free(env, start);
}

// spawnTerminal(file, argv, env, cwd, cols, rows, onExit, onStarted): `file` (a path) started with `argv` and `env` in
// `cwd`, on a new terminal of cols × rows in node-pty's modes, as the leader of a new session whose controlling
// terminal it is, every signal at its default and the mask this thread has. The child is cloned on a thread of
// libuv's pool: this call returns at once, and onStarted is called later with { pid, master, slave, pty } (the master
// non-blocking, and a slave fd of our own, non-blocking, both close-on-exec), or with a number, an errno, when it
// could not be started so (nothing is left open then, and the caller starts it another way). onExit(code, signal)
// once it exited and was reaped. A cwd of /proc/self/fd/N must stay open until onStarted. Returns the start's id, for
// startNow.
static napi_value spawn_terminal(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8], resource;
  int32_t cols, rows;
  napi_valuetype file_type, cwd_type, exit_type, started_type;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 8 ||
      napi_typeof(env, argv[0], &file_type) != napi_ok || file_type != napi_string ||
      napi_typeof(env, argv[3], &cwd_type) != napi_ok || cwd_type != napi_string ||
      napi_get_value_int32(env, argv[4], &cols) != napi_ok || napi_get_value_int32(env, argv[5], &rows) != napi_ok ||
      napi_typeof(env, argv[6], &exit_type) != napi_ok || exit_type != napi_function ||
      napi_typeof(env, argv[7], &started_type) != napi_ok || started_type != napi_function) {
    napi_throw_type_error(env, NULL, "expected file, argv, env, cwd, cols, rows, onExit, onStarted");
    return NULL;
  }
  struct terminal_start* start = calloc(1, sizeof *start);
  if (start == NULL) {
    napi_throw_error(env, NULL, "spawnTerminal: out of memory");
    return NULL;
  }
  start->master = start->slave = start->pidfd = -1;
  start->pid = -1;
  start->args = string_array(env, argv[1], &start->args_count);
  start->vars = string_array(env, argv[2], &start->vars_count);
  if (start->args == NULL || start->vars == NULL || start->args_count == 0) {
    start_free(env, start);
    napi_throw_type_error(env, NULL, "expected argv and env as arrays of strings, argv not empty");
    return NULL;
  }
  if (napi_create_reference(env, argv[6], 1, &start->on_exit) != napi_ok ||
      napi_create_reference(env, argv[7], 1, &start->on_started) != napi_ok) {
    start_free(env, start);
    napi_throw_error(env, NULL, "spawnTerminal: cannot hold the callbacks");
    return NULL;
  }
  // A path longer than the kernel takes: told as exec and chdir would tell it, and started another way.
  if (!string_arg(env, argv[0], start->file, sizeof start->file) ||
      !string_arg(env, argv[3], start->cwd, sizeof start->cwd))
    start->error = ENAMETOOLONG;
  else if (!have_pidfd())
    start->error = ENOSYS;
  struct termios modes;
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
  initial_modes(&modes);
  if (start->error == 0 &&
      ((start->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 || grantpt(start->master) < 0 ||
       unlockpt(start->master) < 0 || ptsname_r(start->master, start->name, sizeof start->name) != 0 ||
       (start->slave = open(start->name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)) < 0 ||
       tcsetattr(start->slave, TCSANOW, &modes) < 0 || ioctl(start->slave, TIOCSWINSZ, &size) < 0 ||
       fcntl(start->master, F_SETFL, fcntl(start->master, F_GETFL) | O_NONBLOCK) < 0))
    start->error = errno;
  sigprocmask(SIG_SETMASK, NULL, &start->mask);
  napi_get_instance_data(env, (void**)&start->state);
  if (start->state == NULL) {
    if (start->master >= 0) close(start->master);
    if (start->slave >= 0) close(start->slave);
    start_free(env, start);
    napi_throw_error(env, NULL, "spawnTerminal: the addon did not load whole");
    return NULL;
  }
  napi_create_string_latin1(env, "unifiedExecSpawnTerminal", NAPI_AUTO_LENGTH, &resource);
  // Even a start that failed here answers through the pool's completion, later, as every start does.
  if (napi_create_async_work(env, NULL, resource, start->error == 0 ? start_execute : start_skip, start_complete,
                             start, &start->work) != napi_ok ||
      napi_queue_async_work(env, start->work) != napi_ok) {
    if (start->master >= 0) close(start->master);
    if (start->slave >= 0) close(start->slave);
    start_free(env, start);
    napi_throw_error(env, NULL, "spawnTerminal: cannot queue the start");
    return NULL;
  }
  struct addon_state* state = start->state;
  start->id = ++state->next_start_id;
  start->next = state->starts;
  if (state->starts != NULL) state->starts->prev = &start->next;
  start->prev = &state->starts;
  state->starts = start;
  napi_value id;
  napi_create_uint32(env, start->id, &id);
  return id;
}

// startNow(id): the start `id` (spawnTerminal's answer), when libuv's pool has not begun it yet (its threads all
// busy: slow file system calls, lookups), taken back and done on this thread, as before there was a pool to wait for.
// True when it was; its onStarted is called later either way.
static napi_value start_now(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  uint32_t id;
  struct addon_state* state = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_uint32(env, argv[0], &id) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected a start's id");
    return NULL;
  }
  napi_get_instance_data(env, (void**)&state);
  struct terminal_start* start = state == NULL ? NULL : state->starts;
  while (start != NULL && start->id != id) start = start->next;
  napi_get_boolean(env, start != NULL && napi_cancel_async_work(env, start->work) == napi_ok, &result);
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
  napi_create_function(env, "unixPeers", NAPI_AUTO_LENGTH, unix_peers, NULL, &fn);
  napi_set_named_property(env, exports, "unixPeers", fn);
  napi_create_function(env, "readFiles", NAPI_AUTO_LENGTH, read_files, NULL, &fn);
  napi_set_named_property(env, exports, "readFiles", fn);
  napi_create_function(env, "linkTarget", NAPI_AUTO_LENGTH, link_target, NULL, &fn);
  napi_set_named_property(env, exports, "linkTarget", fn);
  napi_create_function(env, "readMemory", NAPI_AUTO_LENGTH, read_memory, NULL, &fn);
  napi_set_named_property(env, exports, "readMemory", fn);
  napi_create_function(env, "readNow", NAPI_AUTO_LENGTH, read_now, NULL, &fn);
  napi_set_named_property(env, exports, "readNow", fn);
  napi_create_function(env, "spawnTerminal", NAPI_AUTO_LENGTH, spawn_terminal, NULL, &fn);
  napi_set_named_property(env, exports, "spawnTerminal", fn);
  napi_create_function(env, "startNow", NAPI_AUTO_LENGTH, start_now, NULL, &fn);
  napi_set_named_property(env, exports, "startNow", fn);
  struct addon_state* state = calloc(1, sizeof *state);
  napi_value name;
  napi_create_string_latin1(env, "unifiedExecTerminalExit", NAPI_AUTO_LENGTH, &name);
  if (state != NULL) {
    for (int i = 0; i < KEPT_FILES; i++) state->kept[i].fd = -1;
    uv_loop_t* loop = NULL;
    state->sweep = malloc(sizeof *state->sweep);
    if (state->sweep != NULL &&
        (napi_get_uv_event_loop(env, &loop) != napi_ok || uv_timer_init(loop, state->sweep) != 0)) {
      free(state->sweep);
      state->sweep = NULL;
    }
    if (state->sweep != NULL) {
      state->sweep->data = state;
      uv_unref((uv_handle_t*)state->sweep);
    }
    // Not keeping the loop alive: each watch's poll does, while its process lives.
    if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, tell_exit, &state->tell) ==
        napi_ok) {
      napi_unref_threadsafe_function(env, state->tell);
    } else {
      state->tell = NULL;
    }
    napi_set_instance_data(env, state, NULL, NULL);
    napi_add_env_cleanup_hook(env, state_cleanup, state);
  }
  return exports;
}
