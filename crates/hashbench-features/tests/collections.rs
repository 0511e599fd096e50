//! Each converter on a small collection written here in the collection's
//! own published layout: what it writes, in which order, and how it refuses
//! a malformed source.

use std::path::Path;

use hashbench_data::vecs::{VecsKind, read_vecs};
use hashbench_features::collections::Shape;
use hashbench_features::collections::{CIFAR_BATCHES, PATCH, PATCHES_PER_SIDE};
use hashbench_features::gist::{Gist, GistParams};
use hashbench_features::image::{Gray, GrayFrom};
use hashbench_features::sift::PatchSift;
use hashbench_features::{Collection, FeatureError};

/// The dimension and values of an `.fvecs` file, read by the data crate.
fn rows(path: &Path) -> (usize, Vec<f32>) {
    let (n, dim, values) = read_vecs(path, VecsKind::F32, None).unwrap();
    assert_eq!(values.len(), n * dim);
    (dim, values.into_iter().map(|v| v as f32).collect())
}

/// The fixtures' collections: 300 patches, 2 records a CIFAR batch, 3
/// Caltech classes, 2 Nursery rows.
const SMALL: Shape = Shape {
    photo_tourism_patches: 300,
    cifar_per_batch: 2,
    caltech_classes: 3,
    nursery_rows: 2,
};

fn patch_pixel(i: usize, x: usize, y: usize) -> u8 {
    ((x * (i + 3) + y * (2 * i + 1) + (x * y) % (i + 5)) % 251) as u8
}

#[test]
fn photo_tourism_patches_are_read_row_by_row_across_bitmaps() {
    let dir = tempfile::tempdir().unwrap();
    // a mirror's layout: the scene in a sub-folder
    let scene = dir.path().join("src/notredame");
    std::fs::create_dir_all(&scene).unwrap();
    let n = 300; // 256 in the first bitmap, 44 in the second
    let side = PATCH * PATCHES_PER_SIDE;
    for f in 0..2 {
        let sheet = image::GrayImage::from_fn(side as u32, side as u32, |x, y| {
            let (x, y) = (x as usize, y as usize);
            let i = f * 256 + (y / PATCH) * PATCHES_PER_SIDE + x / PATCH;
            image::Luma([patch_pixel(i, x % PATCH, y % PATCH)])
        });
        sheet
            .save(scene.join(format!("patches{f:04}.bmp")))
            .unwrap();
    }
    let info: String = (0..n).map(|i| format!("{} 0\n", 1000 + i / 3)).collect();
    std::fs::write(scene.join("info.txt"), info).unwrap();
    let root = dir.path().join("root");
    let written = Collection::PhotoTourism
        .convert_as(&dir.path().join("src"), &root, false, &SMALL)
        .unwrap();
    assert_eq!(written.files.len(), 3);
    let (dim, sift) = rows(&root.join("photo-tourism/notredame_sift.fvecs"));
    assert_eq!((dim, sift.len() / dim), (128, n));
    let (gdim, gist) = rows(&root.join("photo-tourism/notredame_gist.fvecs"));
    assert_eq!((gdim, gist.len() / gdim), (512, n));
    let gist_of = Gist::new(GistParams::lmgist(PATCH));
    for i in [0, 17, 255, 256, 299] {
        let patch = Gray::from_fn(PATCH, PATCH, |x, y| f32::from(patch_pixel(i, x, y)));
        assert_eq!(
            &sift[i * 128..][..128],
            &PatchSift::default().describe(&patch),
            "patch {i}"
        );
        assert_eq!(
            &gist[i * 512..][..512],
            gist_of.describe(&patch).as_slice(),
            "patch {i}"
        );
    }
    let points = std::fs::read_to_string(root.join("photo-tourism/notredame_points.txt")).unwrap();
    assert_eq!(points.lines().nth(299), Some("1099"));
    // the provenance names every output with its sha256
    let provenance = std::fs::read_to_string(&written.provenance).unwrap();
    for (path, sha) in &written.files {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            provenance.contains(&format!("sha256 {sha}  photo-tourism/{name}")),
            "{provenance}"
        );
    }
    // the chunks are gone once the outputs are in
    assert!(!root.join(".features").exists());
}

