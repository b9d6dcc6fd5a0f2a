import torch


def xywh_to_xyxy(boxes):
    x, y, w, h = boxes.unbind(-1)
    return torch.stack([x, y, x + w, y + h], dim=-1)


def filter_small(boxes, scores, min_size=2.0):
    wh = boxes[:, 2:] - boxes[:, :2]
    keep = (wh >= min_size).all(dim=1)
    return boxes[keep], scores[keep]


@torch.compile
def postprocess(raw, scores, score_thresh=0.3):
    boxes = xywh_to_xyxy(raw)
    mask = scores > score_thresh
    boxes, scores = boxes[mask], scores[mask]
    boxes, scores = filter_small(boxes, scores)
    order = scores.argsort(descending=True)
    return boxes[order][:10], scores[order][:10]


raw = torch.rand(50, 4) * 20
postprocess(raw, torch.rand(50))
