//! The raw collections hashbench turns into registry files: each reads a
//! folder in the collection's own published layout, runs its extractor over
//! every item (in parallel, resumably) and writes the files the registry
//! names, with a provenance record.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::FeatureError;
use crate::gist::{Gist, GistParams};
use crate::image::{Gray, GrayFrom, images_in};
use crate::output::{self, Written};
use crate::pyramid::{self, DenseSift, Vocabulary};
use crate::sift::{self, PatchSift};

/// A raw collection hashbench can convert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collection {
    /// Photo Tourism patches of Brown, Hua and Winder's 2011 release,
    /// centred on Difference-of-Gaussian interest points (one scene's folder).
    PhotoTourism,
    /// CIFAR-10, binary batches.
    Cifar10,
    /// Caltech-101's `101_ObjectCategories` folder tree.
    Caltech101,
    /// UCI Nursery's `nursery.data`.
    Nursery,
}

/// The counts the raw collections publish. A converter refuses a copy whose
/// counts differ (short, empty or inconsistent), naming the file, before it
/// writes anything; tests convert small fixtures of another shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Photo Tourism patches kept, the first of those `info.txt` lists (it
    /// must list at least as many).
    pub photo_tourism_patches: usize,
    /// CIFAR-10 records in each of its six batch files.
    pub cifar_per_batch: usize,
    /// Caltech-101 class folders.
    pub caltech_classes: usize,
    /// UCI Nursery rows.
    pub nursery_rows: usize,
}

impl Shape {
    /// The published collections: Photo Tourism's first 100,000 patches,
    /// CIFAR-10's 50,000 + 10,000 images, Caltech-101's 101 categories and
    /// `BACKGROUND_Google`, Nursery's 12,960 rows (every combination of its 8
    /// attributes).
    pub const PUBLISHED: Shape = Shape {
        photo_tourism_patches: PHOTO_TOURISM_PATCHES,
        cifar_per_batch: 10_000,
        caltech_classes: 102,
        nursery_rows: 12_960,
    };
}

impl Collection {
    /// Every collection.
    pub const ALL: [Self; 4] = [
        Self::PhotoTourism,
        Self::Cifar10,
        Self::Caltech101,
        Self::Nursery,
    ];

    /// The converter's name in the registry and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::PhotoTourism => "photo-tourism",
            Self::Cifar10 => "cifar-10",
            Self::Caltech101 => "caltech-101",
            Self::Nursery => "nursery",
        }
    }

    /// The collection called `name`.
    ///
    /// # Errors
    /// [`FeatureError::UnknownCollection`] listing the known names.
    pub fn named(name: &str) -> Result<Self, FeatureError> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| FeatureError::UnknownCollection {
                name: name.to_string(),
                known: Self::ALL.map(Self::name).join(", "),
            })
    }

    /// The files a conversion writes, relative to the data root.
    #[must_use]
    pub fn outputs(self) -> Vec<PathBuf> {
        let files: &[&str] = match self {
            Self::PhotoTourism => &[
                "photo-tourism/notredame_sift.fvecs",
                "photo-tourism/notredame_gist.fvecs",
                "photo-tourism/notredame_points.txt",
            ],
            Self::Cifar10 => &["cifar10/gist.fvecs", "cifar10/labels.txt"],
            Self::Caltech101 => &["caltech101/spm.svmlight", "caltech101/classes.txt"],
            Self::Nursery => &["uci/nursery.fvecs", "uci/nursery_labels.txt"],
        };
        files.iter().map(PathBuf::from).collect()
    }

    /// Converts the collection in `source` (its published layout) into the
    /// registry's files under `root`; intermediate chunks go to
    /// `<root>/.features/<name>/` and are removed at the end.
    ///
    /// # Errors
    /// A missing or malformed source file (named, with its line where it
    /// has lines), an undecodable image, a failed write.
    pub fn convert(
        self,
        source: &Path,
        root: &Path,
        progress: bool,
    ) -> Result<Written, FeatureError> {
        self.convert_as(source, root, progress, &Shape::PUBLISHED)
    }

    /// [`Collection::convert`] of a collection of the given `shape`.
    ///
    /// # Errors
    /// As [`Collection::convert`]; counts other than `shape`'s, named.
    pub fn convert_as(
        self,
        source: &Path,
        root: &Path,
        progress: bool,
        shape: &Shape,
    ) -> Result<Written, FeatureError> {
        // the chunks' folder, plain at every level: a link planted there
        // would send its writes and deletes outside `root`
        let work = root.join(".features").join(self.name());
        for level in [root.join(".features"), work.clone()] {
            hashbench_data::paths::not_a_link(&level).map_err(FeatureError::io(&level))?;
        }
        let written = match self {
            Self::PhotoTourism => photo_tourism(source, root, &work, progress, shape),
            Self::Cifar10 => cifar10(source, root, &work, progress, shape),
            Self::Caltech101 => caltech101(source, root, &work, progress, shape),
            Self::Nursery => nursery(source, root, shape),
        }?;
        if work.exists() {
            std::fs::remove_dir_all(&work).map_err(FeatureError::io(&work))?;
        }
        let _ = std::fs::remove_dir(root.join(".features"));
        Ok(written)
    }
}

