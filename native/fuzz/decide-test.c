/*
 * Unit tests of the Landlock supervisor's pure decisions (native/decide.c) on fixed inputs: one workspace root with a
 * tree the domain grants and a folder kept out, a temp root, and the kept names. Built with ASan and UBSan and run by
 * test/package/native-fuzz.test.ts; prints "N passed, 0 failed" and exits 0, or says which case broke and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../decide.h"

static int passed, failed;

#define EXPECT(cond)                                                                  \
  do {                                                                                \
    if (cond) {                                                                       \
      passed++;                                                                       \
    } else {                                                                          \
      failed++;                                                                       \
      fprintf(stderr, "decide-test: %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
    }                                                                                 \
  } while (0)

static char *roots[] = {"/ws", "/tmp", "/ws/inner"};
static char *trees[] = {"/ws/src"};
static char *keep_out[] = {"/ws/.server"};
static char *kept[] = {".git", "HEAD", ".agents"};
static const struct supervision cfg = {{roots, 3}, {trees, 1}, {keep_out, 1}, {kept, 3}, NULL, NULL};

/* decide_path's verdict and entry path for `name` in `dir` (`top`: the root whose top `dir` is, or -1). */
static int decides(const char *dir, int top, const char *name, enum verdict verdict, const char *entry) {
  char out[PATH_MAX];
  memset(out, 'X', sizeof(out));
  return decide_path(&cfg, dir, top, name, out, sizeof(out)) == verdict && strcmp(out, entry) == 0;
}

static int splits(const char *path, const char *parent, const char *name, int slash) {
  char p[PATH_MAX] = "", n[NAME_MAX + 1] = "";
  int s = -1;
  return split_path(path, p, sizeof(p), n, sizeof(n), &s) == 0 && strcmp(p, parent) == 0 && strcmp(n, name) == 0 &&
         s == slash;
}

static int refuses_split(const char *path) {
  char p[PATH_MAX] = "untouched", n[NAME_MAX + 1] = "untouched";
  int s = -1;
  return split_path(path, p, sizeof(p), n, sizeof(n), &s) == -1 && strcmp(p, "untouched") == 0 &&
         strcmp(n, "untouched") == 0 && s == -1;
}

/* What is known of an entry: it exists, is a folder, was named with a trailing slash. */
static struct entry_facts facts(int exists, int is_dir, int slash) {
  return (struct entry_facts){.exists = exists, .is_dir = is_dir, .slash = slash};
}

