"""Sets up the PyTorch peer's BLAS before torch is imported, so the peer runs at its best.

Debian's torch multiplies through whatever provides libblas.so.3: the bench scripts
install OpenBLAS (libopenblas0-pthread). On this VM OpenBLAS mis-detects the CPU as
"Prescott" (23 GFLOP/s); naming the core type from /proc/cpuinfo gives 150 GFLOP/s.
"""
import os


def configure(threads):
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    if "OPENBLAS_CORETYPE" not in os.environ:
        try:
            flags = open("/proc/cpuinfo").read()
        except OSError:
            flags = ""
        if "avx512f" in flags:
            os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
        elif "avx2" in flags:
            os.environ["OPENBLAS_CORETYPE"] = "Haswell"
