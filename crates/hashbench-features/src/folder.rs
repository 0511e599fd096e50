//! One extractor over a folder of images, for a check against another
//! implementation (`hashbench describe`, `just features-crosscheck`).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::FeatureError;
use crate::gist::{Gist, GistParams};
use crate::image::{Gray, GrayFrom, images_in};
use crate::sift::PatchSift;

/// The image sizes `gist` takes: enough pixels for its 4 × 4 blocks at the
/// coarsest scale, and a filter bank that fits in memory (LMgist's 256 is
/// the default).
pub const GIST_IMAGE_SIZES: std::ops::RangeInclusive<usize> = 16..=1024;

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
    /// [`FeatureError::Extractor`] naming the known extractors, or the
    /// image sizes `gist` takes.
    pub fn named(name: &str, image_size: usize) -> Result<Self, FeatureError> {
        match name {
            "patch-sift" => Ok(Self::PatchSift),
            "gist" if !GIST_IMAGE_SIZES.contains(&image_size) => {
                Err(FeatureError::Extractor(format!(
                    "--image-size {image_size}: gist resizes images to {} to {} pixels a side (LMgist's 256 by default)",
                    GIST_IMAGE_SIZES.start(),
                    GIST_IMAGE_SIZES.end()
                )))
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 57, case 14: an image size of 0 panicked in the filter bank and
    /// 100,000 aborted on a 40 GB allocation; both are refused by name.
    #[test]
    fn gist_refuses_an_image_size_outside_its_range() {
        for size in [0, 15, 1025, 100_000] {
            let Err(e) = Extractor::named("gist", size) else {
                panic!("{size} accepted");
            };
            assert!(
                e.to_string().contains(&format!(
                    "--image-size {size}: gist resizes images to 16 to 1024"
                )),
                "{e}"
            );
        }
        assert!(Extractor::named("gist", 16).is_ok());
    }
}
