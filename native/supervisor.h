/* The Landlock backend's supervisor: see supervisor.c. */
#ifndef UNIFIED_EXEC_SUPERVISOR_H
#define UNIFIED_EXEC_SUPERVISOR_H

/* A list of paths (or names) given on the command line. */
struct paths {
  char **path;
  int n;
};

struct supervision {
  /* Every writable root (resolved): inside one, files may be made, removed, renamed and their metadata changed. */
  struct paths roots;
  /* Folders the Landlock domain itself grants whole: creations there go on without the supervisor. */
  struct paths trees;
  /* Folders that stay read-only wherever they lie (the server's own). */
  struct paths keep_out;
  /* Names that cannot be made, removed, renamed or changed at the top of any root (.git, HEAD, ...). */
  struct paths kept_names;
  /* The BPF program (base64) whose USER_NOTIF answers the supervisor handles. */
  const char *program;
  /*
   * Where to record the first socket() of an IP family refused (the network is off and the program sends those
   * here): a new file holding the family. NULL: none is sent here.
   */
  const char *network_refusals;
};

/* The command's side, after fork: enters the sandbox and returns 0, or prints why not and returns an exit status. */
typedef int (*enter_sandbox_fn)(void *context);

/*
 * Runs `command` as a child in the sandbox `enter` makes, under the supervision filter, and supervises it until it
 * exits: then ends whatever it left behind and exits as the command did. Returns only on a setup error (an exit status).
 */
int supervise(const struct supervision *config, enter_sandbox_fn enter, void *context, char **command);

#endif
