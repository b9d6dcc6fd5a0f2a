import threading
import torch

lock = threading.Lock()

@torch.compile
def guarded(x):
    with lock:
        y = x * 2
    return y

guarded(torch.randn(4))
