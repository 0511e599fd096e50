"""Every registered method fitted from Python gives the codes of the CLI's
fit (`hashbench encode`) with the same parameters and seed, byte for byte;
bad input raises a Python exception naming the argument, never a panic."""

import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse

import hashbench

ROOT = Path(__file__).resolve().parents[3]
CLI = Path(os.environ.get("HASHBENCH", ROOT / "target" / "debug" / "hashbench"))

GAUSSIAN = {"kind": "gaussian", "width": {"mean-distance": 100}}
# parameters a fit on 320 items needs where a default does not do (the
# kernel methods' sample sizes are the papers', for thousands of items)
PARAMS = {
    "klsh": {"kernel": GAUSSIAN, "p": 60, "t": 10},
    "okh": {"kernel": GAUSSIAN, "p": 60},
    "lamp": {"kernel": GAUSSIAN},
    "mlh": {"epochs": 2},
}


def write_fvecs(path, x):
    x = np.asarray(x, dtype=np.float32)
    with open(path, "wb") as f:
        for row in x:
            f.write(struct.pack("<i", x.shape[1]))
            f.write(row.tobytes())


def read_hbcodes(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"HBCODES1"
    n, bits, words = struct.unpack_from("<QII", data, 8)
    w = np.frombuffer(data, dtype="<u8", offset=24).reshape(n, words)
    return np.ascontiguousarray(w).view(np.uint8).reshape(n, words * 8)[:, : (bits + 7) // 8]


@pytest.fixture(scope="module")
def items():
    rng = np.random.default_rng(7)
    centres = rng.uniform(0, 4, size=(4, 16))
    labels = np.arange(320) % 4
    x = np.abs(centres[labels] + rng.normal(size=(320, 16)))
    # float32 values, as the fvecs file the CLI reads holds them
    return x.astype(np.float32).astype(np.float64), labels


def method_cases():
    return [pytest.param(m, id=m["name"]) for m in hashbench.methods()]


@pytest.mark.parametrize("entry", method_cases())
def test_python_codes_are_the_cli_codes_byte_for_byte(entry, items, tmp_path):
    x, y = items
    name = entry["name"]
    params = PARAMS.get(name, {})
    cls = getattr(hashbench, hashbench._class_name(entry["label"]))
    supervised = entry["supervision"] != "None"
    mine = cls(n_bits=12, seed=5, **params).fit(x, y if supervised else None).transform(x[:40])
    write_fvecs(tmp_path / "train.fvecs", x)
    write_fvecs(tmp_path / "items.fvecs", x[:40])
    command = [
        str(CLI), "encode", "--method", json.dumps({"method": name, **params}),
        "--bits", "12", "--seed", "5", "--train", str(tmp_path / "train.fvecs"),
        "--items", str(tmp_path / "items.fvecs"), "--out", str(tmp_path / "codes.hbcodes"),
    ]
    if supervised:
        (tmp_path / "labels.txt").write_text("\n".join(str(v) for v in y))
        command += ["--labels", str(tmp_path / "labels.txt")]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    theirs = read_hbcodes(tmp_path / "codes.hbcodes")
    assert mine.dtype == np.uint8 and mine.shape == (40, 2)
    assert mine.tobytes() == theirs.tobytes()


def test_sparse_rows_reach_the_method_which_says_what_it_reads(items):
    # no registered method fits sparse rows (a spec densifies them by a
    # transform): the method's own refusal reaches Python, naming X
    x, _ = items
    with pytest.raises(ValueError, match="X: LSH needs dense vectors; the dataset holds sparse"):
        hashbench.LSH(n_bits=8).fit(scipy.sparse.csr_matrix(np.where(x > 1.5, x, 0.0)))


def test_the_same_seed_gives_the_same_codes_and_another_seed_others(items):
    x, _ = items
    a = hashbench.LSH(n_bits=32, seed=1).fit_transform(x)
    assert np.array_equal(a, hashbench.LSH(n_bits=32, seed=1).fit_transform(x))
    assert not np.array_equal(a, hashbench.LSH(n_bits=32, seed=2).fit_transform(x))


def test_params_round_trip_and_set_params_reaches_the_next_fit(items):
    x, _ = items
    m = hashbench.ITQ(n_bits=16, seed=3)
    assert m.get_params() == {"n_bits": 16, "seed": 3}
    m.set_params(n_bits=8)
    assert m.fit(x).transform(x).shape == (320, 1)
    assert "ITQ(n_bits=8, seed=3)" == repr(m)


def test_a_target_reaches_the_method_and_the_truth_is_no_parameter(items):
    x, y = items
    fixed = {"hyperparameters": {"rho": 1, "weight_decay": 0.001}, "epochs": 2}
    same_label = {"truth": {"rule": "k-nearest-same-label", "k": 5}}
    # pairs from the same-label truth read the labels, the k nearest do not
    with pytest.raises(ValueError, match="label"):
        hashbench.MLH(n_bits=8, target=same_label, **fixed).fit(x)
    a = hashbench.MLH(n_bits=8, target=same_label, **fixed).fit(x, y).transform(x)
    b = hashbench.MLH(n_bits=8, target={"truth": {"rule": "k-nearest", "k": 5}}, **fixed).fit(x).transform(x)
    assert not np.array_equal(a, b)
    assert hashbench.MLH(n_bits=8, target=same_label).get_params()["target"] == same_label
    # the experiment's truth is no method parameter
    for key, value in [("same_label", True), ("neighbours", 5)]:
        with pytest.raises(ValueError, match="the experiment's"):
            hashbench.MLH(n_bits=8, **{key: value}, **fixed).fit(x)
    with pytest.raises(ValueError, match="^target"):
        hashbench.MLH(n_bits=8, target={"truth": {"rule": "k-nearest"}}, **fixed).fit(x)


@pytest.mark.parametrize(
    "make, argument",
    [
        (lambda x: hashbench.ITQ(n_bits=8).fit(x.astype(np.complex128)), "X"),
        (lambda x: hashbench.ITQ(n_bits=8).fit(x[0]), "X"),
        (lambda x: hashbench.ITQ(n_bits=8).fit(np.where(np.arange(16) == 3, np.nan, x)), "X"),
        (lambda x: hashbench.PCAH(n_bits=64).fit(x), "n_bits"),
        (lambda x: hashbench.LSH(n_bits=0).fit(x), "n_bits"),
        (lambda x: hashbench.LSH(n_bits=8, seed=-1).fit(x), "seed"),
        (lambda x: hashbench.RBMs(n_bits=8, no_such_parameter=1).fit(x), "no_such_parameter"),
        (lambda x: hashbench.BSSC(n_bits=8).fit(x, np.arange(5)), "y"),
        (lambda x: hashbench.LSH(n_bits=8).fit(x).transform(x[:, :5]), "X"),
    ],
)
def test_bad_input_raises_a_python_error_naming_the_argument(items, make, argument):
    x, _ = items
    with pytest.raises((ValueError, TypeError)) as raised:
        make(x)
    assert argument in str(raised.value)


def test_transform_before_fit_is_refused():
    with pytest.raises(RuntimeError, match="fit before transform"):
        hashbench.LSH().transform(np.zeros((2, 2)))


def test_methods_lists_every_registered_method_as_a_class():
    names = [m["name"] for m in hashbench.methods()]
    assert len(names) == 18 and len(set(names)) == 18
    for m in hashbench.methods():
        cls = getattr(hashbench, hashbench._class_name(m["label"]))
        assert issubclass(cls, hashbench.HashingMethod) and cls.method == m["name"]
        # a citation: authors, a quoted title, a year
        assert '"' in m["paper"] and any(str(y) in m["paper"] for y in range(1990, 2030)), m["paper"]


@pytest.mark.parametrize("make", [hashbench.KLSH, hashbench.OKH])
def test_a_precomputed_kernel_gives_the_codes_of_the_kernel_on_vectors(items, make):
    # the linear kernel as a matrix over every item, against the same kernel
    # evaluated by the method on the vectors: the kernel values differ at
    # most by rounding, so the codes agree but for bits at a sign's edge
    x, y = items
    train, encode = np.arange(0, 320, 2), np.arange(1, 320, 2)
    K = x @ x.T
    params = dict(PARAMS[make.method], kernel={"kind": "linear"})
    on_vectors = make(n_bits=16, seed=3, **params).fit(x[train], y[train]).transform(x[encode])
    params["kernel"] = {"kind": "precomputed"}
    model = make(n_bits=16, seed=3, **params).fit(hashbench.Gram(K, train), y[train])
    gram = model.transform(hashbench.Gram(K.copy(), encode))
    agree = (hashbench.unpack(gram, 16) == hashbench.unpack(on_vectors, 16)).mean()
    assert gram.shape == on_vectors.shape and agree > 0.99, agree


@pytest.mark.parametrize(
    "K, rows, message",
    [
        (np.ones((4, 5)), [0, 1], "square"),
        (np.eye(4), [0, 9], "row 9 of a 4 x 4"),
        (np.where(np.eye(4) > 0, np.nan, 0.0), [0, 1], r"kernel entry \(0, 0\) is NaN"),
        (np.diag([1.0, -2.0, 1.0, 1.0]), [0, 1], r"entry \(1, 1\) is -2, a negative k\(x, x\)"),
        (np.eye(4) + np.triu(np.ones((4, 4)), 1), [0, 1], r"entry \(0, 1\) is 1 but \(1, 0\) is 0"),
    ],
)
def test_a_bad_kernel_matrix_is_refused_naming_x(K, rows, message):
    with pytest.raises(ValueError, match=message):
        hashbench.KLSH(n_bits=4, kernel={"kind": "precomputed"}, p=2, t=1).fit(hashbench.Gram(K, rows))
