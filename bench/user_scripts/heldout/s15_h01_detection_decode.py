import torch
import torch.nn as nn
import numpy as np


NUM_CLASSES = 4
GRID = 8
ANCHORS = [(1.0, 1.5), (2.0, 2.0)]


class TinyDetector(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES, num_anchors=len(ANCHORS)):
        super().__init__()
        self.na = num_anchors
        self.nc = num_classes
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.pred = nn.Conv2d(32, self.na * (5 + self.nc), 1)

    def forward(self, x):
        feat = self.backbone(x)
        out = self.pred(feat)
        b, _, h, w = out.shape
        out = out.view(b, self.na, 5 + self.nc, h, w).permute(0, 1, 3, 4, 2)
        return out


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


def nms(boxes, scores, thresh=0.5):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]])[0]
        order = order[1:][ious <= thresh]
    return torch.tensor(keep, dtype=torch.long)


@torch.compile(backend="eager")
def decode(raw, conf_thresh=0.3):
    b, na, h, w, _ = raw.shape
    gy, gx = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    anchors = torch.tensor(ANCHORS)
    results = []
    for i in range(b):
        p = raw[i]
        cx = (p[..., 0].sigmoid() + gx) / w
        cy = (p[..., 1].sigmoid() + gy) / h
        bw = p[..., 2].exp() * anchors[:, 0].view(na, 1, 1) / w
        bh = p[..., 3].exp() * anchors[:, 1].view(na, 1, 1) / h
        obj = p[..., 4].sigmoid()
        cls_prob, cls_id = p[..., 5:].softmax(-1).max(-1)
        score = obj * cls_prob
        mask = score > conf_thresh
        boxes = torch.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], -1)[mask]
        results.append((boxes, score[mask], cls_id[mask]))
    return results


def postprocess(decoded):
    final = []
    for boxes, scores, cls in decoded:
        if boxes.shape[0] == 0:
            final.append(np.zeros((0, 6), dtype=np.float32))
            continue
        dets = []
        for c in cls.unique():
            m = cls == c
            keep = nms(boxes[m], scores[m])
            kept = torch.cat([boxes[m][keep], scores[m][keep, None], c.float().expand(len(keep), 1)], 1)
            dets.append(kept)
        final.append(torch.cat(dets).numpy())
    return final


def main():
    torch.manual_seed(1)
    model = TinyDetector().eval()
    imgs = torch.rand(4, 3, GRID * 4, GRID * 4)
    with torch.no_grad():
        raw = model(imgs)
        decoded = decode(raw, conf_thresh=0.1)
    dets = postprocess(decoded)
    for i, d in enumerate(dets):
        print(f"image {i}: {d.shape[0]} detections")
        if d.shape[0]:
            print("  top score", float(d[:, 4].max()))


if __name__ == "__main__":
    main()
