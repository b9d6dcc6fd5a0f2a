import torch


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b - inter)


@torch.compile
def match(anchors, gt_boxes, thresh=0.5):
    iou = box_iou(anchors, gt_boxes)
    best_iou, best_gt = iou.max(dim=1)
    pos = best_iou > thresh
    num_pos = int(pos.sum())
    targets = gt_boxes[best_gt[pos]]
    return targets, num_pos


anchors = torch.rand(50, 4).sort(dim=1).values
gt = torch.rand(3, 4).sort(dim=1).values
match(anchors, gt)
