#!/usr/bin/env python3
"""Checks hashbench-features against independent implementations on images
made here (no network, no dataset):

* SIFT of a 64x64 patch against OpenCV's SIFT descriptor (PyPI
  opencv-python-headless) at the same keypoint: centre (32, 32), size 32/3
  (cells of 16 pixels), angle 0, octave 0 (no upscaling; the descriptor reads
  the image blurred to sigma 1.6 from an assumed 0.5, as ours does).
* GIST against the authors' public LMgist under GNU Octave, when LMGIST_DIR
  names a folder holding LMgist.m and createGabor.m (the LabelMe toolbox's
  gist code; hashbench ships no copy): 512-d at 64x64 and the 384-d tiny
  GIST at 32x32 (colour images, grey as the channel mean).

Prints, per extractor, the smallest per-image correlation, the smallest
per-dimension correlation over the images (dimensions that vary), and the
largest absolute difference. Exits non-zero if a correlation is below 0.99.

Usage: python3 scripts/features-crosscheck.py [HASHBENCH_BINARY]
"""
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/debug/hashbench"
RNG = np.random.default_rng(20261127)


def smooth_noise(h, w, scale):
    """Random texture: white noise blurred by a Gaussian of `scale` pixels."""
    noise = RNG.normal(size=(h, w)).astype(np.float32)
    return cv2.GaussianBlur(noise, (0, 0), scale)


def to_u8(img):
    img = img - img.min()
    return np.uint8(np.round(255 * img / max(img.max(), 1e-9)))


def patches():
    """64x64 grey patches: edges at several angles, gratings, textures, blobs."""
    yy, xx = np.mgrid[0:64, 0:64].astype(np.float32)
    out = []
    for deg in range(0, 180, 30):
        t = np.deg2rad(deg)
        out.append(to_u8(np.tanh(((xx - 32) * np.cos(t) + (yy - 32) * np.sin(t)) / 2)))
    for period, deg in [(6, 0), (9, 45), (13, 100), (21, 160)]:
        t = np.deg2rad(deg)
        out.append(to_u8(np.sin(2 * np.pi * (xx * np.cos(t) + yy * np.sin(t)) / period)))
    for scale in [1, 2, 3, 5, 8, 1.5, 2.5, 4]:
        out.append(to_u8(smooth_noise(64, 64, scale)))
    for k in range(6):
        cx, cy, r = RNG.uniform(12, 52), RNG.uniform(12, 52), RNG.uniform(4, 14)
        out.append(to_u8(np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) + 0.05 * smooth_noise(64, 64, 1)))
    return out


def tiny_colour():
    """32x32 colour images (three independently textured channels)."""
    return [np.dstack([to_u8(smooth_noise(32, 32, s)) for s in (1, 2, 3)]) for _ in range(12)]


def write(folder, images):
    os.makedirs(folder, exist_ok=True)
    for i, img in enumerate(images):
        # OpenCV writes BGR; hand it RGB reversed so the file holds RGB as made
        cv2.imwrite(os.path.join(folder, f"{i:03d}.png"), img[:, :, ::-1] if img.ndim == 3 else img)


def ours(extractor, folder, out, *extra):
    subprocess.run([BINARY, "describe", extractor, folder, out, *extra], check=True, stdout=subprocess.DEVNULL)
    return np.loadtxt(out, delimiter=",", ndmin=2)


def opencv_sift(folder):
    sift = cv2.SIFT_create(0, 3, 0.04, 10, 1.6)
    rows = []
    for name in sorted(os.listdir(folder)):
        img = cv2.imread(os.path.join(folder, name), cv2.IMREAD_GRAYSCALE)
        kp = [cv2.KeyPoint(32.0, 32.0, 32.0 / 3.0, 0.0, 0, 0)]
        _, d = sift.compute(img, kp)
        rows.append(d[0])
    return np.array(rows, dtype=np.float64)


OCTAVE_DRIVER = r"""
pkg load image;
addpath('{lmgist}');
files = dir(fullfile('{folder}', '*.png'));
names = sort({{files.name}});
param.imageSize = {size}; param.orientationsPerScale = {orientations};
param.numberBlocks = 4; param.fc_prefilt = 4; param.boundaryExtension = 32;
param.G = createGabor(param.orientationsPerScale, param.imageSize + 2*param.boundaryExtension);
fid = fopen('{out}', 'w');
for i = 1:numel(names)
  g = LMgist(imread(fullfile('{folder}', names{{i}})), [], param);
  fprintf(fid, [repmat('%.9g,', 1, numel(g)-1) '%.9g\n'], double(g));
end
fclose(fid);
"""


def lmgist(folder, out, size, orientations):
    script = OCTAVE_DRIVER.format(lmgist=os.environ["LMGIST_DIR"], folder=folder, out=out, size=size, orientations=orientations)
    subprocess.run(["octave", "--no-gui", "--quiet", "--eval", script], check=True)
    return np.loadtxt(out, delimiter=",", ndmin=2)


def compare(name, a, b):
    assert a.shape == b.shape, (name, a.shape, b.shape)
    per_image = [np.corrcoef(x, y)[0, 1] for x, y in zip(a, b)]
    varying = [j for j in range(a.shape[1]) if b[:, j].std() > 0 and a[:, j].std() > 0]
    per_dim = [np.corrcoef(a[:, j], b[:, j])[0, 1] for j in varying]
    worst = min(min(per_image), min(per_dim) if per_dim else 1.0)
    print(
        f"{name}: {a.shape[0]} images x {a.shape[1]} values; correlation per image >= {min(per_image):.6f}, "
        f"per dimension >= {min(per_dim):.6f} ({len(varying)} varying); max |difference| {np.abs(a - b).max():.3g} "
        f"(largest value {np.abs(b).max():.3g})"
    )
    return worst >= 0.99


def main():
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        grey = os.path.join(tmp, "patches")
        write(grey, patches())
        ok &= compare("patch SIFT vs OpenCV " + cv2.__version__, ours("patch-sift", grey, os.path.join(tmp, "s.csv")), opencv_sift(grey))
        if os.environ.get("LMGIST_DIR"):
            colour = os.path.join(tmp, "tiny")
            write(colour, tiny_colour())
            ok &= compare(
                "GIST 64x64 vs LMgist",
                ours("gist", grey, os.path.join(tmp, "g.csv"), "--image-size", "64"),
                lmgist(grey, os.path.join(tmp, "lg.csv"), 64, "[8 8 8 8]"),
            )
            ok &= compare(
                "tiny GIST 32x32 colour vs LMgist",
                ours("tiny-gist", colour, os.path.join(tmp, "t.csv")),
                lmgist(colour, os.path.join(tmp, "lt.csv"), 32, "[8 8 8]"),
            )
        else:
            print("GIST: skipped (set LMGIST_DIR to a folder holding LMgist.m and createGabor.m)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
