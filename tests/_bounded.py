"""Running a hostile input in a child process whose memory is capped, so a defect that would allocate gigabytes
fails the test with a MemoryError instead of taking the machine's memory (or waking the system's killer)."""

from __future__ import annotations

import os
import subprocess
import sys

#: Address space the child may map: bizsim and numpy imported fit easily; a list of 10^9 seeds does not.
MEMORY_CAP_BYTES = 3 * 2**30


def run_capped(code: str, cap: int = MEMORY_CAP_BYTES, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with ``python -c`` under an address-space cap of ``cap`` bytes; its output is captured."""
    prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))\n"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=timeout,
                          env=env)
