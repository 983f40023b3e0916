"""Start the subject (subject.cjs) where it may write only its own directory and /dev.

jest's process reads files after the subject has started (modules a spec requires later, the
babel config, its node_modules link): the subject, which runs as the same uid, must not be able
to change them. Landlock (unprivileged, inherited by everything the subject starts) takes every
right to create, write, remove or rename files away from it, except under the directories given.
Where the kernel has no Landlock the subject starts unconfined and says so on stderr.

Usage: python3 -I -S confine.py WRITABLE[:WRITABLE...] PROGRAM ARG...
"""

import ctypes
import os
import struct
import sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
RULE_PATH_BENEATH = 1
WRITE_FILE, READ_DIR, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 3, 1 << 4, 1 << 5
MAKES = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
REFER, TRUNCATE = 1 << 13, 1 << 14
PR_SET_NO_NEW_PRIVS = 38


def _rights(abi: int) -> int:
    rights = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKES
    return rights | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)


def confine(writable: list[str]) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(CREATE_RULESET, None, 0, 1)
    if abi < 1:
        return False
    rights = _rights(abi)
    attr = struct.pack("=Q", rights)
    ruleset = libc.syscall(CREATE_RULESET, attr, len(attr), 0)
    if ruleset < 0:
        return False
    try:
        for path in writable:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            rule = struct.pack("=Qi", rights, fd)
            libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, rule, 0)
            os.close(fd)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        return libc.syscall(RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def main() -> None:
    writable, program = sys.argv[1].split(":"), sys.argv[2:]
    if not confine(writable):
        sys.stderr.write("codetrial: no Landlock here: the solution's process is not confined\n")
    os.execv(program[0], program)


if __name__ == "__main__":
    main()
