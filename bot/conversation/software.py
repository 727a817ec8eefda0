"""What a workload runs on, never a workload: libraries, runtimes, drivers, GPUs, cluster parts.

`why does nccl-2.18 hang`, `cuda 12.4 OOM on train-bert`, `after the torch-2.3 bump`: the
library (with its version or not) is what the workload uses, so it is never read as the
workload, not even as what failed (a model's name is: `why did qwen-2.5 fail`). Nor are the
names a pasted `kubectl describe` shows for who reported an event (`default-scheduler`,
`kubelet`). A cluster or project called exactly that is still linked as one
(`understand.linking`).
"""

from __future__ import annotations

import re

__all__ = ["is_software"]


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Libraries, runtimes, drivers and operating systems people name beside a failure.
#: Not the words a workload may be named after too (`driver-2`, `kernel-bench`, `docker-1`).
_LIBRARIES = _set(
    """nccl rccl cuda cudnn cublas cufft cusparse cutlass nvcc nvidia-driver torch pytorch
    torchvision torchaudio torchrun tensorflow tf jax jaxlib keras transformers deepspeed
    megatron megatron-core apex triton vllm xformers flash-attn flash-attention bitsandbytes
    numpy scipy pandas python python3 cpython gcc glibc libc openmpi mpich mpi ucx nvshmem
    gdrcopy efa ofed mofed dcgm horovod onnx onnxruntime tensorrt nvhpc hpcx containerd
    kubernetes k8s ubuntu rhel centos debian cuda-toolkit nvidia-container-toolkit
    gpu-operator fabricmanager fabric-manager"""
)
#: Who reports a pod's events (`kubectl describe`'s `From` column) and other cluster parts.
_COMPONENTS = _set(
    """default-scheduler runai-scheduler kai-scheduler kube-scheduler kubelet kube-proxy
    kube-state-metrics kube-controller-manager cluster-autoscaler karpenter coredns kube-dns
    etcd attachdetach-controller persistentvolume-controller job-controller
    replicaset-controller statefulset-controller taint-controller node-controller
    nvidia-device-plugin nvidia-dcgm-exporter dcgm-exporter gpu-feature-discovery
    node-exporter runai-operator runai-agent"""
)
#: GPUs by model (`OOM on a100`, `the h100 nodes`): hardware, never a workload.
_GPUS = _set(
    """a100 a100-40gb a100-80gb h100 h100-80gb h200 b100 b200 gb200 gh200 v100 a10 a10g a30
    a40 l4 l40 l40s t4 p100 k80 mi250 mi250x mi300 mi300x"""
)
_NAMES = "|".join(re.escape(n) for n in sorted(_LIBRARIES, key=len, reverse=True))
# A library, then a version (`nccl-2.18`, `cuda12.4`, `python3.11`, `torch-2.3.0`) and its
# build tags (`-cu121`, `-py3`), all optional. Possessive: each character is read once.
_LIBRARY_RE = re.compile(
    rf"^(?:{_NAMES})(?:[-.]?+v?+\d++(?:\.\d++)*+)?+(?:-(?:cu|cuda|py|cp|rc|post)\d++(?:\.\d++)*+)*+$",
    re.IGNORECASE,
)


#: How every name above starts: most words are told apart by their first two letters.
_STARTS = frozenset(n[:2] for n in _LIBRARIES | _COMPONENTS | _GPUS)


def is_software(word: str) -> bool:
    """Whether `word` names a library (with or without its version), a GPU or a component."""
    folded = word.lower()
    if folded[:2] not in _STARTS:
        return False
    return folded in _COMPONENTS or folded in _GPUS or bool(_LIBRARY_RE.match(folded))
