/*
 * libFuzzer target for the Landlock supervisor's pure decisions (native/decide.c): the input builds a supervision
 * (roots, trees, kept-out folders, kept names) and the paths asked about, and every decision is checked against what
 * it promises (decide.h) and what the supervisor relies on. Built with -fsanitize=fuzzer,address,undefined (every
 * string in an allocation of its own size, so a read past its end is caught). scripts/fuzz-native.sh builds and runs
 * it; test/package/native-fuzz.test.ts runs it briefly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../decide.h"

#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "decide-fuzz: %s:%d: broken: %s\n", __FILE__, __LINE__, #cond);            \
      abort();                                                                                   \
    }                                                                                            \
  } while (0)

/* The input, read a byte at a time; zeros once it is used up. */
struct input {
  const uint8_t *data;
  size_t size;
};

static unsigned next(struct input *in) {
  if (in->size == 0) return 0;
  in->size--;
  return *in->data++;
}

/* Names that make collisions likely: kept names, roots' last parts, and the ones the kernel treats apart. */
static const char *const NAMES[] = {"ws", "a", "b", ".git", "HEAD", ".agents", "tmp", "src", "x", "ws2", "..", ".", ""};
#define NAME_COUNT (sizeof(NAMES) / sizeof(NAMES[0]))
#define PLAIN_NAMES (NAME_COUNT - 3) /* before "..", ".", "" */

/* A copy of `text` in an allocation of its own size. */
static char *copy(const char *text) {
  size_t n = strlen(text) + 1;
  char *out = malloc(n);
  CHECK(out != NULL);
  memcpy(out, text, n);
  return out;
}

/* A name: one of NAMES (`plain`: none of "..", ".", ""), or raw bytes from the input (no '/' or NUL), at most `max`. */
static void name(struct input *in, int plain, char *out, size_t max) {
  unsigned pick = next(in);
  if (pick < 200) {
    snprintf(out, max + 1, "%s", NAMES[pick % (plain ? PLAIN_NAMES : NAME_COUNT)]);
    return;
  }
  size_t len = pick == 255 ? max : next(in) % 12 + 1; /* now and then as long as a name may be */
  if (len > max) len = max;
  for (size_t i = 0; i < len; i++) {
    unsigned c = next(in);
    out[i] = (char)(c == 0 || c == '/' ? 'n' : c);
  }
  out[len] = '\0';
  if (plain && (strcmp(out, ".") == 0 || strcmp(out, "..") == 0)) out[0] = 'n';
}

/* An absolute path as the kernel names a folder: "/" or "/" and plain names joined by single slashes. */
static char *resolved(struct input *in) {
  char path[PATH_MAX] = "";
  size_t len = 0;
  unsigned parts = next(in) % 5;
  for (unsigned i = 0; i < parts; i++) {
    char part[NAME_MAX + 1];
    name(in, 1, part, NAME_MAX);
    if (len + 1 + strlen(part) >= sizeof(path)) break;
    len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s", part);
  }
  return copy(len == 0 ? "/" : path);
}

/* Any path a command may give: relative or absolute, with "..", ".", "" (double slashes) and trailing slashes. */
static char *any_path(struct input *in) {
  char path[PATH_MAX + 64] = "";
  size_t len = 0;
  if (next(in) & 1) path[len++] = '/';
  unsigned parts = next(in) % 6;
  for (unsigned i = 0; i < parts; i++) {
    char part[NAME_MAX + 2];
    name(in, 0, part, next(in) == 7 ? NAME_MAX + 1 : NAME_MAX); /* a name one too long, now and then */
    if (len + strlen(part) + 2 >= sizeof(path)) break;
    len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%s", i > 0 ? "/" : "", part);
  }
  unsigned slashes = next(in) % 3;
  while (slashes-- > 0 && len + 1 < sizeof(path)) path[len++] = '/';
  path[len] = '\0';
  return copy(path);
}

static void fill(struct input *in, struct paths *list, unsigned max, int names) {
  list->n = (int)(next(in) % (max + 1));
  list->path = calloc((size_t)list->n + 1, sizeof(char *));
  CHECK(list->path != NULL);
  for (int i = 0; i < list->n; i++) {
    if (names) {
      char part[NAME_MAX + 1];
      name(in, 1, part, NAME_MAX);
      list->path[i] = copy(part);
    } else {
      list->path[i] = resolved(in);
    }
  }
}

static void drop(struct paths *list) {
  for (int i = 0; i < list->n; i++) free(list->path[i]);
  free(list->path);
}

/* `path` with runs of slashes made one and trailing ones dropped ("/" stays): how the kernel reads its parts. */
static void squeeze(const char *path, char *out) {
  size_t n = 0;
  for (const char *p = path; *p; p++)
    if (!(*p == '/' && n > 0 && out[n - 1] == '/')) out[n++] = *p;
  while (n > 1 && out[n - 1] == '/') n--;
  out[n] = '\0';
}

