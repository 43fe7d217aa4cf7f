/* The Landlock supervisor's pure decisions: see decide.h. */
#define _GNU_SOURCE
#include "decide.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

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

int starts_with_kept(const struct supervision *cfg, const char *rel) {
  size_t len = strcspn(rel, "/");
  for (int i = 0; i < cfg->kept_names.n; i++)
    if (strlen(cfg->kept_names.path[i]) == len && strncmp(rel, cfg->kept_names.path[i], len) == 0) return 1;
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
  if (*rel == '\0' || starts_with_kept(cfg, rel)) return -1;
  return root;
}

int split_path(const char *path, char *parent, size_t parent_size, char *name, size_t name_size) {
  char copy[PATH_MAX];
  size_t len = strlen(path);
  if (len == 0 || len >= sizeof(copy)) return -1;
  memcpy(copy, path, len + 1);
  while (len > 1 && copy[len - 1] == '/') copy[--len] = '\0'; /* "d/" names d */
  char *slash = strrchr(copy, '/');
  const char *last = slash ? slash + 1 : copy;
  size_t last_len = strlen(last);
  if (last_len == 0 || strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || last_len > NAME_MAX) return -1;
  const char *folder = ".";
  if (slash == copy) folder = "/";
  else if (slash != NULL) {
    *slash = '\0';
    folder = copy;
  }
  if (strlen(folder) >= parent_size || last_len >= name_size) return -1;
  memcpy(parent, folder, strlen(folder) + 1);
  memcpy(name, last, last_len + 1);
  return 0;
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
  /* A root's top is named by the root (a folder known by its inode): its entries are relative to it. */
  const char *rel = top >= 0 ? name : relative(cfg, root, entry_path);
  if (starts_with_kept(cfg, rel) || holds_barrier(cfg, entry_path)) return REFUSE;
  if (in_list(dir_path, &cfg->trees)) return GRANTED;
  return ACT;
}

int answer_before_policy(enum refused_call call, unsigned flags, int exists, int other) {
  switch (call) {
    case MAKES: return exists ? EEXIST : 0;
    case REMOVES: return exists ? 0 : ENOENT;
    case OPENS:
      if (!exists) return (flags & O_CREAT) ? 0 : ENOENT;
      return (flags & O_CREAT) && (flags & O_EXCL) ? EEXIST : 0;
    case RENAMES:
      if (!exists) return ENOENT;
      if ((flags & RENAME_NOREPLACE) && other) return EEXIST;
      if ((flags & RENAME_EXCHANGE) && !other) return ENOENT;
      return 0;
    default: return 0;
  }
}
