"""python -m rowwise.bench: rowwise beside PyTorch eager, torch.compile and persistent Triton kernels,
against the device's copy bandwidth. Measuring needs torch, triton and matplotlib; see __main__.

The names of what it measures live here, free of torch, so that --help and --from-json work anywhere."""
OP_NAMES = ("softmax", "log_softmax", "softmax_backward", "absmax_scale", "absmax_fp8")
DEFAULT_OPS = ("softmax", "log_softmax", "softmax_backward", "absmax_scale")
PEERS = ("rowwise", "torch", "torch.compile", "triton")
DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
COLS = (16, 32, 64, 128, 256, 512, 1000, 1024, 2048, 3000, 4096, 5000, 8192, 12345, 16384, 32768, 50257, 65536,
        131072, 262144)
