use faer::Mat;
use hashbench_data::vecs::{VecsKind, read_vecs};
use hashbench_solvers::KnnGraph;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let path = std::path::Path::new("/work/shared/data/siftsmall/siftsmall_learn.fvecs");
    let (n, d, v) = read_vecs(path, VecsKind::F32, Some(n)).unwrap();
    let x = Mat::from_fn(n, d, |i, j| v[i * d + j] as f64);
    let t = std::time::Instant::now();
    let g = KnnGraph::cosine(x.as_ref(), 100).unwrap();
    eprintln!("graph {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let (vals, _) = g.smallest_generalised_eigenvectors(81).unwrap();
    eprintln!("eigen {:?} {:?}", t.elapsed(), &vals[..3]);
}
