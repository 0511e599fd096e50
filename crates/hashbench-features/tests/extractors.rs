//! The extractors on images built here: hand-computed cases, invariances,
//! and the block and element layouts.

use hashbench_features::gist::{Gist, GistParams};
use hashbench_features::image::Gray;
use hashbench_features::pyramid::{self, DenseSift, Located, Vocabulary};
use hashbench_features::sift::{self, LEN, ORIENTATIONS, PatchSift};

/// A smooth deterministic texture (sums of a few sinusoids).
fn texture(w: usize, h: usize, phase: f32) -> Gray {
    Gray::from_fn(w, h, |x, y| {
        let (x, y) = (x as f32, y as f32);
        100.0
            + 40.0 * (0.31 * x + 0.17 * y + phase).sin()
            + 30.0 * (0.07 * x - 0.23 * y).cos()
            + 20.0 * (0.5 * x * 0.3 + 0.11 * y * y / 40.0).sin()
    })
}

fn nonzero_bins(d: &[f32; LEN]) -> Vec<usize> {
    let mut bins: Vec<usize> = (0..LEN)
        .filter(|&i| d[i] > 0.0)
        .map(|i| i % ORIENTATIONS)
        .collect();
    bins.sort_unstable();
    bins.dedup();
    bins
}

#[test]
fn sift_of_a_constant_patch_is_zero() {
    let d = PatchSift::default().describe(&Gray::from_fn(64, 64, |_, _| 77.0));
    assert!(d.iter().all(|&v| v == 0.0));
}

#[test]
fn sift_puts_a_vertical_edge_in_bin_0_and_a_horizontal_one_in_bin_6() {
    // dark left, bright right: the gradient points along +x, angle 0
    let vertical = Gray::from_fn(64, 64, |x, _| if x < 32 { 10.0 } else { 200.0 });
    assert_eq!(nonzero_bins(&PatchSift::default().describe(&vertical)), [0]);
    // bright below: y grows downwards, OpenCV's dy = I(y-1) - I(y+1) < 0,
    // angle 270 degrees, bin 270 / 45 = 6
    let horizontal = Gray::from_fn(64, 64, |_, y| if y < 32 { 10.0 } else { 200.0 });
    assert_eq!(
        nonzero_bins(&PatchSift::default().describe(&horizontal)),
        [6]
    );
    // the edge's energy sits in the cells its gradient crosses: columns 1-2
    let d = PatchSift::default().describe(&vertical);
    let column_mass = |c: usize| -> f32 { (0..4).map(|r| d[(r * 4 + c) * ORIENTATIONS]).sum() };
    assert!(column_mass(1) > 0.0 && column_mass(2) > 0.0);
    assert_eq!((column_mass(0), column_mass(3)), (0.0, 0.0));
}

#[test]
fn sift_ignores_brightness_and_contrast() {
    let t = texture(64, 64, 0.3);
    let base = PatchSift::default().describe(&t);
    let brighter = Gray::from_fn(64, 64, |x, y| t.at(x, y) + 35.0);
    let stronger = Gray::from_fn(64, 64, |x, y| 2.5 * t.at(x, y));
    for other in [&brighter, &stronger] {
        let d = PatchSift::default().describe(other);
        // equal up to the rounding of the stored integers
        let worst = base
            .iter()
            .zip(&d)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(worst <= 1.0, "largest change {worst}");
    }
}

#[test]
fn sift_moves_with_the_image() {
    let big = texture(120, 100, 1.0);
    let shifted = Gray::from_fn(120, 100, |x, y| {
        if x >= 7 && y >= 4 {
            big.at(x - 7, y - 4)
        } else {
            0.0
        }
    });
    let a = sift::descriptor(&big.gaussian_blur(1.0), 50.0, 45.0, 5.0, 0.0);
    let b = sift::descriptor(&shifted.gaussian_blur(1.0), 57.0, 49.0, 5.0, 0.0);
    assert_eq!(a, b);
}

#[test]
fn sift_is_unit_length_times_512_with_elements_clipped() {
    let d = PatchSift::default().describe(&texture(64, 64, 2.0));
    let norm = d.iter().map(|v| v * v).sum::<f32>().sqrt();
    // rounding each of 128 values moves the norm by at most about √128 / 2
    assert!((norm - 512.0).abs() < 6.0, "norm {norm}");
    // clipped at 0.2 before the second normalisation, which can only raise
    // an element by the ratio of the norms
    assert!(d.iter().all(|&v| v <= 255.0));
}

#[test]
fn sift_rotated_keypoint_follows_a_rotated_edge() {
    // an edge whose gradient points along +y (bright below) described by a
    // keypoint of angle 270 (OpenCV's convention: the descriptor turns by
    // 360 - angle = 90 degrees) lands in bin (270 - 90) / 45 = 4... unless
    // the rotation sense is wrong, which would give bin 0
    let horizontal = Gray::from_fn(64, 64, |_, y| if y < 32 { 10.0 } else { 200.0 });
    let d = sift::descriptor(&horizontal.gaussian_blur(1.5), 32.0, 32.0, 16.0, 270.0);
    assert_eq!(nonzero_bins(&d), [4]);
}

#[test]
fn gist_lengths_are_lmgists() {
    assert_eq!(GistParams::lmgist(64).len(), 512);
    assert_eq!(GistParams::tiny().len(), 384);
    let g = Gist::new(GistParams::lmgist(64));
    assert_eq!(g.describe(&texture(64, 64, 0.0)).len(), 512);
}

#[test]
fn gist_of_a_constant_image_is_zero() {
    let g = Gist::new(GistParams::tiny());
    assert!(
        g.describe(&Gray::from_fn(32, 32, |_, _| 9.0))
            .iter()
            .all(|&v| v == 0.0)
    );
}

