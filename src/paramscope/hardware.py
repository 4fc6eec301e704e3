"""Accelerators: dense 16-bit peak throughput and memory size, each with its source.

``bf16_flops`` is the *dense* (no 2:4 structured sparsity) peak of the matrix units in bf16 with fp32
accumulation, in FLOP/s: vendors often print the sparse figure, which is twice as large. ``memory_bytes``
is the datasheet capacity in the unit the datasheet uses (GB = 10^9 bytes, GiB = 2^30 bytes). For the
NVIDIA parts this is at or slightly below what the driver reports (an H100 80GB shows 81,559 MiB =
85.5e9 bytes in nvidia-smi); the difference roughly covers the CUDA context and allocator reserve, so a
model that "fits" here leaves that slack on the real device.
"""

from __future__ import annotations

from dataclasses import dataclass

GB = 10**9
GiB = 2**30


@dataclass(frozen=True)
class Accelerator:
    key: str
    name: str
    bf16_flops: float  # dense peak, FLOP/s
    memory_bytes: int
    memory_label: str  # as the datasheet prints it, e.g. "80 GB HBM3"
    source: str
    note: str = ""

    @property
    def tflops(self) -> float:
        return self.bf16_flops / 1e12


_ALL = (
    Accelerator(
        "a100-40gb",
        "NVIDIA A100 SXM 40GB",
        312e12,
        40 * GB,
        "40 GB HBM2",
        "NVIDIA A100 Tensor Core GPU datasheet: BF16 Tensor Core 312 TFLOPS (624 with sparsity)",
    ),
    Accelerator(
        "a100-80gb",
        "NVIDIA A100 SXM 80GB",
        312e12,
        80 * GB,
        "80 GB HBM2e",
        "NVIDIA A100 Tensor Core GPU datasheet: BF16 Tensor Core 312 TFLOPS (624 with sparsity)",
    ),
    Accelerator(
        "h100-pcie",
        "NVIDIA H100 PCIe 80GB",
        756e12,
        80 * GB,
        "80 GB HBM2e",
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper, Table 3: H100 PCIe peak BF16 Tensor "
        "756 TFLOPS (1513 with sparsity)",
    ),
    Accelerator(
        "h100-sxm",
        "NVIDIA H100 SXM 80GB",
        989.4e12,
        80 * GB,
        "80 GB HBM3",
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper, Table 3: H100 SXM5 peak BF16 Tensor "
        "989.4 TFLOPS (1978.9 with sparsity)",
    ),
    Accelerator(
        "h200-sxm",
        "NVIDIA H200 SXM 141GB",
        989.4e12,
        141 * GB,
        "141 GB HBM3e",
        "NVIDIA H200 Tensor Core GPU datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity (the same "
        "GH100 tensor cores as H100 SXM: 989.4 dense), 141 GB HBM3e",
    ),
    Accelerator(
        "b200",
        "NVIDIA B200 (HGX, 1000 W)",
        2250e12,
        180 * GB,
        "180 GB HBM3e",
        "NVIDIA HGX B200 datasheet: FP16/BF16 Tensor Core 4.5 PFLOPS per GPU with sparsity (2.25 dense); "
        "DGX/HGX B200 lists 1,440 GB of GPU memory for 8 GPUs",
        "the B200 package carries 192 GB; HGX/DGX systems expose 180 GB per GPU",
    ),
    Accelerator(
        "rtx-3090",
        "NVIDIA GeForce RTX 3090",
        71e12,
        24 * GB,
        "24 GB GDDR6X",
        "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A: RTX 3090 peak BF16 Tensor TFLOPS "
        "with FP32 accumulate 71 (142 with sparsity)",
    ),
    Accelerator(
        "rtx-4090",
        "NVIDIA GeForce RTX 4090",
        165.2e12,
        24 * GB,
        "24 GB GDDR6X",
        "NVIDIA Ada GPU Architecture whitepaper, Appendix A: RTX 4090 peak BF16 Tensor TFLOPS with FP32 "
        "accumulate 165.2 (330.4 with sparsity)",
    ),
    Accelerator(
        "mi300x",
        "AMD Instinct MI300X",
        1307.4e12,
        192 * GB,
        "192 GB HBM3",
        "AMD Instinct MI300X data sheet: peak BF16 1307.4 TFLOPS dense (2614.9 with sparsity), 192 GB HBM3",
    ),
    Accelerator(
        "tpu-v4",
        "Google Cloud TPU v4 (per chip)",
        275e12,
        32 * GiB,
        "32 GiB HBM2",
        "https://cloud.google.com/tpu/docs/v4: peak compute per chip 275 teraflops (bf16), HBM2 32 GiB",
    ),
    Accelerator(
        "tpu-v5e",
        "Google Cloud TPU v5e (per chip)",
        197e12,
        16 * GB,
        "16 GB HBM2",
        "https://cloud.google.com/tpu/docs/v5e: peak compute per chip (bf16) 197 TFLOPs, HBM 16 GB",
    ),
    Accelerator(
        "tpu-v5p",
        "Google Cloud TPU v5p (per chip)",
        459e12,
        95 * GB,
        "95 GB HBM2e",
        "https://cloud.google.com/tpu/docs/v5p: peak compute per chip (bf16) 459 TFLOPs, HBM2e 95 GB",
    ),
)

ACCELERATORS: dict[str, Accelerator] = {a.key: a for a in _ALL}
DEFAULT_GPU = "h100-sxm"


def get(key: str) -> Accelerator:
    """The accelerator called ``key``; ``ValueError`` listing the known keys otherwise."""
    if key in ACCELERATORS:
        return ACCELERATORS[key]
    raise ValueError(f"gpu: {str(key)[:40]!r} is not known; choose one of {', '.join(ACCELERATORS)}")
