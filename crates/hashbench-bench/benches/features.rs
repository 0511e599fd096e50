//! `just bench-features` (part of `just bench`): each extractor of
//! `hashbench-features` on one image of its collection's shape, on one
//! thread. A converter runs them in parallel over the items, so a
//! collection's conversion takes about items x time / cores: Photo Tourism
//! 100,000 patches x (SIFT + GIST at 64 x 64), CIFAR-10 60,000 tiny GISTs,
//! Caltech-101 9,144 images x dense SIFT twice (vocabulary sample, then
//! words) plus the k-means.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hashbench_features::gist::{Gist, GistParams};
use hashbench_features::image::Gray;
use hashbench_features::pyramid::{self, DenseSift, Vocabulary};
use hashbench_features::sift::PatchSift;

/// A smooth deterministic texture of grey levels 0-255.
fn texture(w: usize, h: usize) -> Gray {
    Gray::from_fn(w, h, |x, y| {
        let (x, y) = (x as f32, y as f32);
        128.0 + 60.0 * (0.31 * x + 0.17 * y).sin() + 50.0 * (0.07 * x - 0.23 * y).cos()
    })
}

fn extractors(c: &mut Criterion) {
    let mut group = c.benchmark_group("features");
    let patch = texture(64, 64);
    group.bench_function("patch SIFT 64x64", |b| {
        b.iter(|| black_box(PatchSift::default().describe(black_box(&patch))));
    });
    let gist = Gist::new(GistParams::lmgist(64));
    group.bench_function("GIST 64x64 (512)", |b| {
        b.iter(|| black_box(gist.describe(black_box(&patch))));
    });
    let tiny = Gist::new(GistParams::tiny());
    let small = texture(32, 32);
    group.bench_function("tiny GIST 32x32 (384)", |b| {
        b.iter(|| black_box(tiny.describe(black_box(&small))));
    });
    // a Caltech-101 image is about 300 x 200 once scaled
    let image = texture(300, 200);
    let dense = DenseSift::default();
    group.bench_function("dense SIFT 300x200", |b| {
        b.iter(|| black_box(dense.describe(black_box(&image))));
    });
    let located = dense.describe(&image);
    let samples = pyramid::sample(&located, 30, 1, 0);
    let centres = (0..200).map(|k| samples[k % samples.len()]).collect();
    let vocabulary = Vocabulary::from_centres(centres);
    group.bench_function("pyramid of one image, 200 words", |b| {
        b.iter(|| {
            black_box(pyramid::spatial_pyramid(
                black_box(&located),
                &vocabulary,
                2,
            ))
        });
    });
    group.finish();
}

criterion_group!(benches, extractors);
criterion_main!(benches);
