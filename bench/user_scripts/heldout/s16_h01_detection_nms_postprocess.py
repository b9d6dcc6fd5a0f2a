import torch
import torch.nn as nn

torch.manual_seed(1)

NUM_CLASSES = 3
SCORE_THRESH = 0.3
IOU_THRESH = 0.5
MAX_DETS = 20


class TinyDetectorHead(nn.Module):
    def __init__(self, in_ch=8, num_anchors=4, num_classes=NUM_CLASSES):
        super().__init__()
        self.num_anchors = num_anchors
        self.num_classes = num_classes
        self.cls = nn.Conv2d(in_ch, num_anchors * num_classes, 3, padding=1)
        self.reg = nn.Conv2d(in_ch, num_anchors * 4, 3, padding=1)

    def forward(self, feat):
        n, _, h, w = feat.shape
        cls = self.cls(feat).permute(0, 2, 3, 1).reshape(n, -1, self.num_classes)
        reg = self.reg(feat).permute(0, 2, 3, 1).reshape(n, -1, 4)
        return cls.sigmoid(), reg


def make_anchors(h, w, sizes=(4.0, 8.0, 12.0, 16.0)):
    ys, xs = torch.meshgrid(torch.arange(h) + 0.5, torch.arange(w) + 0.5, indexing="ij")
    centers = torch.stack([xs, ys], dim=-1).reshape(-1, 1, 2) * 4
    anchors = []
    for s in sizes:
        wh = torch.tensor([s, s]).expand(centers.shape[0], 1, 2)
        anchors.append(torch.cat([centers - wh / 2, centers + wh / 2], dim=-1))
    return torch.cat(anchors, dim=1).reshape(-1, 4)


def decode(anchors, deltas):
    wa = anchors[:, 2] - anchors[:, 0]
    ha = anchors[:, 3] - anchors[:, 1]
    cx = anchors[:, 0] + 0.5 * wa + deltas[..., 0] * wa
    cy = anchors[:, 1] + 0.5 * ha + deltas[..., 1] * ha
    w = wa * torch.exp(deltas[..., 2].clamp(max=4.0))
    h = ha * torch.exp(deltas[..., 3].clamp(max=4.0))
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def nms(boxes, scores, iou_thresh):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= iou_thresh]
    return torch.tensor(keep, dtype=torch.long)


@torch.compile(backend="eager")
def postprocess(cls_scores, box_deltas, anchors):
    results = []
    for b in range(cls_scores.shape[0]):
        boxes = decode(anchors, box_deltas[b])
        scores, labels = cls_scores[b].max(dim=-1)
        mask = scores > SCORE_THRESH
        boxes, scores, labels = boxes[mask], scores[mask], labels[mask]
        # batched NMS trick: offset boxes per class
        offsets = labels.to(boxes.dtype)[:, None] * 1000.0
        keep = nms(boxes + offsets, scores, IOU_THRESH)[:MAX_DETS]
        results.append({"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]})
    return results


backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=4, padding=1), nn.ReLU())
head = TinyDetectorHead()
backbone.eval()
head.eval()

for step in range(3):
    images = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        feat = backbone(images)
        cls_scores, deltas = head(feat)
    anchors = make_anchors(feat.shape[2], feat.shape[3])
    dets = postprocess(cls_scores, deltas * 0.1, anchors)
    for i, d in enumerate(dets):
        counts = {c: int((d["labels"] == c).sum()) for c in range(NUM_CLASSES)}
        top = d["scores"][0].item() if len(d["scores"]) else float("nan")
        print(f"step {step} image {i}: {len(d['boxes'])} dets, per-class {counts}, top score {top:.3f}")