/// The chunks' key: this crate's version, the extractor settings, and each
/// source file's name, size and modification time (a changed extractor or
/// source never resumes from the other's rows).
fn chunk_key(settings: &str, files: &[PathBuf]) -> String {
    let files: Vec<String> = files
        .iter()
        .map(|f| {
            let meta = f.metadata().ok();
            let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
            let modified = meta
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {size} {modified}", f.display())
        })
        .collect();
    format!(
        "hashbench-features {}\n{settings}\n{}",
        env!("CARGO_PKG_VERSION"),
        files.join("\n")
    )
}

fn need(path: PathBuf, what: &str) -> Result<PathBuf, FeatureError> {
    if path.exists() {
        Ok(path)
    } else {
        Err(FeatureError::Missing {
            path,
            what: what.to_string(),
        })
    }
}

/// A text file of a collection (without a leading byte-order mark), naming
/// the line of its first byte that is not UTF-8.
fn read_text(path: &Path) -> Result<String, FeatureError> {
    let mut bytes = std::fs::read(path).map_err(FeatureError::io(path))?;
    // a byte-order mark is no part of the first line
    if bytes.starts_with("\u{feff}".as_bytes()) {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        FeatureError::Format {
            path: path.to_path_buf(),
            line: Some(valid.iter().filter(|&&b| b == b'\n').count() + 1),
            reason: "not UTF-8 text".into(),
        }
    })
}

/// Refuses a collection file holding `found` items where `published` are
/// expected.
fn published_count(
    path: &Path,
    found: usize,
    published: usize,
    what: &str,
) -> Result<(), FeatureError> {
    if found == published {
        return Ok(());
    }
    Err(FeatureError::Format {
        path: path.to_path_buf(),
        line: None,
        reason: format!(
            "holds {found} {what}, the collection publishes {published}: a short or altered copy"
        ),
    })
}

/// Side of a Photo Tourism patch, in pixels.
pub const PATCH: usize = 64;
/// Patches per side of one Photo Tourism bitmap (16 x 16 = 256 per file).
pub const PATCHES_PER_SIDE: usize = 16;

/// Patches of the scene hashbench keeps: the first 100,000, the papers' n
/// (KLSH Sec. 6.3, OKH Sec. 4.2); the Notre Dame folder holds 468,159.
pub const PHOTO_TOURISM_PATCHES: usize = 100_000;

