import math

import torch
import torch.nn as nn


def make_anchors(feat_h, feat_w, stride, sizes=(16, 32)):
    anchors = []
    for y in range(feat_h):
        for x in range(feat_w):
            cx = (x + 0.5) * stride
            cy = (y + 0.5) * stride
            for s in sizes:
                anchors.append([cx, cy, s, s])
    return torch.tensor(anchors, dtype=torch.float32)


def decode_boxes(deltas, anchors, scale_clamp=math.log(1000.0 / 16)):
    # deltas: (N, 4) as (dx, dy, dw, dh); anchors: (N, 4) as (cx, cy, w, h)
    dx, dy, dw, dh = deltas.unbind(-1)
    dw = dw.clamp(max=scale_clamp)
    dh = dh.clamp(max=scale_clamp)
    cx = anchors[:, 0] + dx * anchors[:, 2]
    cy = anchors[:, 1] + dy * anchors[:, 3]
    w = anchors[:, 2] * torch.exp(dw)
    h = anchors[:, 3] * torch.exp(dh)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]).clamp(min=0) * (a[:, 3] - a[:, 1]).clamp(min=0)
    area_b = (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-6)


def nms(boxes, scores, iou_thresh=0.5):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0].item()
        keep.append(i)
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= iou_thresh]
    return torch.tensor(keep, dtype=torch.long)


class TinyDetector(nn.Module):
    def __init__(self, num_classes=3, num_anchors=2, stride=8):
        super().__init__()
        self.stride = stride
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.cls_head = nn.Conv2d(32, num_anchors * num_classes, 1)
        self.box_head = nn.Conv2d(32, num_anchors * 4, 1)
        self._anchor_cache = {}

    def get_anchors(self, h, w):
        key = (h, w)
        if key not in self._anchor_cache:
            self._anchor_cache[key] = make_anchors(h, w, self.stride)
        return self._anchor_cache[key]

    def forward(self, images, score_thresh=0.3, iou_thresh=0.5, max_dets=20):
        feats = self.backbone(images)
        b, _, h, w = feats.shape
        cls = self.cls_head(feats).permute(0, 2, 3, 1).reshape(b, -1, self.num_classes)
        reg = self.box_head(feats).permute(0, 2, 3, 1).reshape(b, -1, 4)
        anchors = self.get_anchors(h, w)

        results = []
        for i in range(b):
            probs = cls[i].sigmoid()
            scores, labels = probs.max(dim=-1)
            keep = scores > score_thresh
            boxes = decode_boxes(reg[i][keep], anchors[keep])
            scores, labels = scores[keep], labels[keep]
            if boxes.shape[0] == 0:
                results.append({"boxes": boxes, "scores": scores, "labels": labels})
                continue
            # class-aware NMS via the offset trick
            offsets = labels.float()[:, None] * 4096.0
            kept = nms(boxes + offsets, scores, iou_thresh)[:max_dets]
            results.append({
                "boxes": boxes[kept],
                "scores": scores[kept],
                "labels": labels[kept],
            })
        return results


def main():
    torch.manual_seed(0)
    model = TinyDetector().eval()
    detector = torch.compile(model, backend="eager")
    with torch.no_grad():
        for it in range(3):
            images = torch.randn(2, 3, 64, 64)
            dets = detector(images)
            for j, d in enumerate(dets):
                n = d["boxes"].shape[0]
                top = d["scores"][0].item() if n > 0 else float("nan")
                print(f"iter {it} image {j}: {n} detections, top score {top:.3f}")


if __name__ == "__main__":
    main()
