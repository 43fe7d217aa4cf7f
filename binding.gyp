{
  "targets": [
    {
      "target_name": "unified_exec_native",
      "sources": ["native/unified-exec.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    },
    {
      "target_name": "unified-exec-sandbox-exec",
      "type": "executable",
      "sources": ["native/sandbox-exec.c", "native/supervisor.c", "native/decide.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
