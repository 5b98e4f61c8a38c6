"""A protocol bot that never answers: with ``start`` it never greets, otherwise it sleeps on ``go``.

With ``child`` it first starts a child process that sleeps too (it must be killed with it).
"""

import subprocess
import sys
import time

if "child" in sys.argv:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
for line in sys.stdin:
    word = line.split(" ", 1)[0].strip()
    if word == "schotten" and "start" not in sys.argv:
        print("ready", flush=True)
    elif word == "go" or word == "schotten":
        time.sleep(600)
