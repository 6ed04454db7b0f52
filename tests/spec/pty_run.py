#!/usr/bin/env python3
"""pty_run.py CMD ARGS... -- run CMD with its stderr on a pseudo-terminal (its
stdout and stdin on /dev/null); write what it wrote to the terminal on our
stdout, byte for byte, and exit with its exit code (progress_spec.lua)."""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
out = b""
while True:
    try:
        d = os.read(master, 65536)
    except OSError:   # EIO: the other side closed
        break
    if not d:
        break
    out += d
sys.stdout.buffer.write(out)
sys.exit(p.wait())