/// Photo Tourism: the folder under `source` holding `info.txt` (one line
/// per patch: its 3D point id, then a
/// number hashbench does not use) and `patches0000.bmp`, … (1024 x 1024
/// grey bitmaps of 16 x 16 patches, row by row); patch `i` is in file
/// `i / 256`. Writes SIFT (128) and GIST (512) of the first
/// [`PHOTO_TOURISM_PATCHES`] patches and their point ids, in `info.txt`'s order.
fn photo_tourism(
    source: &Path,
    root: &Path,
    work: &Path,
    progress: bool,
    shape: &Shape,
) -> Result<Written, FeatureError> {
    let scene = scene_folder(source)?;
    let (points, bitmaps) = kept_patches(&scene, shape.photo_tourism_patches)?;
    let points = &points[..];
    let per_file = PATCHES_PER_SIDE * PATCHES_PER_SIDE;
    let sift = PatchSift::default();
    let gist = Gist::new(GistParams::lmgist(PATCH));
    let key = chunk_key(
        &format!("photo-tourism {sift:?} {:?}", gist.params()),
        &bitmaps,
    );
    let dim = sift::LEN + gist.params().len();
    let side = PATCH * PATCHES_PER_SIDE;
    let rows = output::rows_in_chunks(
        work,
        &key,
        points.len(),
        dim,
        "photo-tourism patches",
        progress,
        |range, bar| {
            // each bitmap of the chunk decoded once, for its 256 patches
            let first = range.start / per_file;
            let sheets = sheets(&bitmaps[first..=(range.end - 1) / per_file], side)?;
            output::par_rows(range, bar, |i| {
                let k = i % per_file;
                let p = sheets[i / per_file - first].crop(
                    (k % PATCHES_PER_SIDE) * PATCH,
                    (k / PATCHES_PER_SIDE) * PATCH,
                    PATCH,
                    PATCH,
                );
                let mut row = sift.describe(&p).to_vec();
                row.extend(gist.describe(&p));
                Ok(row)
            })
        },
    )?;
    let (sifts, gists): (Vec<f32>, Vec<f32>) = split_columns(&rows, dim, sift::LEN);
    let outputs = Collection::PhotoTourism.outputs();
    output::write_set(
        root,
        vec![
            (outputs[0].clone(), output::fvecs(&sifts, sift::LEN)),
            (
                outputs[1].clone(),
                output::fvecs(&gists, gist.params().len()),
            ),
            (outputs[2].clone(), output::lines(points)),
        ],
        Path::new("photo-tourism/notredame.provenance.txt"),
        &format!(
            "Photo Tourism patches from {}: {} patches; SIFT by hashbench-features ({:?}), GIST by hashbench-features ({:?})",
            source.display(),
            points.len(),
            sift,
            gist.params()
        ),
    )
}

/// The first `kept` patches' 3D point ids of `scene` and the bitmaps that
/// hold them (`PATCHES_PER_SIDE`² patches each); a scene listing fewer
/// patches is a short or altered copy.
fn kept_patches(scene: &Path, kept: usize) -> Result<(Vec<u64>, Vec<PathBuf>), FeatureError> {
    let (info, mut points) = point_ids(scene)?;
    if points.len() < kept {
        return Err(FeatureError::Format {
            path: info,
            line: None,
            reason: format!(
                "lists {} patches, fewer than the {kept} hashbench keeps: a short or altered copy",
                points.len()
            ),
        });
    }
    points.truncate(kept);
    let per_file = PATCHES_PER_SIDE * PATCHES_PER_SIDE;
    let bitmaps = (0..points.len().div_ceil(per_file))
        .map(|f| {
            need(
                scene.join(format!("patches{f:04}.bmp")),
                "a Photo Tourism patch bitmap",
            )
        })
        .collect::<Result<_, _>>()?;
    Ok((points, bitmaps))
}