int main(void) {
  /* within: a folder holds itself and what lies beneath it, not a sibling that shares its prefix. */
  EXPECT(within("/ws", "/ws") && within("/ws/a/b", "/ws") && !within("/ws2", "/ws") && !within("/w", "/ws"));
  EXPECT(within("/anything", "/") && !within("relative", "/"));

  /* root_of: the longest root; in_list; holds_barrier: a root or a kept-out folder beneath. */
  EXPECT(root_of(&cfg, "/ws/inner/x") == 2 && root_of(&cfg, "/ws/x") == 0 && root_of(&cfg, "/etc") == -1);
  EXPECT(in_list("/ws/src/a", &cfg.trees) && !in_list("/ws/srcx", &cfg.trees));
  EXPECT(holds_barrier(&cfg, "/ws") && holds_barrier(&cfg, "/ws/inner") && holds_barrier(&cfg, "/ws/.server"));
  EXPECT(holds_barrier(&cfg, "/") && !holds_barrier(&cfg, "/ws/src") && !holds_barrier(&cfg, "/ws/inner/x"));
  /* kept_on_way: a kept name at a root's top, or in a folder between it and a root or kept-out folder beneath it. */
  EXPECT(kept_on_way(&cfg, 0, "/ws/.git") && kept_on_way(&cfg, 0, "/ws/.git/config") && !kept_on_way(&cfg, 0, "/ws/.gitx"));
  EXPECT(!kept_on_way(&cfg, 0, "/ws") && !kept_on_way(&cfg, 0, "/ws/src/.git") && kept_on_way(&cfg, 2, "/ws/inner/HEAD"));
  EXPECT(kept_on_way(&cfg, 0, "/ws/inner/.git") && !kept_on_way(&cfg, 1, "/tmp/x/.git") && kept_on_way(&cfg, 1, "/tmp/HEAD"));

  /* split_path: as the kernel splits a path for the call on its last part. */
  EXPECT(splits("a", ".", "a", 0) && splits("/a", "/", "a", 0) && splits("a/b/", "a", "b", 1));
  EXPECT(splits("/x/y//", "/x", "y", 1) && splits("//a", "/", "a", 0) && splits("../a", "..", "a", 0));
  EXPECT(splits("a/./b", "a/.", "b", 0));
  EXPECT(refuses_split("") && refuses_split("/") && refuses_split(".") && refuses_split("a/..") && refuses_split("//"));
  char longest[NAME_MAX + 2];
  memset(longest, 'n', sizeof(longest));
  longest[NAME_MAX + 1] = '\0';
  EXPECT(refuses_split(longest)); /* a name one byte too long */
  longest[NAME_MAX] = '\0';
  EXPECT(splits(longest, ".", longest, 0));
  char small_parent[2], small_name[2];
  int slash = 0;
  EXPECT(split_path("ab/c", small_parent, sizeof(small_parent), small_name, sizeof(small_name), &slash) == -1);

  /* decide_path: one verdict per meaning. */
  EXPECT(decides("/ws", 0, "x", ACT, "/ws/x"));
  EXPECT(decides("/ws", 0, ".git", REFUSE, "/ws/.git"));
  EXPECT(decides("/ws", 0, "HEAD", REFUSE, "/ws/HEAD"));
  EXPECT(decides("/ws", 0, "inner", REFUSE, "/ws/inner"));     /* holds another root */
  EXPECT(decides("/ws", 0, ".server", REFUSE, "/ws/.server")); /* is a kept-out folder */
  EXPECT(decides("/ws", -1, ".git", REFUSE, "/ws/.git"));      /* the top, named by its path */
  EXPECT(decides("/ws/a", -1, ".git", ACT, "/ws/a/.git"));     /* a kept name only at a root's top */
  EXPECT(decides("/ws/.git", -1, "config", REFUSE, "/ws/.git/config"));
  EXPECT(decides("/ws/src", -1, "x", GRANTED, "/ws/src/x"));
  EXPECT(decides("/ws/inner", 2, ".git", REFUSE, "/ws/inner/.git"));
  EXPECT(decides("/ws/inner", 2, "y", ACT, "/ws/inner/y"));
  EXPECT(decides("/tmp", 1, "HEAD", REFUSE, "/tmp/HEAD"));
  EXPECT(decides("/etc", -1, "x", OUTSIDE, "/etc/x"));
  EXPECT(decides("/ws/.server", -1, "x", OUTSIDE, "/ws/.server/x"));
  EXPECT(decides("/", -1, "ws", OUTSIDE, "/ws"));
  EXPECT(decides("relative", -1, "x", UNKNOWN, ""));
  EXPECT(decides("/ws", 3, "x", UNKNOWN, "")); /* no root 3 */
  char tight[7];
  EXPECT(decide_path(&cfg, "/ws", 0, "x", tight, sizeof(tight)) == ACT && strcmp(tight, "/ws/x") == 0);
  EXPECT(decide_path(&cfg, "/ws", 0, "xy", tight, 6) == UNKNOWN && tight[0] == '\0'); /* no room: nothing known */
  EXPECT(decide_path(&cfg, "/ws", 0, "x", NULL, 0) == UNKNOWN);

  /* metadata_root: beneath a root, not its top, not a kept name at its top, not kept out. */
  EXPECT(metadata_root(&cfg, "/ws/x") == 0 && metadata_root(&cfg, "/ws/src/x.sh") == 0);
  EXPECT(metadata_root(&cfg, "/ws") == -1 && metadata_root(&cfg, "/tmp") == -1 && metadata_root(&cfg, "/etc/x") == -1);
  EXPECT(metadata_root(&cfg, "/ws/.git") == -1 && metadata_root(&cfg, "/ws/.git/config") == -1);
  EXPECT(metadata_root(&cfg, "/ws/.server/x") == -1 && metadata_root(&cfg, "/tmp/HEAD") == -1);
  EXPECT(metadata_root(&cfg, "/tmp/a/HEAD") == 1 && metadata_root(&cfg, "/ws/inner") == -1);
  EXPECT(metadata_root(&cfg, "/ws/inner/z") == 2);

  /* answer_before_policy: what the kernel answers before any security check. */
  struct entry_facts none = facts(0, 0, 0), file = facts(1, 0, 0), folder = facts(1, 1, 0);
  EXPECT(answer_before_policy(MAKES_FOLDER, 0, folder, none) == EEXIST && answer_before_policy(MAKES_FOLDER, 0, file, none) == EEXIST);
  EXPECT(answer_before_policy(MAKES_FOLDER, 0, none, none) == 0 && answer_before_policy(MAKES_FOLDER, 0, facts(0, 0, 1), none) == 0);
  EXPECT(answer_before_policy(MAKES, 0, file, none) == EEXIST && answer_before_policy(MAKES, 0, none, none) == 0);
  EXPECT(answer_before_policy(MAKES, 0, facts(0, 0, 1), none) == ENOENT); /* symlink("t", "new/") */
  EXPECT(answer_before_policy(REMOVES_FOLDER, 0, none, none) == ENOENT && answer_before_policy(REMOVES_FOLDER, 0, file, none) == ENOTDIR);
  EXPECT(answer_before_policy(REMOVES_FOLDER, 0, folder, none) == 0);
  EXPECT(answer_before_policy(REMOVES, 0, none, none) == ENOENT && answer_before_policy(REMOVES, 0, folder, none) == EISDIR);
  EXPECT(answer_before_policy(REMOVES, 0, facts(1, 0, 1), none) == ENOTDIR && answer_before_policy(REMOVES, 0, file, none) == 0);
  EXPECT(answer_before_policy(OPENS, O_WRONLY, none, none) == ENOENT && answer_before_policy(OPENS, O_CREAT, none, none) == 0);
  EXPECT(answer_before_policy(OPENS, O_CREAT | O_EXCL, file, none) == EEXIST && answer_before_policy(OPENS, O_CREAT, file, none) == 0);
  EXPECT(answer_before_policy(OPENS, O_WRONLY, folder, none) == EISDIR && answer_before_policy(OPENS, O_CREAT, facts(0, 0, 1), none) == EISDIR);
  EXPECT(answer_before_policy(RENAMES, 0, none, file) == ENOENT && answer_before_policy(RENAMES, 0, file, file) == 0);
  EXPECT(answer_before_policy(RENAMES, 1 /* NOREPLACE */, file, file) == EEXIST);
  EXPECT(answer_before_policy(RENAMES, 2 /* EXCHANGE */, file, none) == ENOENT);
  EXPECT(answer_before_policy(RENAMES, 2, file, file) == 0 && answer_before_policy(RENAMES, 0, facts(1, 0, 1), none) == ENOTDIR);
  EXPECT(answer_before_policy(RENAMES, 0, folder, file) == ENOTDIR && answer_before_policy(RENAMES, 0, file, folder) == EISDIR);
  EXPECT(answer_before_policy(RENAMES, 2, folder, file) == 0 && answer_before_policy(RENAMES, 0, folder, folder) == 0);
  EXPECT(answer_before_policy((enum entry_call)9, 0, file, file) == 0);

  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
