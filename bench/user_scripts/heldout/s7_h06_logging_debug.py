import logging

import torch

logger = logging.getLogger("train")


def attention(q, k):
    scores = q @ k.transpose(-1, -2)
    logger.debug("scores: %s", scores.shape)
    return scores.softmax(-1)


@torch.compile
def block(q, k):
    return attention(q, k) * 2


block(torch.randn(2, 4, 8), torch.randn(2, 4, 8))