#[test]
fn photo_tourism_names_a_missing_bitmap() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("info.txt"), "5 0\n").unwrap();
    let one = Shape {
        photo_tourism_patches: 1,
        ..SMALL
    };
    let err = Collection::PhotoTourism
        .convert_as(dir.path(), &dir.path().join("root"), false, &one)
        .unwrap_err();
    assert!(
        matches!(err, FeatureError::Missing { ref path, .. } if path.ends_with("patches0000.bmp")),
        "{err}"
    );
}

fn cifar_record(label: u8, seed: usize) -> Vec<u8> {
    let mut r = vec![label];
    r.extend((0..3 * 1024).map(|k| ((k * (seed + 7) + k / 32 * seed) % 256) as u8));
    r
}

#[test]
fn cifar_batches_are_read_in_order_as_grey_channel_means() {
    let dir = tempfile::tempdir().unwrap();
    for (b, name) in CIFAR_BATCHES.iter().enumerate() {
        let bytes: Vec<u8> = (0..2)
            .flat_map(|k| cifar_record((b * 2 + k) as u8 % 10, b * 2 + k))
            .collect();
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let root = dir.path().join("root");
    Collection::Cifar10
        .convert_as(dir.path(), &root, false, &SMALL)
        .unwrap();
    let labels = std::fs::read_to_string(root.join("cifar10/labels.txt")).unwrap();
    assert_eq!(
        labels.lines().collect::<Vec<_>>(),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "1"]
    );
    let (dim, gist) = rows(&root.join("cifar10/gist.fvecs"));
    assert_eq!((dim, gist.len() / dim), (384, 12));
    // image 7: its planes interleaved, grey as the channel mean
    let record = cifar_record(7, 7);
    let rgb: Vec<u8> = (0..1024)
        .flat_map(|p| [record[1 + p], record[1 + 1024 + p], record[1 + 2048 + p]])
        .collect();
    let want = Gist::new(GistParams::tiny()).describe(&Gray::from_rgb8(
        32,
        32,
        &rgb,
        GrayFrom::ChannelMean,
    ));
    assert_eq!(&gist[7 * 384..][..384], want.as_slice());
}

/// Issue 57, case 2: a `.features` work folder that is a link to an outside
/// folder is refused before any chunk is written, and the outside folder's
/// files are untouched (its chunks' folder was deleted at the end).
#[test]
fn a_work_folder_planted_as_a_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let name = Collection::Cifar10.name();
    std::fs::create_dir(outside.path().join(name)).unwrap();
    std::fs::write(outside.path().join(name).join("keep"), "keep").unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join(".features")).unwrap();
    let err = Collection::Cifar10
        .convert_as(dir.path(), &root, false, &SMALL)
        .unwrap_err()
        .to_string();
    assert!(err.contains(".features is a symbolic link (to "), "{err}");
    assert_eq!(
        std::fs::read_to_string(outside.path().join(name).join("keep")).unwrap(),
        "keep"
    );
}

#[test]
fn a_truncated_cifar_batch_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data_batch_1.bin"), vec![0u8; 3074]).unwrap();
    let err = Collection::Cifar10
        .convert_as(dir.path(), &dir.path().join("root"), false, &SMALL)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("data_batch_1.bin") && err.contains("3073-byte records"),
        "{err}"
    );
}

