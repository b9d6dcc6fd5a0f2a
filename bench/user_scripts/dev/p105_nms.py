import torch

def nms(boxes, scores, thr=0.5):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        ious = (boxes[order[1:]] - boxes[i]).abs().sum(-1)
        order = order[1:][ious > thr]
    return torch.stack(keep)

@torch.compile
def postprocess(boxes, scores):
    return nms(boxes, scores)

postprocess(torch.rand(6, 4), torch.rand(6))