#[test]
fn gist_ignores_brightness_and_contrast() {
    let g = Gist::new(GistParams::lmgist(64));
    let t = texture(64, 64, 0.7);
    let a = g.describe(&t);
    let b = g.describe(&Gray::from_fn(64, 64, |x, y| 0.5 * t.at(x, y) + 60.0));
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-4, "largest change {worst}");
}

#[test]
fn gist_blocks_run_down_each_column_first() {
    // texture only in the block of row 0, column 3 (top right); the rest flat
    let g = Gist::new(GistParams::lmgist(64));
    let t = texture(64, 64, 0.1);
    let img = Gray::from_fn(
        64,
        64,
        |x, y| if x >= 48 && y < 16 { t.at(x, y) } else { 100.0 },
    );
    let d = g.describe(&img);
    for filter in d.chunks(16) {
        let top = (0..16)
            .max_by(|&a, &b| filter[a].total_cmp(&filter[b]))
            .unwrap();
        // block (row 0, column 3) is element column * 4 + row = 12
        assert_eq!(top, 12, "{filter:?}");
    }
}

#[test]
fn gist_orientation_follows_the_grating() {
    // a grating varying along x has its energy on the fx axis: the first
    // orientation of a scale (angle 0), not the fifth (the fy axis)
    let g = Gist::new(GistParams::lmgist(64));
    let period = 8.0;
    let along_x = Gray::from_fn(64, 64, |x, _| {
        128.0 + 100.0 * (2.0 * std::f32::consts::PI * x as f32 / period).sin()
    });
    let d = g.describe(&along_x);
    let energy = |filter: usize| -> f32 { d[filter * 16..][..16].iter().sum() };
    // scale 1 (0.162 cycles/pixel) is nearest to 1/8
    assert!(
        energy(8) > 10.0 * energy(12),
        "{} vs {}",
        energy(8),
        energy(12)
    );
    let along_y = Gray::from_fn(64, 64, |x, y| along_x.at(y, x));
    let d = g.describe(&along_y);
    let energy = |filter: usize| -> f32 { d[filter * 16..][..16].iter().sum() };
    assert!(
        energy(12) > 10.0 * energy(8),
        "{} vs {}",
        energy(12),
        energy(8)
    );
}

fn located(word_descriptor: [f32; LEN], fx: f32, fy: f32) -> Located {
    Located {
        descriptor: word_descriptor,
        fx,
        fy,
    }
}

#[test]
fn spatial_pyramid_by_hand() {
    let (a, b) = ([0f32; LEN], [10f32; LEN]);
    let vocabulary = Vocabulary::from_centres(vec![a, b]);
    // word 0 in the top-left, word 1 in the bottom-right
    let words = [located(a, 0.1, 0.1), located(b, 0.9, 0.9)];
    let h = pyramid::spatial_pyramid(&words, &vocabulary, 2);
    assert_eq!(h.len(), 2 * (1 + 4 + 16));
    // level 0 (weight 1/4), each word 1/2 of the features
    assert_eq!(&h[..2], &[0.125, 0.125]);
    // level 1 (weight 1/4): cell 0 holds word 0, cell 3 word 1
    assert_eq!(h[2], 0.125);
    assert_eq!(h[2 + 3 * 2 + 1], 0.125);
    // level 2 (weight 1/2): cell 0 and cell 15
    assert_eq!(h[10], 0.25);
    assert_eq!(h[10 + 15 * 2 + 1], 0.25);
    // every feature's mass sums to the level weights, 1/4 + 1/4 + 1/2
    assert!((h.iter().sum::<f32>() - 1.0).abs() < 1e-6);
}

#[test]
fn spatial_pyramid_cells_run_row_by_row() {
    let a = [0f32; LEN];
    let vocabulary = Vocabulary::from_centres(vec![a]);
    // one word in the top-right corner: row 0, last column at each level
    let h = pyramid::spatial_pyramid(&[located(a, 0.9, 0.1)], &vocabulary, 2);
    // level 1: cell (row 0, column 1) = 1; level 2: cell (row 0, column 3) = 3
    assert_eq!(h[1 + 1], 0.25);
    assert_eq!(h[1 + 4 + 3], 0.5);
    // a transposed order would put them at cells 2 and 12
    assert_eq!(h[1 + 2] + h[1 + 4 + 12], 0.0);
}

#[test]
fn kmeans_finds_separated_clusters_whatever_the_threads() {
    let mut samples = Vec::new();
    for k in 0..3 {
        for i in 0..40 {
            let mut d = [0f32; LEN];
            d[k] = 100.0;
            d[3] = (i % 5) as f32;
            samples.push(d);
        }
    }
    let v = Vocabulary::kmeans(&samples, 3, 7);
    let mut firsts: Vec<usize> = (0..3).map(|k| v.word(&samples[k * 40])).collect();
    firsts.sort_unstable();
    assert_eq!(firsts, [0, 1, 2]);
    for c in v.centres() {
        assert!((c[3] - 2.0).abs() < 1e-5, "centre of 0..5 repeated is 2");
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(one.install(|| Vocabulary::kmeans(&samples, 3, 7)), v);
}

#[test]
fn dense_sift_windows_stay_inside_the_image() {
    let d = DenseSift::default();
    let img = texture(100, 60, 0.0);
    let located = d.describe(&img);
    // centres 8, 16, ..., 88 across and 8, ..., 48 down (windows of 16)
    assert_eq!(located.len(), 11 * 6);
    assert!(
        located
            .iter()
            .all(|l| l.fx > 0.0 && l.fx < 1.0 && l.fy > 0.0 && l.fy < 1.0)
    );
}
