/*
 * The Landlock supervisor's decisions on paths and facts, apart from the code that reads the command's memory and
 * acts (supervisor.c): plain strings and flags in, a verdict out. Nothing here opens, reads or changes a file, so the
 * fuzz target (native/fuzz/decide-fuzz.c) and the unit tests can call it on any input.
 */
#ifndef UNIFIED_EXEC_DECIDE_H
#define UNIFIED_EXEC_DECIDE_H

#include <stddef.h>

#include "supervisor.h"

/* renameat2's flags, for a C library whose headers lack them (answer_before_policy reads them). */
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

/* Whether `path` is `dir` or lies beneath it (both absolute, resolved). */
int within(const char *path, const char *dir);

/* The longest writable root `path` lies in (or is), or -1. */
int root_of(const struct supervision *cfg, const char *path);

/* Whether `path` lies in (or is) a folder of `list`. */
int in_list(const char *path, const struct paths *list);

/* Whether another root or a kept-out folder is `path` or lies beneath it (moving or removing it moves them). */
int holds_barrier(const struct supervision *cfg, const char *path);


/*
 * The root whose metadata rules allow a change to what lies at `where` (a path as the kernel names it): beneath a
 * root, not its top, not a kept name at its top, not in a kept-out folder. -1 when none does.
 */
int metadata_root(const struct supervision *cfg, const char *where);

/*
 * `path` split as the kernel splits it for a call that makes, removes or renames its last part: the folder (`parent`:
 * "." for a bare name, "/" for a name at the top), the name, and whether the path ended in a slash (`slash`: then the
 * entry must be a folder, and the kernel answers otherwise: see answer_before_policy). 0, or -1 when the last part is
 * no name an entry can have ("", ".", "..", too long), and the kernel is then left to answer. All outputs are filled,
 * or none.
 */
int split_path(const char *path, char *parent, size_t parent_size, char *name, size_t name_size, int *slash);

/*
 * Whether `path` (in root `root`, as decide_path names entries) passes through a kept name in a folder where names are
 * kept: the root's top, and every folder between it and another root or kept-out folder beneath it, as bubblewrap
 * keeps them (the workspace in /tmp/x: /tmp/x/.git is as kept as /tmp/.git).
 */
int kept_on_way(const struct supervision *cfg, int root, const char *path);

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

/* What a call does to the entry it names, for the kernel's answers that come before any security check. */
enum entry_call {
  MAKES_FOLDER,   /* mkdir */
  MAKES,          /* mknod, symlink, a link's new name */
  REMOVES_FOLDER, /* rmdir */
  REMOVES,        /* unlink */
  OPENS,          /* an open for writing or making (`flags`: open's) */
  RENAMES,        /* a rename or an exchange (`flags`: renameat2's; `entry` the source, `other` the target) */
};

/* What is known of an entry: whether it exists (a link counts as itself), is a folder, was named with a slash. */
struct entry_facts {
  int exists;
  int is_dir;
  int slash;
};

/*
 * The errno the kernel gives `call` on the entry before the security hooks (Landlock's, or a read-only mount's) are
 * asked, from the facts alone: a name that exists where one is to be made (EEXIST), one missing where one must be
 * (ENOENT), a slash after what is no folder (ENOTDIR, or EISDIR and ENOENT where a file was to be made), a folder
 * opened for writing (EISDIR). 0: none; the call is then done, or refused, as its verdict says.
 */
int answer_before_policy(enum entry_call call, unsigned flags, struct entry_facts entry, struct entry_facts other);

#endif
