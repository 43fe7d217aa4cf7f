{
  "targets": [
    {
      "target_name": "unified_exec_native",
      "sources": ["native/unified-exec.c"],
      "cflags": [
        "-O2", "-Wall", "-Wextra", "-Werror", "-Wformat=2", "-Wshadow", "-Wvla", "-Werror=switch-default",
        "-ftrivial-auto-var-init=zero", "-D_FORTIFY_SOURCE=3", "-fstack-protector-strong", "-fstack-clash-protection"
      ],
      "ldflags": ["-Wl,-z,relro,-z,now"]
    },
    {
      "target_name": "unified-exec-sandbox-exec",
      "type": "executable",
      "sources": ["native/sandbox-exec.c", "native/supervisor.c", "native/decide.c"],
      "cflags": [
        "-O2", "-Wall", "-Wextra", "-Werror", "-Wformat=2", "-Wshadow", "-Wvla", "-Werror=switch-default",
        "-ftrivial-auto-var-init=zero", "-D_FORTIFY_SOURCE=3", "-fstack-protector-strong", "-fstack-clash-protection"
      ],
      "ldflags": ["-Wl,-z,relro,-z,now"]
    }
  ]
}
