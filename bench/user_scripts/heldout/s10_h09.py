"""Mini-batch k-means clustering of synthetic 2-D blobs with k-means++ init."""
import torch

torch.manual_seed(9)

SETTINGS = dict(k=4, iters=10, tol=1e-4, batch=64, reassign_empty=True)


def make_blobs(n_per, centers, spread=0.3):
    pts = [c + spread * torch.randn(n_per, c.shape[0]) for c in centers]
    return torch.cat(pts, dim=0)


def kmeans_pp_init(x, k, gen):
    n = x.shape[0]
    first = torch.randint(0, n, (1,), generator=gen)
    centroids = [x[first].squeeze(0)]
    for _ in range(1, k):
        c = torch.stack(centroids)
        d2 = torch.cdist(x, c).min(dim=1).values ** 2
        probs = d2 / d2.sum()
        idx = torch.multinomial(probs, 1, generator=gen)
        centroids.append(x[idx].squeeze(0))
    return torch.stack(centroids)


class KMeansState:
    def __init__(self, centroids):
        self.centroids = centroids.clone()
        self.counts = torch.zeros(centroids.shape[0])
        self.n_updates = 0

    def inertia(self, x):
        d = torch.cdist(x, self.centroids)
        return d.min(dim=1).values.pow(2).sum()


def assign(x, centroids):
    d = torch.cdist(x, centroids)
    return d.argmin(dim=1)


@torch.compile(backend="eager")
def minibatch_update(state, xb, reassign_empty):
    labels = assign(xb, state.centroids)
    k = state.centroids.shape[0]
    onehot = torch.nn.functional.one_hot(labels, k).float()
    batch_counts = onehot.sum(dim=0)
    sums = onehot.t() @ xb
    state.counts = state.counts + batch_counts
    lr = (batch_counts / state.counts.clamp(min=1)).unsqueeze(1)
    batch_means = sums / batch_counts.clamp(min=1).unsqueeze(1)
    new_c = torch.where(batch_counts.unsqueeze(1) > 0, (1 - lr) * state.centroids + lr * batch_means, state.centroids)
    if reassign_empty:
        empty = torch.nonzero(state.counts == 0).flatten()
        for j in empty.tolist():
            far = torch.cdist(xb, new_c).min(dim=1).values.argmax()
            new_c[j] = xb[far]
    shift = (new_c - state.centroids).norm(dim=1).max()
    state.centroids = new_c
    state.n_updates += 1
    return shift


def fit(x, cfg):
    gen = torch.Generator().manual_seed(0)
    state = KMeansState(kmeans_pp_init(x, cfg["k"], gen))
    for it in range(cfg["iters"]):
        perm = torch.randperm(x.shape[0], generator=gen)
        xb = x[perm[: cfg["batch"]]]
        shift = minibatch_update(state, xb, cfg["reassign_empty"])
        if shift < cfg["tol"]:
            print(f"converged after {it + 1} iterations")
            break
    return state


if __name__ == "__main__":
    true_centers = torch.tensor([[0.0, 0.0], [3.0, 3.0], [-3.0, 2.0], [2.0, -3.0]])
    data = make_blobs(50, true_centers)
    for trial in range(2):
        st = fit(data, SETTINGS)
        print(f"trial {trial}: updates={st.n_updates} inertia={st.inertia(data).item():.2f}")
        print("centroids:", [[round(v, 2) for v in row] for row in st.centroids.tolist()])
