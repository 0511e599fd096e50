"""The public peers of hashbench's inner solvers, timed on the problems the
`peers` bench wrote (see crates/hashbench-bench/benches/peers/main.rs).

usage: peers-bench.py DIR RUNS KEYS

DIR holds manifest.json (each problem's arrays, row-major little-endian f64
files, and its scalars). Every peer runs on one thread at a ladder of its
stopping settings, its defaults among them; each rung is timed (the median of
RUNS runs after a warm-up, one run when a run takes over ten seconds) and its
solution written to DIR/out-*.f64, so that the bench judges every solution by
the same optimality measure. Prints JSON: the peers' versions and, per
problem, one entry per peer and rung.
"""

import json
import os
from importlib.metadata import version
import statistics
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.sparse  # noqa: E402
import scipy.sparse.linalg  # noqa: E402
import spams  # noqa: E402
from liblinear import liblinearutil  # noqa: E402
from sklearn.cross_decomposition import CCA  # noqa: E402
from sklearn.decomposition._dict_learning import _update_dict  # noqa: E402
from sklearn.linear_model import ElasticNet, Lasso, lars_path_gram  # noqa: E402
from sklearn.neural_network import BernoulliRBM  # noqa: E402

SLOW = 10.0


class Problems:
    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.written = 0

    def array(self, problem, name):
        shape = self.manifest[problem]["arrays"][name]
        path = os.path.join(self.folder, f"{problem}-{name}.f64")
        return np.fromfile(path, dtype="<f8").reshape(shape)

    def scalar(self, problem, name):
        return self.manifest[problem]["scalars"][name]

    def write(self, value):
        value = np.ascontiguousarray(value, dtype="<f8")
        name = f"out-{self.written}.f64"
        self.written += 1
        value.tofile(os.path.join(self.folder, name))
        return {"file": name, "shape": list(value.shape)}


def timed(f, runs):
    """(median seconds, last result) after a warm-up run."""
    start = time.perf_counter()
    result = f()
    first = time.perf_counter() - start
    if first > SLOW:
        return first, result
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def rung(problems, peer, setting, seconds, solution, default=False):
    return {
        "peer": peer,
        "setting": setting,
        "default": default,
        "seconds": seconds,
        "solution": problems.write(solution),
    }


def s_step(p, runs):
    """min over s >= 0 of sᵀGs − 2cᵀs + λΣs per item (G = BᵀB + shift·I)."""
    g, c, b, x = (p.array("s-step", n) for n in ("G", "C", "B", "X"))
    lam, shift = p.scalar("s-step", "lambda"), p.scalar("s-step", "shift")
    m, items = c.shape
    out = []
    # SPAMS's LARS in Gram form: ½αᵀQα − qᵀα + λ₁Σα, all items in one call
    q_f, c_f, x_f = (np.asfortranarray(a) for a in (g, c, x))
    seconds, a = timed(
        lambda: spams.lasso(x_f, Q=q_f, q=c_f, lambda1=lam / 2, mode=2, pos=True, numThreads=1),
        runs,
    )
    out.append(rung(p, "SPAMS lasso (LARS, pos)", "exact path", seconds, a.toarray().T, True))
    # scikit-learn's LARS in Gram form, one item per call (n_samples = 1:
    # ½wᵀGw − cᵀw + α‖w‖₁)
    def sklearn_lars():
        return np.stack(
            [
                lars_path_gram(
                    c[:, i], g, n_samples=1, alpha_min=lam / 2, method="lasso",
                    positive=True, return_path=False,
                )[2]
                for i in range(items)
            ]
        )

    seconds, s = timed(sklearn_lars, runs)
    out.append(rung(p, "scikit-learn lars_path_gram (pos)", "exact path", seconds, s, True))
    # scikit-learn's coordinate descent on the stacked design [B; √shift I]
    # (Gram BᵀB + shift·I), targets [x; 0]: 1/(2n)‖y − Aw‖² + α‖w‖₁
    design = np.vstack([b, np.sqrt(shift) * np.eye(m)])
    targets = np.vstack([x, np.zeros((m, items))])
    n = design.shape[0]
    for tol in (1e-4, 1e-6, 1e-8, 1e-10):
        model = Lasso(alpha=lam / (2 * n), fit_intercept=False, positive=True,
                      precompute=g, tol=tol, max_iter=100_000)
        seconds, fitted = timed(lambda: model.fit(design, targets).coef_.copy(), runs)
        out.append(rung(p, "scikit-learn Lasso (CD, pos)", f"tol={tol:g}", seconds, fitted,
                        tol == 1e-4))
    return out


def dictionary(p, runs):
    """min over B of ‖X − BS‖² subject to ‖bⱼ‖ <= 1, from B0."""
    x, s, b0 = (p.array("dictionary", n) for n in ("X", "S", "B0"))
    # scikit-learn's layout: Y (items × d), code (items × m), dictionary (m × d);
    # A = SSᵀ and B = XSᵀ given, as its online learner passes them
    y, code = x.T.copy(), s.T.copy()
    a, bb = s @ s.T, x @ s.T
    out = []
    for passes in (1, 4, 16, 64, 256):
        def run():
            d = b0.T.copy()
            for _ in range(passes):
                _update_dict(d, y, code, A=a, B=bb, random_state=0)
            return d.T.copy()

        seconds, d = timed(run, runs)
        out.append(rung(p, "scikit-learn _update_dict (BCD)", f"{passes} pass" + ("es" if passes > 1 else ""), seconds, d,
                        passes == 1))
    return out


