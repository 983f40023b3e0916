/* Preloaded into jest's process (LD_PRELOAD): from its first instruction no process of the same
   uid (the subject, with the model's code) may ptrace it or open its /proc/<pid>/mem, environ or
   fd. Built by scripts/setup_languages.sh javascript. */
#include <sys/prctl.h>

__attribute__((constructor)) static void undumpable(void) { prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
