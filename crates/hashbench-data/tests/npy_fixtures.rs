//! `.npy` code matrices written by NumPy 2.4 itself (`np.save`; the
//! fixtures hold bit j of item i = 1 where (3i + 5j) mod 7 < 3, as bool,
//! int64 and Fortran-ordered float64) read as that matrix.

use std::path::Path;

use hashbench_data::codes::read_code_matrix;

#[test]
fn numpy_written_code_matrices_read_as_the_matrix_they_hold() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for name in ["codes-bool.npy", "codes-i8.npy", "codes-f8-fortran.npy"] {
        let c = read_code_matrix(&dir.join(name)).unwrap();
        assert_eq!((c.len(), c.n_bits()), (5, 13), "{name}");
        for i in 0..5 {
            for j in 0..13 {
                assert_eq!(c.bit(i, j), (3 * i + 5 * j) % 7 < 3, "{name} ({i}, {j})");
            }
        }
    }
}