def svm(p, problem, runs):
    """LIBLINEAR -s 2 (the primal Newton solver), no bias, C = 1."""
    x, y = p.array(problem, "X"), p.array(problem, "y")
    prob = liblinearutil.problem(y, scipy.sparse.csr_matrix(x))
    out = []
    for eps in (0.01, 1e-3, 1e-4, 1e-6, 1e-8, 1e-10):
        options = f"-s 2 -c 1 -B -1 -e {eps:g} -q"

        def run():
            model = liblinearutil.train(prob, liblinearutil.parameter(options))
            w, _ = model.get_decfun()
            # w is for the first label LIBLINEAR met
            return np.array(w) * (1.0 if model.get_labels()[0] == 1 else -1.0)

        seconds, w = timed(run, runs)
        out.append(rung(p, "LIBLINEAR -s 2 (primal Newton)", f"-e {eps:g}", seconds, w,
                        eps == 0.01))
    return out


def rbm(p, runs):
    """One epoch of mini-batches of 100: the fixed work the epoch times."""
    x = p.array("rbm", "X")
    units, batch, rate = (int(p.scalar("rbm", "units")), int(p.scalar("rbm", "batch")),
                          p.scalar("rbm", "rate"))

    def run():
        model = BernoulliRBM(n_components=units, learning_rate=rate, batch_size=batch,
                             n_iter=1, random_state=0)
        return model.fit(x).components_.copy()

    seconds, w = timed(run, runs)
    return [rung(p, "scikit-learn BernoulliRBM (PCD-1)", "1 epoch", seconds, w, True)]


def eigenmap(p, runs):
    """The largest eigenpairs of the sparse operator N + I (as CSR)."""
    indptr, indices, values = (p.array("eigenmap", n) for n in ("indptr", "indices", "values"))
    n, count = int(p.scalar("eigenmap", "n")), int(p.scalar("eigenmap", "count"))
    op = scipy.sparse.csr_matrix((values, indices.astype(np.int64), indptr.astype(np.int64)),
                                 shape=(n, n))
    v0 = np.ones(n) / np.sqrt(n)
    out = []
    for tol in (0.0, 1e-6, 1e-10):
        def run():
            mu, u = scipy.sparse.linalg.eigsh(op, k=count, which="LA", tol=tol, v0=v0)
            return np.vstack([mu[None, :], u])

        seconds, pairs = timed(run, runs)
        out.append(rung(p, "SciPy eigsh (ARPACK)", f"tol={tol:g}", seconds, pairs, tol == 0.0))
    return out


def elastic_net(p, runs):
    """Per bit: ‖y − Zβ‖² + λ₁‖β‖₁ + λ₂‖β‖² (scikit-learn's objective × 2n)."""
    z, y, h = (p.array("encw", n) for n in ("Z", "Y", "H"))
    l1, l2 = p.scalar("encw", "lambda1"), p.scalar("encw", "lambda2")
    n = z.shape[0]
    alpha = l1 / (2 * n) + l2 / n
    ratio = (l1 / (2 * n)) / alpha
    out = []
    for tol in (1e-4, 1e-6, 1e-8, 1e-10):
        model = ElasticNet(alpha=alpha, l1_ratio=ratio, fit_intercept=False, precompute=h,
                           tol=tol, max_iter=100_000)
        seconds, beta = timed(lambda: model.fit(z, y).coef_.copy(), runs)
        out.append(rung(p, "scikit-learn ElasticNet (CD)", f"tol={tol:g}", seconds, beta,
                        tol == 1e-4))
    return out


def cca(p, runs):
    """Every canonical correlation of Z and Y (both centred)."""
    z, y = p.array("encw", "Z"), p.array("encw", "Y")
    m = y.shape[1]
    out = []

    def direct():
        qz, _ = np.linalg.qr(z - z.mean(0))
        qy, _ = np.linalg.qr(y - y.mean(0))
        return np.linalg.svd(qz.T @ qy, compute_uv=False)

    seconds, rho = timed(direct, runs)
    out.append(rung(p, "NumPy QR + SVD", "direct", seconds, rho, True))
    for tol in (1e-6, 1e-10):
        def nipals():
            model = CCA(n_components=m, scale=False, tol=tol, max_iter=10_000)
            xs, ys = model.fit_transform(z, y)
            return np.array([np.corrcoef(xs[:, k], ys[:, k])[0, 1] for k in range(m)])

        seconds, rho = timed(nipals, runs)
        out.append(rung(p, "scikit-learn CCA (NIPALS)", f"tol={tol:g}", seconds, rho,
                        tol == 1e-6))
    return out


def main():
    folder, runs, keys = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
    p = Problems(folder)
    peers = {
        "s-step": s_step,
        "dictionary": dictionary,
        "rbm": rbm,
        "eigenmap": eigenmap,
        "elastic-net": elastic_net,
        "cca": cca,
        "svm-bit0": lambda p, runs: svm(p, "svm-bit0", runs),
        "svm-bit3": lambda p, runs: svm(p, "svm-bit3", runs),
    }
    # the problems solved in the bench's own process have no peer here
    results = {key: peers[key](p, runs) for key in keys if key in peers}
    versions = {
        name: version(name)
        for name in ("numpy", "scipy", "scikit-learn", "spams-bin", "liblinear-official")
    }
    json.dump({"versions": versions, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
