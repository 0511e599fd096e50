//! The model shared by every linear-projection method (LSH, PCAH, and the SPLH
//! family): bit k = 1 where wₖᵀ(x − μ) > 0, μ the training mean.

use faer::Mat;

use crate::linalg::project_centered;
use crate::method::dense_with_dim;
use crate::{BitCodes, Data, EncodeError, HashModel};

/// Projections `w` (d × bits, one column per bit) through the training mean.
#[derive(Debug, Clone)]
pub struct LinearModel {
    /// Training mean μ (length d).
    pub mean: Vec<f64>,
    /// Projection directions, one column per bit.
    pub w: Mat<f64>,
}

impl HashModel for LinearModel {
    fn n_bits(&self) -> usize {
        self.w.ncols()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.mean.len())?;
        Ok(BitCodes::from_projections(
            project_centered(x, &self.mean, self.w.as_ref()).as_ref(),
        ))
    }
}