#[test]
fn caltech_classes_are_numbered_in_name_order_with_pyramids_of_21_cells() {
    let dir = tempfile::tempdir().unwrap();
    for (c, class) in ["BACKGROUND_Google", "accordion", "zebra"]
        .iter()
        .enumerate()
    {
        let folder = dir.path().join(class);
        std::fs::create_dir_all(&folder).unwrap();
        for k in 0..2 {
            let img = image::GrayImage::from_fn(80, 64, |x, y| {
                let v = (x as usize * (c + 1) * 3 + y as usize * (k + 2) * 5) % 256;
                image::Luma([v as u8])
            });
            img.save(folder.join(format!("image_{:04}.png", k + 1)))
                .unwrap();
        }
    }
    let root = dir.path().join("root");
    Collection::Caltech101
        .convert_as(dir.path(), &root, false, &SMALL)
        .unwrap();
    let classes = std::fs::read_to_string(root.join("caltech101/classes.txt")).unwrap();
    assert_eq!(classes, "BACKGROUND_Google\naccordion\nzebra\n");
    let svm = std::fs::read_to_string(root.join("caltech101/spm.svmlight")).unwrap();
    let lines: Vec<&str> = svm.lines().collect();
    assert_eq!(lines.len(), 6);
    let labels: Vec<&str> = lines.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(labels, ["0", "0", "1", "1", "2", "2"]);
    // every image's weighted pyramid sums to 1/4 + 1/4 + 1/2
    for l in &lines {
        let mass: f32 = l
            .split(' ')
            .skip(1)
            .map(|kv| kv.split(':').nth(1).unwrap().parse::<f32>().unwrap())
            .sum();
        assert!((mass - 1.0).abs() < 1e-4, "{mass}");
    }
}

#[test]
fn nursery_rows_are_one_hot_and_a_bad_field_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("nursery.data"),
        "usual,proper,complete,1,convenient,convenient,nonprob,recommended,recommend\n\
         great_pret,very_crit,foster,more,critical,inconv,problematic,not_recom,not_recom\n",
    )
    .unwrap();
    let root = dir.path().join("root");
    Collection::Nursery
        .convert_as(dir.path(), &root, false, &SMALL)
        .unwrap();
    let (dim, x) = rows(&root.join("uci/nursery.fvecs"));
    assert_eq!(dim, 27);
    let ones = |r: usize| -> Vec<usize> { (0..27).filter(|&j| x[r * 27 + j] == 1.0).collect() };
    // first value of every attribute; then the last value of every attribute
    assert_eq!(ones(0), [0, 3, 8, 12, 16, 19, 21, 24]);
    assert_eq!(ones(1), [2, 7, 11, 15, 18, 20, 23, 26]);
    assert_eq!(x.iter().sum::<f32>(), 16.0);
    let labels = std::fs::read_to_string(root.join("uci/nursery_labels.txt")).unwrap();
    assert_eq!(labels, "1\n0\n");
    std::fs::write(
        dir.path().join("nursery.data"),
        "usual,proper,complete,1,convenient,convenient,nonprob,recommended,recommend\n\
         usual,proper,complete,4,convenient,convenient,nonprob,recommended,recommend\n",
    )
    .unwrap();
    let err = Collection::Nursery
        .convert_as(dir.path(), &root, false, &SMALL)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nursery.data, line 2") && err.contains("attribute 4 is `4`"),
        "{err}"
    );
}

