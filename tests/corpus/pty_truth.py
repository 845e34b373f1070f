#!/usr/bin/env python3
"""The true verdict for the comparison corpus, computed outside rea.

Reads a JSON list of argument vectors on stdin, runs each in the current
directory under a fresh 80x24 pseudo-terminal (the environment rea gives a
child: TERM=xterm-256color, no COLUMNS or LINES), and prints a JSON list of
{"output_hex": ..., "exit_code": ...}: every byte the terminal received and
the exit status (negative: killed by that signal).
"""
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios


def run(argv):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ)
    env["TERM"] = "xterm-256color"
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    child = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True
    )
    os.close(slave)
    output = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every slave descriptor is closed
            break
        if not chunk:
            break
        output += chunk
    code = child.wait(timeout=60)
    os.close(master)
    return {"output_hex": output.hex(), "exit_code": code}


def main():
    print(json.dumps([run(argv) for argv in json.load(sys.stdin)]))


if __name__ == "__main__":
    main()
