import random
import torch


@torch.compile
def random_crop(img, size):
    h, w = img.shape[-2:]
    top = random.randint(0, h - size)
    left = random.randint(0, w - size)
    crop = img[..., top : top + size, left : left + size]
    if random.random() < 0.5:
        crop = crop.flip(-1)
    return crop


random_crop(torch.randn(3, 32, 32), 24)
