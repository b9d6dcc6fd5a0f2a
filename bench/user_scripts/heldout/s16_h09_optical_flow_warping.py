import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)


def make_grid(b, h, w):
    ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
    return torch.stack([xs, ys], dim=0).unsqueeze(0).expand(b, -1, -1, -1)


def warp(img, flow):
    """Backward-warp img (B,C,H,W) with flow (B,2,H,W) in pixels."""
    b, _, h, w = img.shape
    coords = make_grid(b, h, w) + flow
    gx = 2.0 * coords[:, 0] / max(w - 1, 1) - 1.0
    gy = 2.0 * coords[:, 1] / max(h - 1, 1) - 1.0
    grid = torch.stack([gx, gy], dim=-1)
    warped = F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=True)
    valid = (gx.abs() <= 1) & (gy.abs() <= 1)
    return warped, valid.unsqueeze(1).float()


def smoothness_loss(flow, img, edge_weight=10.0):
    dx_f = flow[:, :, :, 1:] - flow[:, :, :, :-1]
    dy_f = flow[:, :, 1:, :] - flow[:, :, :-1, :]
    dx_i = (img[:, :, :, 1:] - img[:, :, :, :-1]).abs().mean(1, keepdim=True)
    dy_i = (img[:, :, 1:, :] - img[:, :, :-1, :]).abs().mean(1, keepdim=True)
    return (dx_f.abs() * torch.exp(-edge_weight * dx_i)).mean() + (dy_f.abs() * torch.exp(-edge_weight * dy_i)).mean()


def charbonnier(x, eps=1e-3, alpha=0.45):
    return ((x ** 2 + eps ** 2) ** alpha)


class FlowNetTiny(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(6, ch, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(ch, ch * 2, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(ch * 2, ch * 2, 3, padding=1), nn.LeakyReLU(0.1),
        )
        self.flow_head = nn.Conv2d(ch * 2, 2, 3, padding=1)

    def forward(self, im1, im2):
        x = self.enc(torch.cat([im1, im2], dim=1))
        coarse = self.flow_head(x)
        return F.interpolate(coarse, scale_factor=2, mode="bilinear", align_corners=False) * 2.0


def photometric_step(model, im1, im2, smooth_w=0.1):
    flow = model(im1, im2)
    warped, valid = warp(im2, flow)
    photo = (charbonnier(warped - im1) * valid).sum() / (valid.sum() * im1.size(1) + 1e-6)
    smooth = smoothness_loss(flow, im1)
    return photo + smooth_w * smooth, flow


def synthetic_pair(b=4, h=24, w=24):
    base = F.avg_pool2d(torch.rand(b, 3, h, w), 3, stride=1, padding=1)
    true_flow = torch.zeros(b, 2, h, w)
    true_flow[:, 0] = torch.randint(-2, 3, (b, 1, 1)).float()
    true_flow[:, 1] = torch.randint(-2, 3, (b, 1, 1)).float()
    # im2 such that warp(im2, flow) ~= im1
    im2 = torch.roll(base, shifts=(1, 1), dims=(2, 3))
    return base, im2, true_flow


model = FlowNetTiny()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
train_step = torch.compile(photometric_step, backend="eager")

for it in range(8):
    im1, im2, _ = synthetic_pair()
    loss, flow = train_step(model, im1, im2)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 2 == 0:
        mag = flow.norm(dim=1).mean().item()
        print(f"iter {it}: loss={loss.item():.4f} mean |flow|={mag:.3f}")

with torch.no_grad():
    im1, im2, _ = synthetic_pair(b=1)
    flow = model(im1, im2)
    warped, valid = warp(im2, flow)
    err = ((warped - im1).abs() * valid).mean().item()
print(f"eval warp L1 error {err:.4f}, valid fraction {valid.mean().item():.2f}")
