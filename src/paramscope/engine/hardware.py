"""Accelerators: dense 16-bit peak throughput and memory size, each with its source.

``bf16_flops`` is the *dense* (no 2:4 structured sparsity) peak of the matrix units in bf16 with fp32
accumulation, in FLOP/s: vendors often print the sparse figure, which is twice as large. ``memory_bytes``
is the datasheet capacity in the unit the datasheet uses (GB = 10^9 bytes, GiB = 2^30 bytes). ``usable_bytes`` is
what a process can allocate on the part as PyTorch reports it (``torch.cuda`` total capacity, measured: an H100 SXM
80GB 79.18 GiB = 85.0e9 bytes, an H200 139.80 GiB = 150.1e9 bytes, both above their datasheet figures); where it was
not measured, the datasheet capacity stands in (an underestimate on the NVIDIA parts). "Fits" compares against
:attr:`Accelerator.capacity`, the CUDA context being a line of the estimate itself.
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
    bandwidth: float = 0.0  # peak memory bandwidth, bytes/s (datasheet)
    bandwidth_source: str = ""
    usable_bytes: int = 0  # what PyTorch can allocate (its reported total capacity), measured; 0: not measured
    #: CUDA compute capability (NVIDIA's "CUDA GPUs" table): which kernels a serving engine picks; None: not CUDA
    capability: tuple[int, int] | None = None

    @property
    def capacity(self) -> int:
        """Bytes a run may use: the measured total capacity PyTorch reports, else the datasheet's."""
        return self.usable_bytes or self.memory_bytes

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
        bandwidth=1555e9,
        bandwidth_source="NVIDIA A100 datasheet: GPU memory bandwidth 1,555 GB/s (40GB SXM)",
        capability=(8, 0),
    ),
    Accelerator(
        "a100-80gb",
        "NVIDIA A100 SXM 80GB",
        312e12,
        80 * GB,
        "80 GB HBM2e",
        "NVIDIA A100 Tensor Core GPU datasheet: BF16 Tensor Core 312 TFLOPS (624 with sparsity)",
        bandwidth=2039e9,
        bandwidth_source="NVIDIA A100 datasheet: GPU memory bandwidth 2,039 GB/s (80GB SXM)",
        capability=(8, 0),
    ),
    Accelerator(
        "h100-pcie",
        "NVIDIA H100 PCIe 80GB",
        756e12,
        80 * GB,
        "80 GB HBM2e",
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper, Table 3: H100 PCIe peak BF16 Tensor "
        "756 TFLOPS (1513 with sparsity)",
        bandwidth=2000e9,
        bandwidth_source="NVIDIA H100 datasheet: H100 PCIe GPU memory bandwidth 2 TB/s",
        capability=(9, 0),
    ),
    Accelerator(
        "h100-sxm",
        "NVIDIA H100 SXM 80GB",
        989.4e12,
        80 * GB,
        "80 GB HBM3",
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper, Table 3: H100 SXM5 peak BF16 Tensor "
        "989.4 TFLOPS (1978.9 with sparsity)",
        bandwidth=3.35e12,
        bandwidth_source="NVIDIA H100 datasheet: H100 SXM GPU memory bandwidth 3.35 TB/s",
        usable_bytes=round(79.18 * GiB),  # torch: "total capacity of 79.18 GiB" (docs/measurements, 2026-11-26)
        capability=(9, 0),
    ),
    Accelerator(
        "h200-sxm",
        "NVIDIA H200 SXM 141GB",
        989.4e12,
        141 * GB,
        "141 GB HBM3e",
        "NVIDIA H200 Tensor Core GPU datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity (the same "
        "GH100 tensor cores as H100 SXM: 989.4 dense), 141 GB HBM3e",
        bandwidth=4.8e12,
        bandwidth_source="NVIDIA H200 datasheet: GPU memory bandwidth 4.8 TB/s",
        usable_bytes=round(139.80 * GiB),  # torch: "total capacity of 139.80 GiB" (docs/measurements, 2026-11-26)
        capability=(9, 0),
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
        bandwidth=8e12,
        bandwidth_source="NVIDIA HGX B200 datasheet: GPU memory bandwidth 8 TB/s per GPU",
        capability=(10, 0),
    ),
    Accelerator(
        "rtx-3090",
        "NVIDIA GeForce RTX 3090",
        71e12,
        24 * GB,
        "24 GB GDDR6X",
        "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A: RTX 3090 peak BF16 Tensor TFLOPS "
        "with FP32 accumulate 71 (142 with sparsity)",
        bandwidth=936e9,
        bandwidth_source="NVIDIA Ampere GA102 whitepaper, Appendix A: RTX 3090 memory bandwidth 936 GB/s",
        capability=(8, 6),
    ),
    Accelerator(
        "rtx-4090",
        "NVIDIA GeForce RTX 4090",
        165.2e12,
        24 * GB,
        "24 GB GDDR6X",
        "NVIDIA Ada GPU Architecture whitepaper, Appendix A: RTX 4090 peak BF16 Tensor TFLOPS with FP32 "
        "accumulate 165.2 (330.4 with sparsity)",
        bandwidth=1008e9,
        bandwidth_source="NVIDIA Ada whitepaper, Appendix A: RTX 4090 memory bandwidth 1,008 GB/s",
        capability=(8, 9),
    ),
    Accelerator(
        "mi300x",
        "AMD Instinct MI300X",
        1307.4e12,
        192 * GB,
        "192 GB HBM3",
        "AMD Instinct MI300X data sheet: peak BF16 1307.4 TFLOPS dense (2614.9 with sparsity), 192 GB HBM3",
        bandwidth=5.3e12,
        bandwidth_source="AMD Instinct MI300X data sheet: peak memory bandwidth 5.3 TB/s",
    ),
    Accelerator(
        "tpu-v4",
        "Google Cloud TPU v4 (per chip)",
        275e12,
        32 * GiB,
        "32 GiB HBM2",
        "https://cloud.google.com/tpu/docs/v4: peak compute per chip 275 teraflops (bf16), HBM2 32 GiB",
        bandwidth=1200e9,
        bandwidth_source="https://cloud.google.com/tpu/docs/v4: HBM2 bandwidth 1,200 GB/s per chip",
    ),
    Accelerator(
        "tpu-v5e",
        "Google Cloud TPU v5e (per chip)",
        197e12,
        16 * GB,
        "16 GB HBM2",
        "https://cloud.google.com/tpu/docs/v5e: peak compute per chip (bf16) 197 TFLOPs, HBM 16 GB",
        bandwidth=819e9,
        bandwidth_source="https://cloud.google.com/tpu/docs/v5e: HBM bandwidth 819 GB/s per chip",
    ),
    Accelerator(
        "tpu-v5p",
        "Google Cloud TPU v5p (per chip)",
        459e12,
        95 * GB,
        "95 GB HBM2e",
        "https://cloud.google.com/tpu/docs/v5p: peak compute per chip (bf16) 459 TFLOPs, HBM2e 95 GB",
        bandwidth=2765e9,
        bandwidth_source="https://cloud.google.com/tpu/docs/v5p: HBM2e bandwidth 2,765 GB/s per chip",
    ),
)

