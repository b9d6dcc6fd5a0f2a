import copy
import torch


class State:
    def __init__(self, h):
        self.h = h


@torch.compile
def roll(state, x):
    new = copy.copy(state)
    new.h = state.h * 0.9 + x
    return new


roll(State(torch.zeros(3)), torch.ones(3))
