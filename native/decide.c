/* The Landlock supervisor's pure decisions: see decide.h. */
#define _GNU_SOURCE
#include "decide.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int within(const char *path, const char *dir) {
  size_t n = strlen(dir);
  if (strcmp(dir, "/") == 0) return path[0] == '/';
  return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int root_of(const struct supervision *cfg, const char *path) {
  int best = -1;
  size_t best_len = 0;
  for (int i = 0; i < cfg->roots.n; i++) {
    size_t n = strlen(cfg->roots.path[i]);
    if (within(path, cfg->roots.path[i]) && (best < 0 || n > best_len)) {
      best = i;
      best_len = n;
    }
  }
  return best;
}

int in_list(const char *path, const struct paths *list) {
  for (int i = 0; i < list->n; i++)
    if (within(path, list->path[i])) return 1;
  return 0;
}

int holds_barrier(const struct supervision *cfg, const char *path) {
  for (int i = 0; i < cfg->roots.n; i++)
    if (within(cfg->roots.path[i], path)) return 1;
  for (int i = 0; i < cfg->keep_out.n; i++)
    if (within(cfg->keep_out.path[i], path)) return 1;
  return 0;
}

/* `path` relative to root `root` ("" for the root itself). */
static const char *relative(const struct supervision *cfg, int root, const char *path) {
  const char *rel = path + strlen(cfg->roots.path[root]);
  while (*rel == '/') rel++;
  return rel;
}

int metadata_root(const struct supervision *cfg, const char *where) {
  int root = root_of(cfg, where);
  if (root < 0 || in_list(where, &cfg->keep_out)) return -1;
  const char *rel = relative(cfg, root, where);
  /* A root's top is not the sandbox's (/tmp's sticky bit, the workspace's owner): only what lies beneath it. */
  if (*rel == '\0' || kept_on_way(cfg, root, where)) return -1;
  return root;
}

int split_path(const char *path, char *parent, size_t parent_size, char *name, size_t name_size, int *slash) {
  char copy[PATH_MAX];
  size_t len = strlen(path);
  if (len == 0 || len >= sizeof(copy)) return -1;
  memcpy(copy, path, len + 1);
  int slashed = 0;
  while (len > 1 && copy[len - 1] == '/') { /* "d/" names d, which must then be a folder */
    copy[--len] = '\0';
    slashed = 1;
  }
  char *last_slash = strrchr(copy, '/');
  const char *last = last_slash ? last_slash + 1 : copy;
  size_t last_len = strlen(last);
  if (last_len == 0 || strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || last_len > NAME_MAX) return -1;
  const char *folder = ".";
  if (last_slash == copy) folder = "/";
  else if (last_slash != NULL) {
    *last_slash = '\0';
    folder = copy;
  }
  if (strlen(folder) >= parent_size || last_len >= name_size) return -1;
  memcpy(parent, folder, strlen(folder) + 1);
  memcpy(name, last, last_len + 1);
  *slash = slashed;
  return 0;
}

/* Whether the `len` bytes at `part` are a kept name. */
static int is_kept(const struct supervision *cfg, const char *part, size_t len) {
  for (int i = 0; i < cfg->kept_names.n; i++)
    if (strlen(cfg->kept_names.path[i]) == len && strncmp(part, cfg->kept_names.path[i], len) == 0) return 1;
  return 0;
}

int kept_on_way(const struct supervision *cfg, int root, const char *path) {
  char folder[PATH_MAX];
  size_t n = strlen(cfg->roots.path[root]);
  if (n >= sizeof(folder) || strncmp(path, cfg->roots.path[root], n) != 0) return 0;
  memcpy(folder, path, n);
  folder[n] = '\0';
  const char *rest = path + n;
  for (;;) {
    while (*rest == '/') rest++;
    if (*rest == '\0') return 0;
    /* A folder that holds no root or kept-out folder keeps no name, nor does any folder beneath it. */
    if (!holds_barrier(cfg, folder)) return 0;
    size_t len = strcspn(rest, "/");
    if (is_kept(cfg, rest, len)) return 1;
    size_t at = strlen(folder);
    int root_slash = at == 1 && folder[0] == '/';
    if (at + !root_slash + len >= sizeof(folder)) return 0;
    if (!root_slash) folder[at++] = '/';
    memcpy(folder + at, rest, len);
    folder[at + len] = '\0';
    rest += len;
  }
}

enum verdict decide_path(const struct supervision *cfg, const char *dir_path, int top, const char *name,
                         char *entry_path, size_t entry_size) {
  if (entry_size > 0) entry_path[0] = '\0';
  if (dir_path[0] != '/' || (top >= 0 && top >= cfg->roots.n)) return UNKNOWN;
  const char *folder = strcmp(dir_path, "/") == 0 ? "" : dir_path;
  int n = snprintf(entry_path, entry_size, "%s/%s", folder, name);
  if (n < 0 || (size_t)n >= entry_size) {
    if (entry_size > 0) entry_path[0] = '\0';
    return UNKNOWN;
  }
  int root = top >= 0 ? top : root_of(cfg, dir_path);
  if (root < 0 || in_list(dir_path, &cfg->keep_out)) return OUTSIDE; /* not ours to widen: the domain decides */
  if (kept_on_way(cfg, root, entry_path) || holds_barrier(cfg, entry_path)) return REFUSE;
  if (in_list(dir_path, &cfg->trees)) return GRANTED;
  return ACT;
}

int answer_before_policy(enum entry_call call, unsigned flags, struct entry_facts entry, struct entry_facts other) {
  switch (call) {
    case MAKES_FOLDER: return entry.exists ? EEXIST : 0;
    case MAKES:
      if (entry.exists) return EEXIST;
      return entry.slash ? ENOENT : 0; /* a slash asks for a folder, which these do not make */
    case REMOVES_FOLDER:
      if (!entry.exists) return ENOENT;
      return entry.is_dir ? 0 : ENOTDIR;
    case REMOVES:
      if (!entry.exists) return ENOENT;
      if (entry.is_dir) return EISDIR;
      return entry.slash ? ENOTDIR : 0;
    case OPENS:
      if (!entry.exists) return !(flags & O_CREAT) ? ENOENT : entry.slash ? EISDIR : 0;
      if ((flags & O_CREAT) && (flags & O_EXCL)) return EEXIST;
      if (entry.is_dir) return (flags & O_CREAT) || (flags & O_ACCMODE) != O_RDONLY ? EISDIR : 0;
      return entry.slash ? ENOTDIR : 0;
    case RENAMES:
      if (!entry.exists) return ENOENT;
      if ((flags & RENAME_NOREPLACE) && other.exists) return EEXIST;
      if (flags & RENAME_EXCHANGE) {
        if (!other.exists) return ENOENT;
        if (!other.is_dir && other.slash) return ENOTDIR;
      }
      if (!entry.is_dir && (entry.slash || (!(flags & RENAME_EXCHANGE) && other.slash))) return ENOTDIR;
      /* A folder cannot replace what is no folder, nor the reverse (may_delete's checks, before a mount's EBUSY). */
      if (!(flags & RENAME_EXCHANGE) && other.exists && entry.is_dir != other.is_dir)
        return entry.is_dir ? ENOTDIR : EISDIR;
      return 0;
    default: return 0;
  }
}
