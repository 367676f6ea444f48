#!/usr/bin/env python3
"""PyTorch reference for benchmarks/gemm_gpubench.cc: torch.matmul TFLOP/s on the same GPU, same
sizes, fp32 with TF32 off and fp16 (run by scripts/gpu-check --run; prints one line per case)."""
import sys
import time

try:
    import torch
except ImportError:
    print("gemm_torch: PyTorch not available: SKIPPED")
    sys.exit(0)

if not torch.cuda.is_available():
    print("gemm_torch: no GPU: SKIPPED")
    sys.exit(0)

torch.backends.cuda.matmul.allow_tf32 = False
print(f"gemm_torch: torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
for dtype, name in ((torch.float32, "SGEMM"), (torch.float16, "HGEMM")):
    for n in (512, 1024, 2048, 4096, 8192):
        a = torch.zeros(n, n, device="cuda", dtype=dtype)
        b = torch.zeros(n, n, device="cuda", dtype=dtype)
        torch.matmul(a, b)
        torch.cuda.synchronize()
        iters, elapsed = 0, 0.0
        start = time.perf_counter()
        while elapsed < 0.5:  # same style as Google Benchmark: one product + sync per iteration
            torch.matmul(a, b)
            torch.cuda.synchronize()
            iters += 1
            elapsed = time.perf_counter() - start
        tflops = 2.0 * n ** 3 * iters / elapsed * 1e-12
        print(f"torch_{name}/{n}  {elapsed / iters * 1e6:10.1f} us  {tflops:8.2f} TFLOP/s")