/// The folder of the one Photo Tourism scene under `source` (its files may
/// sit in a sub-folder: mirrors re-pack them so).
fn scene_folder(source: &Path) -> Result<PathBuf, FeatureError> {
    let scenes: Vec<PathBuf> = walkdir::WalkDir::new(source)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "info.txt")
        .filter_map(|e| e.path().parent().map(Path::to_path_buf))
        .collect();
    if scenes.len() > 1 {
        return Err(FeatureError::Format {
            path: source.to_path_buf(),
            line: None,
            reason: format!(
                "holds {} scenes ({}); point --from at the Notre Dame one",
                scenes.len(),
                scenes
                    .iter()
                    .map(|s| s.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    Ok(scenes
        .into_iter()
        .next()
        .unwrap_or_else(|| source.to_path_buf()))
}

/// The scene's `info.txt` and the 3D point id of each patch, in its order.
fn point_ids(scene: &Path) -> Result<(PathBuf, Vec<u64>), FeatureError> {
    let info = need(
        scene.join("info.txt"),
        "the patch info file of a Photo Tourism scene",
    )?;
    let text = read_text(&info)?;
    let points = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| {
            l.split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| FeatureError::Format {
                    path: info.clone(),
                    line: Some(k + 1),
                    reason: format!("expected a 3D point id first, found `{l}`"),
                })
        })
        .collect::<Result<_, _>>()?;
    Ok((info, points))
}

/// The patch bitmaps `files`, decoded in parallel, each `side` pixels square.
fn sheets(files: &[PathBuf], side: usize) -> Result<Vec<Gray>, FeatureError> {
    files
        .par_iter()
        .map(|file| {
            let sheet = Gray::open(file, GrayFrom::Luma)?;
            if sheet.width() == side && sheet.height() == side {
                Ok(sheet)
            } else {
                Err(FeatureError::Format {
                    path: file.clone(),
                    line: None,
                    reason: format!(
                        "a patch bitmap is {side} x {side} pixels, this one {} x {}",
                        sheet.width(),
                        sheet.height()
                    ),
                })
            }
        })
        .collect()
}

/// The first `left` columns of each `dim`-wide row, and the rest.
fn split_columns(rows: &[f32], dim: usize, left: usize) -> (Vec<f32>, Vec<f32>) {
    let mut a = Vec::with_capacity(rows.len() / dim * left);
    let mut b = Vec::with_capacity(rows.len() / dim * (dim - left));
    for row in rows.chunks_exact(dim) {
        a.extend_from_slice(&row[..left]);
        b.extend_from_slice(&row[left..]);
    }
    (a, b)
}

/// Bytes of one CIFAR-10 binary record: a label, then 32 x 32 red, green
/// and blue planes.
const CIFAR_RECORD: usize = 1 + 3 * 32 * 32;
/// The binary batches, in the order hashbench concatenates them.
pub const CIFAR_BATCHES: [&str; 6] = [
    "data_batch_1.bin",
    "data_batch_2.bin",
    "data_batch_3.bin",
    "data_batch_4.bin",
    "data_batch_5.bin",
    "test_batch.bin",
];

/// CIFAR-10's binary batches (`cifar-10-batches-bin/`): the tiny-image GIST
/// of each image (grey as the channel mean) and its class, the five
/// training batches then the test batch.
fn cifar10(
    source: &Path,
    root: &Path,
    work: &Path,
    progress: bool,
    shape: &Shape,
) -> Result<Written, FeatureError> {
    let mut records = Vec::new();
    let mut files = Vec::new();
    for name in CIFAR_BATCHES {
        let file = need(source.join(name), "a CIFAR-10 binary batch")?;
        let bytes = std::fs::read(&file).map_err(FeatureError::io(&file))?;
        if bytes.len() % CIFAR_RECORD != 0 {
            return Err(FeatureError::Format {
                path: file,
                line: None,
                reason: format!(
                    "{} bytes is not a whole number of {CIFAR_RECORD}-byte records",
                    bytes.len()
                ),
            });
        }
        published_count(
            &file,
            bytes.len() / CIFAR_RECORD,
            shape.cifar_per_batch,
            "records",
        )?;
        let batch = bytes.chunks_exact(CIFAR_RECORD);
        if let Some((k, r)) = batch.clone().enumerate().find(|(_, r)| r[0] > 9) {
            return Err(FeatureError::Format {
                path: file,
                line: None,
                reason: format!("record {k} has class {}, outside 0-9", r[0]),
            });
        }
        records.extend(batch.map(<[u8]>::to_vec));
        files.push(file);
    }
    let labels: Vec<u32> = records.iter().map(|r| u32::from(r[0])).collect();
    let gist = Gist::new(GistParams::tiny());
    let key = chunk_key(&format!("cifar-10 {:?}", gist.params()), &files);
    let rows = output::rows_in_chunks(
        work,
        &key,
        records.len(),
        gist.params().len(),
        "cifar-10 images",
        progress,
        |range, bar| {
            output::par_rows(range, bar, |i| {
                let planes = &records[i][1..];
                let plane = 32 * 32;
                let rgb: Vec<u8> = (0..plane)
                    .flat_map(|p| [planes[p], planes[plane + p], planes[2 * plane + p]])
                    .collect();
                Ok(gist.describe(&Gray::from_rgb8(32, 32, &rgb, GrayFrom::ChannelMean)))
            })
        },
    )?;
    let outputs = Collection::Cifar10.outputs();
    output::write_set(
        root,
        vec![
            (
                outputs[0].clone(),
                output::fvecs(&rows, gist.params().len()),
            ),
            (outputs[1].clone(), output::lines(&labels)),
        ],
        Path::new("cifar10/provenance.txt"),
        &format!(
            "CIFAR-10 binary batches from {}: {} images; GIST by hashbench-features ({:?}), grey as the channel mean",
            source.display(),
            records.len(),
            gist.params()
        ),
    )
}

/// Words in the Caltech-101 vocabulary (Lazebnik et al.'s M = 200).
pub const CALTECH_WORDS: usize = 200;
/// Pyramid levels above the whole image (L = 2: 1 + 4 + 16 cells).
pub const CALTECH_LEVELS: u32 = 2;
/// Descriptors per image drawn for the vocabulary.
const VOCABULARY_SAMPLE: usize = 30;
/// Seed of the vocabulary's sample and k-means.
const VOCABULARY_SEED: u64 = 101;

/// Caltech-101's `101_ObjectCategories/<class>/*.jpg`: classes in name
/// order (`BACKGROUND_Google` is class 0), images in name order within a
/// class; dense SIFT words in a level-2 spatial pyramid over a 200-word
/// vocabulary learned from a sample of every image's descriptors.
fn caltech101(
    source: &Path,
    root: &Path,
    work: &Path,
    progress: bool,
    shape: &Shape,
) -> Result<Written, FeatureError> {
    let classes = class_folders(source)?;
    published_count(
        source,
        classes.len(),
        shape.caltech_classes,
        "class folders",
    )?;
    let (images, labels) = labelled_images(&classes)?;
    let dense = DenseSift::default();
    // two passes over the images: a sample of descriptors for the
    // vocabulary, then each image's words (a whole set of descriptors would
    // take gigabytes)
    let describe = |i: usize| -> Result<Vec<pyramid::Located>, FeatureError> {
        let img = Gray::open(&images[i], GrayFrom::Luma)?;
        let least = dense.min_side();
        if img.width() < least || img.height() < least {
            return Err(FeatureError::Image {
                path: images[i].clone(),
                reason: format!(
                    "{} x {} pixels, smaller than dense SIFT's {least}-pixel window: it would give a row of no word",
                    img.width(),
                    img.height()
                ),
            });
        }
        Ok(dense.describe(&img))
    };
    let vocabulary = vocabulary(images.len(), &describe, progress)?;
    let words = vocabulary.len();
    let dim = words * (0..=CALTECH_LEVELS).map(|l| 4usize.pow(l)).sum::<usize>();
    let key = chunk_key(
        &format!(
            "caltech-101 {dense:?} {words} words, {VOCABULARY_SAMPLE} per image, seed {VOCABULARY_SEED}"
        ),
        &images,
    );
    let rows = output::rows_in_chunks(
        work,
        &key,
        images.len(),
        dim,
        "caltech-101 pyramids",
        progress,
        |range, bar| {
            output::par_rows(range, bar, |i| {
                Ok(pyramid::spatial_pyramid(
                    &describe(i)?,
                    &vocabulary,
                    CALTECH_LEVELS,
                ))
            })
        },
    )?;
    let outputs = Collection::Caltech101.outputs();
    let names: Vec<&str> = classes.iter().map(|(n, _)| n.as_str()).collect();
    output::write_set(
        root,
        vec![
            (outputs[0].clone(), output::svmlight(&rows, dim, &labels)),
            (outputs[1].clone(), output::lines(&names)),
        ],
        Path::new("caltech101/provenance.txt"),
        &format!(
            "Caltech-101 from {}: {} images of {} classes; dense SIFT by hashbench-features ({dense:?}), {words}-word k-means vocabulary (seed {VOCABULARY_SEED}, {VOCABULARY_SAMPLE} descriptors per image), spatial pyramid levels 0-{CALTECH_LEVELS} weighted 1/4, 1/4, 1/2",
            source.display(),
            images.len(),
            classes.len()
        ),
    )
}

/// Caltech-101's class folders under `source`, by name, each name
/// printable text (it is a line of `classes.txt`).
fn class_folders(source: &Path) -> Result<Vec<(String, PathBuf)>, FeatureError> {
    let mut classes: Vec<(String, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(source)
        .map_err(FeatureError::io(source))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
    {
        let name = e
            .file_name()
            .into_string()
            .ok()
            .filter(|n| !n.chars().any(char::is_control));
        let Some(name) = name else {
            return Err(FeatureError::Format {
                path: e.path(),
                line: None,
                reason: "a class folder's name is not printable UTF-8 text (it is a line of classes.txt)".into(),
            });
        };
        classes.push((name, e.path()));
    }
    classes.sort();
    Ok(classes)
}

/// Every class's images in name order, and each image's class number.
fn labelled_images(
    classes: &[(String, PathBuf)],
) -> Result<(Vec<PathBuf>, Vec<u32>), FeatureError> {
    let mut images = Vec::new();
    let mut labels = Vec::new();
    for (label, (_, dir)) in classes.iter().enumerate() {
        let files = images_in(dir)?;
        if files.is_empty() {
            return Err(FeatureError::Missing {
                path: dir.clone(),
                what: "a Caltech-101 class folder's .jpg images".into(),
            });
        }
        labels.extend(std::iter::repeat_n(label as u32, files.len()));
        images.extend(files);
    }
    Ok((images, labels))
}

/// The k-means vocabulary of a seeded sample of each of the `n` images'
/// descriptors (`describe(i)`), at most [`CALTECH_WORDS`] words.
fn vocabulary(
    n: usize,
    describe: &(dyn Fn(usize) -> Result<Vec<pyramid::Located>, FeatureError> + Sync),
    progress: bool,
) -> Result<Vocabulary, FeatureError> {
    let bar = output::bar(n as u64, "caltech-101 vocabulary sample", progress);
    let samples: Vec<[f32; sift::LEN]> = (0..n)
        .into_par_iter()
        .map(|i| {
            let s = pyramid::sample(&describe(i)?, VOCABULARY_SAMPLE, VOCABULARY_SEED, i as u64);
            bar.inc(1);
            Ok(s)
        })
        .collect::<Result<Vec<_>, FeatureError>>()?
        .concat();
    bar.finish_and_clear();
    let words = CALTECH_WORDS.min(samples.len());
    if words == 0 {
        return Err(FeatureError::Extractor(
            "no Caltech-101 image is large enough for a 16-pixel SIFT window".into(),
        ));
    }
    Ok(Vocabulary::kmeans(&samples, words, VOCABULARY_SEED))
}

/// UCI Nursery's attributes, each with its values in `nursery.names`' order.
pub const NURSERY_ATTRIBUTES: [&[&str]; 8] = [
    &["usual", "pretentious", "great_pret"],
    &["proper", "less_proper", "improper", "critical", "very_crit"],
    &["complete", "completed", "incomplete", "foster"],
    &["1", "2", "3", "more"],
    &["convenient", "less_conv", "critical"],
    &["convenient", "inconv"],
    &["nonprob", "slightly_prob", "problematic"],
    &["recommended", "priority", "not_recom"],
];
/// UCI Nursery's classes, in `nursery.names`' order.
pub const NURSERY_CLASSES: [&str; 5] = [
    "not_recom",
    "recommend",
    "very_recom",
    "priority",
    "spec_prior",
];

/// UCI Nursery's `nursery.data`: each row's 8 attributes one-hot (27
/// values) and its class number.
fn nursery(source: &Path, root: &Path, shape: &Shape) -> Result<Written, FeatureError> {
    let file = need(source.join("nursery.data"), "UCI Nursery's nursery.data")?;
    let text = read_text(&file)?;
    let dim: usize = NURSERY_ATTRIBUTES.iter().map(|a| a.len()).sum();
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for (k, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |reason: String| FeatureError::Format {
            path: file.clone(),
            line: Some(k + 1),
            reason,
        };
        let fields: Vec<&str> = line.trim().split(',').collect();
        if fields.len() != NURSERY_ATTRIBUTES.len() + 1 {
            return Err(bad(format!("{} fields, expected 9", fields.len())));
        }
        let mut row = vec![0f32; dim];
        let mut offset = 0;
        for (a, (values, field)) in NURSERY_ATTRIBUTES.iter().zip(&fields).enumerate() {
            let v = values.iter().position(|v| v == field).ok_or_else(|| {
                bad(format!(
                    "attribute {} is `{field}`, not one of {values:?}",
                    a + 1
                ))
            })?;
            row[offset + v] = 1.0;
            offset += values.len();
        }
        let class = NURSERY_CLASSES
            .iter()
            .position(|c| *c == fields[8])
            .ok_or_else(|| {
                bad(format!(
                    "class `{}` is not one of {NURSERY_CLASSES:?}",
                    fields[8]
                ))
            })?;
        rows.extend(row);
        labels.push(class as u32);
    }
    published_count(&file, labels.len(), shape.nursery_rows, "rows")?;
    let outputs = Collection::Nursery.outputs();
    output::write_set(
        root,
        vec![
            (outputs[0].clone(), output::fvecs(&rows, dim)),
            (outputs[1].clone(), output::lines(&labels)),
        ],
        Path::new("uci/nursery.provenance.txt"),
        &format!(
            "UCI Nursery from {}: {} rows, 8 attributes one-hot ({dim} values), classes {NURSERY_CLASSES:?} as 0-4",
            file.display(),
            labels.len()
        ),
    )
}
