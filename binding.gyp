{
  "targets": [
    {
      "target_name": "unified_exec_native",
      "sources": ["native/unified-exec.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
