/*
 * The Landlock supervisor's decisions on paths and facts, apart from the code that reads the command's memory and
 * acts (supervisor.c): plain strings and flags in, a verdict out. Nothing here opens, reads or changes a file, so the
 * fuzz target (native/fuzz/decide-fuzz.c) and the unit tests can call it on any input.
 */
#ifndef UNIFIED_EXEC_DECIDE_H
#define UNIFIED_EXEC_DECIDE_H

#include <stddef.h>

#include "supervisor.h"

/* Whether `path` is `dir` or lies beneath it (both absolute, resolved). */
int within(const char *path, const char *dir);

/* The longest writable root `path` lies in (or is), or -1. */
int root_of(const struct supervision *cfg, const char *path);

/* Whether `path` lies in (or is) a folder of `list`. */
int in_list(const char *path, const struct paths *list);

/* Whether another root or a kept-out folder is `path` or lies beneath it (moving or removing it moves them). */
int holds_barrier(const struct supervision *cfg, const char *path);

/* Whether `rel` (a path relative to a root, "" for the root itself) starts with a kept name. */
int starts_with_kept(const struct supervision *cfg, const char *rel);

/*
 * The root whose metadata rules allow a change to what lies at `where` (a path as the kernel names it): beneath a
 * root, not its top, not a kept name at its top, not in a kept-out folder. -1 when none does.
 */
int metadata_root(const struct supervision *cfg, const char *where);

/*
 * `path` split as the kernel splits it for a call that makes, removes or renames its last part: the folder (`parent`:
 * "." for a bare name, "/" for a name at the top) and the name. 0, or -1 when the last part is no name an entry can
 * have ("", ".", "..", too long), and the kernel is then left to answer. Both outputs are filled, or neither.
 */
int split_path(const char *path, char *parent, size_t parent_size, char *name, size_t name_size);

/* One verdict per meaning: what is known of an entry decides what the supervisor does with a call on it. */
enum verdict {
  UNKNOWN, /* nothing known (a missing folder, a path not read): the kernel does the call and the domain decides */
  GRANTED, /* the domain grants the folder itself (a tree): the kernel does the call */
  OUTSIDE, /* not in a writable root, or in a kept-out folder: the kernel does the call and the domain refuses */
  ACT,     /* in a writable root where the domain grants nothing: the supervisor does it */
  REFUSE,  /* a kept name at a root's top, or an entry that holds a barrier: refused, nothing changes */
};

/*
 * The verdict on the entry `name` in the folder `dir_path` (resolved, as the kernel names it; `top`: the root whose
 * top that folder is, or -1). `entry_path` receives the entry's whole path for every verdict but UNKNOWN (then "").
 */
enum verdict decide_path(const struct supervision *cfg, const char *dir_path, int top, const char *name,
                         char *entry_path, size_t entry_size);

/* What a refused call was, for the kernel's answers that come before any security check (answer_before_policy). */
enum refused_call {
  MAKES,   /* mkdir, mknod, symlink, a link's new name */
  REMOVES, /* unlink, rmdir */
  OPENS,   /* an open for writing or making (`flags`: open's) */
  RENAMES, /* a rename's or an exchange's either end (`flags`: renameat2's) */
};

/*
 * The errno the kernel gives a call before the security hooks (Landlock's or a read-only mount's) are asked: a name
 * that exists where one is to be made (EEXIST), one that is missing where one must be (ENOENT). 0: none, and the
 * refusal stands. `exists`: the entry the call names; for a rename, `exists` is the source and `other` the target.
 */
int answer_before_policy(enum refused_call call, unsigned flags, int exists, int other);

#endif