static void check_split(const char *path) {
  char parent[PATH_MAX], entry_name[NAME_MAX + 1];
  memset(parent, 'P', sizeof(parent));
  memset(entry_name, 'N', sizeof(entry_name));
  int slash = -1;
  if (split_path(path, parent, sizeof(parent), entry_name, sizeof(entry_name), &slash) != 0) {
    /* No output filled. */
    CHECK(parent[0] == 'P' && entry_name[0] == 'N' && slash == -1);
    return;
  }
  /* `slash`: the path ended in one (after its name: "/" alone names no entry). */
  size_t len = strlen(path);
  CHECK(slash == (len > 1 && path[len - 1] == '/'));
  size_t name_len = strlen(entry_name);
  CHECK(name_len > 0 && name_len <= NAME_MAX && strchr(entry_name, '/') == NULL);
  CHECK(strcmp(entry_name, ".") != 0 && strcmp(entry_name, "..") != 0);
  CHECK(parent[0] != '\0');
  /* parent + "/" + name names the same entry as `path`. */
  char joined[2 * PATH_MAX], a[2 * PATH_MAX], b[2 * PATH_MAX];
  if (strcmp(parent, ".") == 0) snprintf(joined, sizeof(joined), "%s", entry_name);
  else snprintf(joined, sizeof(joined), "%s/%s", parent, entry_name);
  squeeze(path, a);
  squeeze(joined, b);
  /* "./x" and "x" name one entry: a bare name's folder is ".". */
  const char *pa = strncmp(a, "./", 2) == 0 && strcmp(parent, ".") == 0 ? a + 2 : a;
  CHECK(strcmp(pa, b) == 0);
}

/* Whether `path` is exactly `root` + "/" + a kept name. */
static int kept_at_top(const struct supervision *cfg, const char *path) {
  for (int r = 0; r < cfg->roots.n; r++) {
    const char *root = cfg->roots.path[r];
    size_t n = strcmp(root, "/") == 0 ? 0 : strlen(root);
    if (strncmp(path, root, n) != 0 || path[n] != '/') continue;
    for (int k = 0; k < cfg->kept_names.n; k++)
      if (strcmp(path + n + 1, cfg->kept_names.path[k]) == 0) return 1;
  }
  return 0;
}

static void check_root_of(const struct supervision *cfg, const char *path) {
  int r = root_of(cfg, path);
  CHECK(r >= -1 && r < cfg->roots.n);
  for (int i = 0; i < cfg->roots.n; i++) {
    if (!within(path, cfg->roots.path[i])) continue;
    CHECK(r >= 0);
    CHECK(strlen(cfg->roots.path[i]) <= strlen(cfg->roots.path[r])); /* the longest */
  }
  if (r >= 0) CHECK(within(path, cfg->roots.path[r]));
  int barrier = 0;
  for (int i = 0; i < cfg->roots.n; i++) barrier |= within(cfg->roots.path[i], path);
  for (int i = 0; i < cfg->keep_out.n; i++) barrier |= within(cfg->keep_out.path[i], path);
  CHECK(holds_barrier(cfg, path) == barrier);
  CHECK(within(path, "/") == (path[0] == '/'));
}

static void check_metadata(const struct supervision *cfg, const char *where) {
  int r = metadata_root(cfg, where);
  CHECK(r >= -1 && r < cfg->roots.n);
  if (r < 0) return;
  CHECK(r == root_of(cfg, where));
  CHECK(strcmp(where, cfg->roots.path[r]) != 0); /* never a root's top */
  CHECK(!in_list(where, &cfg->keep_out));
  CHECK(!kept_at_top(cfg, where) && !kept_on_way(cfg, r, where));
}

static void check_decide(const struct supervision *cfg, const char *dir_path, int top, const char *entry_name,
                         size_t entry_size) {
  char *entry = entry_size > 0 ? malloc(entry_size) : NULL;
  if (entry_size > 0) {
    CHECK(entry != NULL);
    memset(entry, 'E', entry_size);
  }
  enum verdict v = decide_path(cfg, dir_path, top, entry_name, entry, entry_size);
  switch (v) {
    case UNKNOWN:
      /* Empty: nothing of it may be used. */
      if (entry_size > 0) CHECK(entry[0] == '\0');
      break;
    case GRANTED:
    case OUTSIDE:
    case ACT:
    case REFUSE: {
      /* Filled: the entry's whole path. */
      CHECK(entry != NULL && memchr(entry, '\0', entry_size) != NULL);
      char expected[2 * PATH_MAX];
      snprintf(expected, sizeof(expected), "%s/%s", strcmp(dir_path, "/") == 0 ? "" : dir_path, entry_name);
      CHECK(strcmp(entry, expected) == 0);
      int root = top >= 0 ? top : root_of(cfg, dir_path);
      if (v == OUTSIDE) CHECK(root < 0 || in_list(dir_path, &cfg->keep_out));
      if (v == REFUSE || v == ACT || v == GRANTED) {
        /* In a root, never outside every one. */
        CHECK(root >= 0 && within(entry, cfg->roots.path[root]) && root_of(cfg, entry) >= 0);
        CHECK(!in_list(dir_path, &cfg->keep_out));
      }
      if (v == ACT || v == GRANTED) {
        CHECK(!kept_at_top(cfg, entry) && !kept_on_way(cfg, root, entry));
        CHECK(!holds_barrier(cfg, entry));
        CHECK(!in_list(entry, &cfg->keep_out));
      }
      if (v == ACT) CHECK(!in_list(dir_path, &cfg->trees));
      if (v == GRANTED) CHECK(in_list(dir_path, &cfg->trees));
      break;
    }
    default:
      CHECK(!"a verdict decide.h does not name");
  }
  free(entry);
}

