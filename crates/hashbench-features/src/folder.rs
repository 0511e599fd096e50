//! One extractor over a folder of images, for a check against another
//! implementation (`hashbench describe`, `just features-crosscheck`).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::FeatureError;
use crate::gist::{Gist, GistParams};
use crate::image::{Gray, GrayFrom, images_in};
use crate::sift::PatchSift;

/// An extractor a folder of images can be described with.
pub enum Extractor {
    /// [`PatchSift`] with its defaults.
    PatchSift,
    /// [`Gist`] of the given parameters.
    Gist(Box<Gist>),
}

impl Extractor {
    /// The extractor called `name`: `patch-sift`, `gist` (`LMgist`'s
    /// defaults at `image_size`) or `tiny-gist`.
    ///
    /// # Errors
    /// [`FeatureError::Extractor`] naming the known extractors.
    pub fn named(name: &str, image_size: usize) -> Result<Self, FeatureError> {
        match name {
            "patch-sift" => Ok(Self::PatchSift),
            "gist" => Ok(Self::Gist(Box::new(Gist::new(GistParams::lmgist(
                image_size,
            ))))),
            "tiny-gist" => Ok(Self::Gist(Box::new(Gist::new(GistParams::tiny())))),
            _ => Err(FeatureError::Extractor(format!(
                "no extractor `{name}`; known: patch-sift, gist, tiny-gist"
            ))),
        }
    }

    /// The descriptor of `img`.
    #[must_use]
    pub fn describe(&self, img: &Gray) -> Vec<f32> {
        match self {
            Self::PatchSift => PatchSift::default().describe(img).to_vec(),
            Self::Gist(g) => g.describe(img),
        }
    }
}

/// Every `.png`, `.jpg` or `.bmp` file of `dir`, in name order, with its
/// descriptor (colour made grey as the channel mean, as `LMgist` does).
///
/// # Errors
/// An unreadable folder or image.
pub fn describe_folder(
    extractor: &Extractor,
    dir: &Path,
) -> Result<Vec<(PathBuf, Vec<f32>)>, FeatureError> {
    images_in(dir)?
        .into_par_iter()
        .map(|f| {
            let d = extractor.describe(&Gray::open(&f, GrayFrom::ChannelMean)?);
            Ok((f, d))
        })
        .collect()
}