/// Issue 57, cases 10, 11 and 17: short, empty or altered collections are
/// refused by name before anything is written (they gave 0-row datasets,
/// all-zero rows, a forged image decoded, a class split over two lines).
#[test]
fn collections_of_another_shape_are_refused_by_name() {
    let refused = |c: Collection, dir: &Path| -> String {
        let root = dir.join("root");
        let err = c
            .convert_as(dir, &root, false, &SMALL)
            .unwrap_err()
            .to_string();
        assert!(!root.join(c.outputs()[0].clone()).exists(), "{err}");
        err
    };
    // Photo Tourism: an empty info.txt, and one that is not UTF-8
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("info.txt"), "").unwrap();
    let err = refused(Collection::PhotoTourism, dir.path());
    assert!(
        err.contains("info.txt: lists 0 patches, fewer than the 300"),
        "{err}"
    );
    std::fs::write(dir.path().join("info.txt"), b"1 0\n2 0\n\xff 0\n").unwrap();
    let err = refused(Collection::PhotoTourism, dir.path());
    assert!(
        err.contains("info.txt, line 3") && err.contains("not UTF-8"),
        "{err}"
    );
    // a byte-order mark is not part of the first point id
    std::fs::write(dir.path().join("info.txt"), "\u{feff}1 0\n").unwrap();
    let err = refused(Collection::PhotoTourism, dir.path());
    assert!(err.contains("lists 1 patches"), "{err}");
    // CIFAR-10: a batch of one record, a batch linked to /dev/null, a label
    // of 10 named by its batch and record
    let dir = tempfile::tempdir().unwrap();
    for (b, name) in CIFAR_BATCHES.iter().enumerate() {
        let bytes: Vec<u8> = (0..2).flat_map(|k| cifar_record(1, b * 2 + k)).collect();
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let third = dir.path().join("data_batch_3.bin");
    std::fs::write(&third, cifar_record(1, 0)).unwrap();
    let err = refused(Collection::Cifar10, dir.path());
    assert!(
        err.contains("data_batch_3.bin")
            && err.contains("holds 1 records, the collection publishes 2"),
        "{err}"
    );
    std::fs::remove_file(&third).unwrap();
    std::os::unix::fs::symlink("/dev/null", &third).unwrap();
    let err = refused(Collection::Cifar10, dir.path());
    assert!(err.contains("holds 0 records"), "{err}");
    std::fs::remove_file(&third).unwrap();
    let bytes: Vec<u8> = [cifar_record(1, 0), cifar_record(10, 1)].concat();
    std::fs::write(&third, bytes).unwrap();
    let err = refused(Collection::Cifar10, dir.path());
    assert!(
        err.contains("data_batch_3.bin") && err.contains("record 1 has class 10"),
        "{err}"
    );
    // Nursery: empty, and short of the published rows
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nursery.data"), "").unwrap();
    let err = refused(Collection::Nursery, dir.path());
    assert!(
        err.contains("nursery.data: holds 0 rows, the collection publishes 2"),
        "{err}"
    );
    // Caltech-101: a class name with a newline, an 8 x 8 image, a header
    // that claims 12000 x 12000 pixels over a 16 x 16 payload
    let caltech = |names: &[&str], image: &dyn Fn(&Path)| {
        let dir = tempfile::tempdir().unwrap();
        for name in names {
            let folder = dir.path().join(name);
            std::fs::create_dir_all(&folder).unwrap();
            image(&folder.join("image_0001.png"));
        }
        dir
    };
    let plain = |p: &Path| {
        image::GrayImage::from_fn(40, 40, |x, y| image::Luma([(x * y) as u8]))
            .save(p)
            .unwrap()
    };
    let dir = caltech(&["a", "b\nc", "d"], &plain);
    let err = refused(Collection::Caltech101, dir.path());
    assert!(err.contains("not printable UTF-8 text"), "{err}");
    let dir = caltech(&["a", "b"], &plain);
    let err = refused(Collection::Caltech101, dir.path());
    assert!(
        err.contains("holds 2 class folders, the collection publishes 3"),
        "{err}"
    );
    let small = |p: &Path| {
        image::GrayImage::from_pixel(8, 8, image::Luma([9]))
            .save(p)
            .unwrap()
    };
    let dir = caltech(&["a", "b", "c"], &small);
    let err = refused(Collection::Caltech101, dir.path());
    assert!(
        err.contains("image_0001.png")
            && err.contains("8 x 8 pixels, smaller than dense SIFT's 16-pixel window"),
        "{err}"
    );
    let forged = |p: &Path| {
        let mut png = Vec::new();
        image::GrayImage::from_pixel(16, 16, image::Luma([9]))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        // IHDR's width and height, then its CRC, rewritten to 12000 x 12000
        png[16..20].copy_from_slice(&12000u32.to_be_bytes());
        png[20..24].copy_from_slice(&12000u32.to_be_bytes());
        let crc = crc32(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        std::fs::write(p, png).unwrap();
    };
    let dir = caltech(&["a", "b", "c"], &forged);
    let err = refused(Collection::Caltech101, dir.path());
    assert!(
        err.contains("its header says 12000 x 12000 pixels, which") && err.contains("cannot hold"),
        "{err}"
    );
}

/// CRC-32 (IEEE), as PNG chunks carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