/* The kernel's answers that hold whatever else the facts say. */
static void check_answers(unsigned call, unsigned flags, unsigned bits) {
  struct entry_facts entry = {bits & 1, bits >> 1 & 1, bits >> 2 & 1}, other = {bits >> 3 & 1, bits >> 4 & 1, bits >> 5 & 1};
  int err = answer_before_policy((enum entry_call)call, flags, entry, other);
  CHECK(err == 0 || err == EEXIST || err == ENOENT || err == ENOTDIR || err == EISDIR);
  CHECK(err == answer_before_policy((enum entry_call)call, flags, entry, other)); /* facts alone decide */
  switch (call) {
    case MAKES_FOLDER:
    case MAKES:
      if (entry.exists) CHECK(err == EEXIST);
      break;
    case REMOVES_FOLDER:
    case REMOVES:
    case RENAMES:
      if (!entry.exists) CHECK(err == ENOENT);
      if (call == REMOVES_FOLDER && entry.exists) CHECK(err == (entry.is_dir ? 0 : ENOTDIR));
      if (call == REMOVES && entry.exists && entry.is_dir) CHECK(err == EISDIR);
      if (call == RENAMES && entry.exists && (flags & 1 /* RENAME_NOREPLACE */) && other.exists) CHECK(err == EEXIST);
      if (call == RENAMES && entry.exists && (flags & 2 /* RENAME_EXCHANGE */) && !other.exists) CHECK(err == ENOENT);
      break;
    case OPENS:
      if (!entry.exists && !(flags & O_CREAT)) CHECK(err == ENOENT);
      if (entry.exists && (flags & O_CREAT) && (flags & O_EXCL)) CHECK(err == EEXIST);
      break;
    default: CHECK(err == 0); break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct input in = {data, size};
  struct supervision cfg = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}, NULL, NULL};
  fill(&in, &cfg.roots, 4, 0);
  fill(&in, &cfg.trees, 3, 0);
  fill(&in, &cfg.keep_out, 3, 0);
  fill(&in, &cfg.kept_names, 4, 1);
  for (int round = 0; round < 4 && in.size > 0; round++) {
    char *path = any_path(&in);
    check_split(path);
    char parent[PATH_MAX], entry_name[NAME_MAX + 1];
    int slash = 0;
    if (split_path(path, parent, sizeof(parent), entry_name, sizeof(entry_name), &slash) != 0)
      snprintf(entry_name, sizeof(entry_name), "n");
    /* The folder as the supervisor names it: a root's own path for its top, else the kernel's name for it. */
    int top = (int)(next(&in) % 6) - 1;
    char *dir = top >= 0 && top < cfg.roots.n ? copy(cfg.roots.path[top]) : resolved(&in);
    if (top >= cfg.roots.n && (next(&in) & 1)) top = -1; /* else an index past the roots: UNKNOWN */
    size_t sizes[] = {PATH_MAX, strlen(dir) + strlen(entry_name) + 2, strlen(dir) + strlen(entry_name) + 1, next(&in)};
    check_decide(&cfg, dir, top, entry_name, sizes[next(&in) % 4]);
    check_root_of(&cfg, dir);
    check_metadata(&cfg, dir);
    char *relative = any_path(&in); /* a folder not resolved: relative, or with "..": decided as the kernel names it only */
    if (relative[0] != '/') {
      char entry[PATH_MAX];
      CHECK(decide_path(&cfg, relative, -1, entry_name, entry, sizeof(entry)) == UNKNOWN && entry[0] == '\0');
    }
    check_answers(next(&in) % 7, next(&in) | next(&in) << 8 | next(&in) << 16, next(&in));
    free(relative);
    free(dir);
    free(path);
  }
  drop(&cfg.roots);
  drop(&cfg.trees);
  drop(&cfg.keep_out);
  drop(&cfg.kept_names);
  return 0;
}
