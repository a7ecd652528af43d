"""What every GPU example checks first: PyTorch with a CUDA device, or a SKIP line and exit 0
(CI has no GPU; tests/python/test_cute_gpu.py reads the line)."""

SKIP = "SKIP: needs PyTorch and a CUDA GPU"


def cuda_torch():
    """The torch module when it is installed and sees a CUDA GPU, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None
