"""``quiet_libraries()`` silences the codec libraries, never another thread's message.

libpng and libjpeg print straight to file descriptor 2, so around a decode fd 2 points at
the null device; ``serve`` runs decodes on one thread while others write errors and
warnings. Run in a child process: the test's own capture would hide what fd 2 does.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import os, struct, sys, threading, zlib
    import click, cv2, numpy as np
    from referee.media import quiet_libraries

    png = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
    data = b"bad\\0\\0" + zlib.compress(b"not a colour profile")
    iccp = struct.pack(">I", len(data)) + b"iCCP" + data
    iccp += struct.pack(">I", zlib.crc32(b"iCCP" + data))
    # A colour profile chunk libpng warns about on fd 2 at every decode.
    noisy = np.frombuffer(png[:33] + iccp + png[33:], np.uint8)

    def write(name, count):
        for i in range(count):
            if i % 2:
                click.echo(f"message {name}-{i}", err=True)
            else:
                sys.stderr.write(f"message {name}-{i}\\n")

    # Written while a decode is certainly running on another thread.
    with quiet_libraries():
        cv2.imdecode(noisy, cv2.IMREAD_COLOR)
        writer = threading.Thread(target=write, args=("inside", 50))
        writer.start()
        writer.join()

    # Writers and decoders on several threads at once, windows overlapping.
    done = threading.Event()

    def decode():
        while not done.is_set():
            with quiet_libraries():
                cv2.imdecode(noisy, cv2.IMREAD_COLOR)

    decoders = [threading.Thread(target=decode) for _ in range(3)]
    writers = [threading.Thread(target=write, args=(f"w{k}", 300)) for k in range(3)]
    for thread in decoders + writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in decoders:
        thread.join()
    os.write(2, b"fd 2 is back\\n")
    cv2.imdecode(noisy, cv2.IMREAD_COLOR)  # outside: the library speaks again
    """
)


def test_every_message_arrives_while_decodes_run_on_other_threads() -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, check=True
    )
    lines = child.stderr.splitlines()
    wanted = [f"inside-{i}" for i in range(50)]
    wanted += [f"w{k}-{i}" for k in range(3) for i in range(300)]
    assert sorted(re.findall(r"message (\w+-\d+)", child.stderr)) == sorted(wanted)
    assert "fd 2 is back" in lines
    # Quiet while any thread was inside; the library's own line only after the last left.
    assert lines.count("libpng warning: iCCP: too short") == 1, child.stderr
    assert lines[-1] == "libpng warning: iCCP: too short"