_ALL += (
    Accelerator(
        "l40s",
        "NVIDIA L40S",
        362.05e12,
        48 * GB,
        "48 GB GDDR6",
        "NVIDIA L40S datasheet: BF16 Tensor Core 362.05 TFLOPS (733 with sparsity), 48 GB GDDR6",
        bandwidth=864e9,
        bandwidth_source="NVIDIA L40S datasheet: memory bandwidth 864 GB/s",
        capability=(8, 9),
    ),
    Accelerator(
        "rtx-5090",
        "NVIDIA GeForce RTX 5090",
        209.5e12,
        32 * GB,
        "32 GB GDDR7",
        "NVIDIA RTX Blackwell GPU Architecture whitepaper, Appendix: RTX 5090 peak FP16/BF16 Tensor TFLOPS with "
        "FP32 accumulate 209.5 (419 with sparsity)",
        bandwidth=1792e9,
        bandwidth_source="NVIDIA RTX Blackwell whitepaper: RTX 5090 memory bandwidth 1,792 GB/s",
        capability=(12, 0),
    ),
    Accelerator(
        "a10",
        "NVIDIA A10 (AWS A10G is a variant)",
        125e12,
        24 * GB,
        "24 GB GDDR6",
        "NVIDIA A10 datasheet: BF16 Tensor Core 125 TFLOPS (250 with sparsity), 24 GB GDDR6",
        "AWS's A10G (g5 instances) has the same memory and a lower clock: its peak is below this",
        bandwidth=600e9,
        bandwidth_source="NVIDIA A10 datasheet: GPU memory bandwidth 600 GB/s",
        capability=(8, 6),
    ),
    Accelerator(
        "t4",
        "NVIDIA T4",
        65e12,
        16 * GB,
        "16 GB GDDR6",
        "NVIDIA T4 datasheet: mixed-precision (FP16/FP32) 65 TFLOPS",
        "Turing has no bf16: the peak is fp16's, and bf16 models run in fp16 or slower",
        bandwidth=320e9,
        bandwidth_source="NVIDIA T4 datasheet: GPU memory bandwidth 320+ GB/s",
        capability=(7, 5),
    ),
    Accelerator(
        "mi325x",
        "AMD Instinct MI325X",
        1307.4e12,
        256 * GB,
        "256 GB HBM3E",
        "AMD Instinct MI325X data sheet: peak BF16 1307.4 TFLOPS dense (2614.9 with sparsity), 256 GB HBM3E",
        bandwidth=6e12,
        bandwidth_source="AMD Instinct MI325X data sheet: peak memory bandwidth 6 TB/s",
    ),
)

ACCELERATORS: dict[str, Accelerator] = {a.key: a for a in _ALL}
DEFAULT_GPU = "h100-sxm"


def get(key: str) -> Accelerator:
    """The accelerator called ``key``; ``ValueError`` listing the known keys otherwise."""
    if key in ACCELERATORS:
        return ACCELERATORS[key]
    raise ValueError(f"gpu: {str(key)[:40]!r} is not known; choose one of {', '.join(ACCELERATORS)}")
